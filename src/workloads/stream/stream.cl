/* stream's OpenCL rungs (stream-cl.c): 16 bytes per work-item (a float4 or
 * a double2, T the element type: -DT=float or double), one vector an item
 * and a global size covering n, so that short-lived groups run in address
 * order (no grid-stride loop). The buffers' bases are aligned (a cl_mem's
 * is at least 128 bytes), so vector i is aligned; the n % VEC elements
 * past the last vector go one an item to the items after the vectors'. */
#ifdef KL_FP64
typedef double2 TV;
#define VEC 2
#else
typedef float4 TV;
#define VEC 4
#endif

__kernel void stream_copy(__global const T *restrict a, __global T *restrict c,
                          const ulong n) {
  const size_t i = get_global_id(0), vectors = n / VEC;
  if (i < vectors) {
    ((__global TV *)c)[i] = ((__global const TV *)a)[i];
  } else {
    const size_t e = vectors * VEC + (i - vectors);
    if (e < n) c[e] = a[e];
  }
}

__kernel void stream_triad(__global const T *restrict a,
                           __global const T *restrict b,
                           __global T *restrict c, const T s, const ulong n) {
  const size_t i = get_global_id(0), vectors = n / VEC;
  if (i < vectors) {
    ((__global TV *)c)[i] =
        ((__global const TV *)a)[i] + s * ((__global const TV *)b)[i];
  } else {
    const size_t e = vectors * VEC + (i - vectors);
    if (e < n) c[e] = a[e] + s * b[e];
  }
}
