/* map's OpenCL rungs (map-cl.c): y = a x^2 + b x + c in float, as the
 * seed writes it. */
__kernel void map_thread(__global const float *restrict x,
                         __global float *restrict y, const float a,
                         const float b, const float c, const ulong n) {
  const size_t i = get_global_id(0);
  if (i < n) {
    const float v = x[i];
    y[i] = a * v * v + b * v + c;
  }
}

/* Four elements an item, as one 16-byte load and store (vload4 and
 * vstore4 need only a float's alignment); the last item takes the rest
 * one by one. */
__kernel void map_vec4(__global const float *restrict x,
                       __global float *restrict y, const float a,
                       const float b, const float c, const ulong n) {
  const size_t q = get_global_id(0), i = 4 * q;
  if (i + 4 <= n) {
    const float4 v = vload4(q, x);
    vstore4(a * v * v + b * v + c, q, y);
  } else {
    for (size_t k = i; k < n; k++) {
      const float v = x[k];
      y[k] = a * v * v + b * v + c;
    }
  }
}
