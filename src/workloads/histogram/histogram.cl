/* histogram's OpenCL rung (histogram-cl.c): a histogram in local memory
 * per work-group, added to the counts with one global atomic per bin. On
 * a GPU the group's items stride over the bytes and count with local
 * atomics; on a CPU (KL_CONTIGUOUS: one item a group) an item counts a
 * contiguous run with plain increments, its group's histogram its own. */
#define BINS 256

/* The bytes from `offset` on (the tests' unaligned starts), n of them. */
__kernel void histogram_local(__global const uchar *restrict data,
                              const ulong offset, const ulong n,
                              __global uint *restrict counts,
                              __local uint *bins) {
  __global const uchar *bytes = data + offset;
  for (size_t b = get_local_id(0); b < BINS; b += get_local_size(0))
    bins[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
#ifdef KL_CONTIGUOUS
  ITEMS(i, n) bins[bytes[i]]++; /* the group's one item: no atomics */
#else
  ITEMS(i, n) atomic_inc(&bins[bytes[i]]);
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t b = get_local_id(0); b < BINS; b += get_local_size(0))
    if (bins[b]) atomic_add(&counts[b], bins[b]);
}
