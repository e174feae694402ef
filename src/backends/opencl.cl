/* What every program of the OpenCL backend starts with (opencl.c puts it
 * before each rung's source): doubles where the options ask for them
 * (-DKL_FP64), token pasting, and the elements a work-item goes over. */
#ifdef KL_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* Two tokens pasted after their expansion: KL_CAT(T, 4) is float4 where
 * T is float (a program's vector types from its -DT option). */
#define KL_CAT_(x, y) x##y
#define KL_CAT(x, y) KL_CAT_(x, y)

/* Item i's contiguous run of n elements shared over the whole range:
 * begin .. end - 1 (a CPU's shape, KL_CONTIGUOUS). */
static void kl_run(ulong n, size_t *begin, size_t *end) {
  const size_t run = (n + get_global_size(0) - 1) / get_global_size(0);
  *begin = min((size_t)n, get_global_id(0) * run);
  *end = min((size_t)n, *begin + run);
}

/* The elements an item goes over: strided by the grid (a GPU: adjacent
 * items, adjacent elements), or its contiguous run (KL_CONTIGUOUS). */
#ifdef KL_CONTIGUOUS
#define ITEMS(i, n)                                                           \
  size_t i##_begin, i##_end;                                                  \
  kl_run((n), &i##_begin, &i##_end);                                          \
  for (size_t i = i##_begin; i < i##_end; i++)
#else
#define ITEMS(i, n)                                                           \
  for (size_t i = get_global_id(0); i < (n); i += get_global_size(0))
#endif
