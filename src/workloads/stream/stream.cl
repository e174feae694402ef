/* stream's OpenCL rungs (stream-cl.c): one element per work-item, T the
 * element type (-DT=float or double). */
__kernel void stream_copy(__global const T *restrict a, __global T *restrict c,
                          const ulong n) {
  const size_t i = get_global_id(0);
  if (i < n) c[i] = a[i];
}

__kernel void stream_triad(__global const T *restrict a,
                           __global const T *restrict b,
                           __global T *restrict c, const T s, const ulong n) {
  const size_t i = get_global_id(0);
  if (i < n) c[i] = a[i] + s * b[i];
}
