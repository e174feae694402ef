/* read's OpenCL rung (read-cl.c): x = the XOR of a's words (W: uint for
 * f32, ulong for f64; WV their 16-byte vector of VEC words), widened to
 * ulong; a work-group tree in local
 * memory, then one group over the partials. */
static ulong group_xor(ulong mine, __local ulong *scratch) {
  const size_t l = get_local_id(0);
  scratch[l] = mine;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) scratch[l] ^= scratch[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return scratch[0];
}

__kernel void read_partials(__global const W *restrict a, const ulong n,
                            __global ulong *restrict partials,
                            __local ulong *scratch) {
  ulong acc = 0;
#ifdef KL_CONTIGUOUS
  /* Eight chains of XORs at once, for the compiler's vectors. */
  size_t begin, end;
  kl_run(n, &begin, &end);
  ulong part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t i = begin;
  for (; i + 8 <= end; i += 8)
    for (int k = 0; k < 8; k++) part[k] ^= (ulong)a[i + k];
  for (; i < end; i++) acc ^= (ulong)a[i];
  for (int k = 0; k < 8; k++) acc ^= part[k];
#else
  /* A GPU: reduce opencl-tree's loads (16 bytes, WV = VEC words, two in
   * flight per item a step, a grid's stride apart, the buffer's start
   * aligned), then the last n % VEC words one an item. One 8-byte load a
   * step read 2715 GB/s on the H100 where opencl-tree summed at 3030:
   * reduce's 111.6% of this ceiling. */
  const size_t g = get_global_size(0), vectors = n / VEC;
  __global const WV *av = (__global const WV *)a;
  WV x0 = (WV)(0), x1 = (WV)(0);
  size_t i = get_global_id(0);
  for (; i + g < vectors; i += 2 * g) {
    x0 ^= av[i];
    x1 ^= av[i + g];
  }
  if (i < vectors) x0 ^= av[i];
  x0 ^= x1;
  acc = (ulong)x0.s0 ^ (ulong)x0.s1;
#if VEC == 4
  acc ^= (ulong)x0.s2 ^ (ulong)x0.s3;
#endif
  for (size_t t = vectors * VEC + get_global_id(0); t < n; t += g)
    acc ^= (ulong)a[t];
#endif
  const ulong total = group_xor(acc, scratch);
  if (get_local_id(0) == 0) partials[get_group_id(0)] = total;
}

__kernel void read_final(__global const ulong *restrict partials,
                         const uint count, __global ulong *restrict x,
                         __local ulong *scratch) {
  ulong acc = 0;
  for (size_t i = get_local_id(0); i < count; i += get_local_size(0))
    acc ^= partials[i];
  const ulong total = group_xor(acc, scratch);
  if (get_local_id(0) == 0) x[0] = total;
}
