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

/* opencl-vector (histogram-cl.c): 16 bytes a load (uint4, from the first
 * 16-byte boundary of the bytes; `head` bytes before it, the tail after
 * the last whole vector), counted into COLUMNS sub-histograms in local
 * memory, bin b of column c at word b * COLUMNS + c. On a GPU an item's
 * column is its local id modulo COLUMNS (32: every lane of a warp in a
 * bank of its own, whatever the bytes: cuda-best's layout), counted with
 * local atomics over a persistent grid, two loads in flight; on a CPU
 * (KL_CONTIGUOUS, one item a group) byte k of each word goes to column k
 * (COLUMNS 4, plain increments), so that runs of equal bytes do not
 * chain one counter's loads and stores. A group's columns are summed per
 * bin into one global atomic. */
#ifndef COLUMNS
#define COLUMNS 32
#endif

#ifdef KL_CONTIGUOUS
#define COUNT(h, byte, k) ((h)[(byte) * COLUMNS + (k)]++)
#else
#define COUNT(h, byte, k) atomic_inc(&(h)[(byte) * COLUMNS])
#endif

static void count_word(__local uint *h, const uint w) {
  COUNT(h, w & 255u, 0);
  COUNT(h, (w >> 8) & 255u, 1);
  COUNT(h, (w >> 16) & 255u, 2);
  COUNT(h, w >> 24, 3);
}

static void count_vector(__local uint *h, const uint4 v) {
  count_word(h, v.x);
  count_word(h, v.y);
  count_word(h, v.z);
  count_word(h, v.w);
}

__kernel void histogram_vector(__global const uchar *restrict data,
                               const ulong offset, const ulong n,
                               const ulong head,
                               __global uint *restrict counts,
                               __local uint *bins) {
  __global const uchar *bytes = data + offset;
  const size_t lid = get_local_id(0), size = get_local_size(0);
  for (size_t b = lid; b < BINS * COLUMNS; b += size) bins[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
#ifdef KL_CONTIGUOUS
  __local uint *mine = bins;
#else
  __local uint *mine = bins + lid % COLUMNS;
#endif
  /* The whole vectors: 16-byte aligned (the buffer's base is). */
  __global const uint4 *v = (__global const uint4 *)(bytes + head);
  const ulong words = (n - head) / 16;
#ifdef KL_CONTIGUOUS
  ITEMS(i, words) count_vector(mine, v[i]);
#else
  const size_t stride = get_global_size(0);
  size_t i = get_global_id(0);
  for (; i + stride < words; i += 2 * stride) {
    const uint4 r0 = v[i], r1 = v[i + stride];
    count_vector(mine, r0);
    count_vector(mine, r1);
  }
  if (i < words) count_vector(mine, v[i]);
#endif
  /* The head and the tail (fewer than 16 bytes each): the first group. */
  if (get_group_id(0) == 0) {
    for (size_t t = lid; t < head; t += size) COUNT(mine, bytes[t], 0);
    for (size_t t = head + words * 16 + lid; t < n; t += size)
      COUNT(mine, bytes[t], 0);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t b = lid; b < BINS; b += size) {
    uint sum = 0;
    for (size_t c = 0; c < COLUMNS; c++)
      sum += bins[b * COLUMNS + (c + b) % COLUMNS];
    if (sum) atomic_add(&counts[b], sum);
  }
}
