/* cg's OpenCL rungs: the seed's three kernels (cg.cl) in the host solve's
 * loop (kl__cg_host_reps), each dot read back by the host, as the seed's
 * first GPU port does (cuda-resident's lesson); then opencl-fused, whose
 * SpMV sums p.Ap's partials and whose update of x and r sums r.r's, the
 * host adding the groups' partials (cuda-fused's three kernels an
 * iteration); opencl-stream and opencl-sell, that iteration with the
 * SpMV streamed or on the sliced matrix. Kernels are made once in
 * the setup; an enqueue that fails is kept in the solve's `failed`. Where
 * the solve keeps phases (the harness's timed runs) each matvec and
 * waxpby is waited for, so that its time is its own phase's and not the
 * next dot's, which waits anyway. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../backends/opencl.h"
#include "cg-host.h"
#include "cg.h"
#include "cl-sources.h"

#define MOST_GROUPS 1024

/* The kernels' slots; opencl-fused keeps its two fused kernels where
 * opencl keeps its matvec and the dot's final pass. */
enum { K_MATVEC, K_WAXPBY, K_PARTIALS, K_FINAL };
enum { K_MATVEC_DOT = K_MATVEC, K_UPDATE_DOT = K_FINAL };

/* opencl-stream's group, and its chunk of nonzeros staged in local
 * memory: 16 KiB, as cuda-csr-stream's (its lesson), so that 8 groups
 * share a GPU's multiprocessor. */
#define STREAM_GROUP 256
#define STREAM_CHUNK 2048

/* cg.cl's options, the same for every rung (one program). */
static kl_status options_of(const kl_args *a, char *options, size_t size) {
  kl_status st = kl__cl_type_options(a, KL_F64, options, size);
  snprintf(options + strlen(options), size - strlen(options),
           "%s -DSTREAM_CHUNK=%d -DSELL_HEIGHT=%d", kl__cl_stride_option(a),
           STREAM_CHUNK, CG_SELL_HEIGHT);
  return st;
}

/* A rung's four kernels of cg.cl, built once, into the slots above. */
static kl_status setup(kl_args *a, const char *const names[4]) {
  char options[160];
  kl_status st = options_of(a, options, sizeof options);
  for (int i = 0; i < 4 && st == KL_OK; i++)
    st = kl__cl_rung_kernel(a, kl__cl_source_cg, 0, options, names[i], i);
  return st;
}

kl_status kl__cg_cl_setup(kl_args *a) {
  static const char *const names[] = {"cg_matvec", "cg_waxpby",
                                      "cg_dot_partials", "cg_dot_final"};
  return setup(a, names);
}

/* r, p, Ap, and the partials of up to `groups` groups (one more: the
 * sum). */
static kl_status vectors_and_partials(kl_plan *p, int64_t groups) {
  kl_status st = kl__cg_host_scratch(p);
  if (st == KL_OK)
    st = kl__plan_scratch(p, CG_PARTIALS, "partials", KL_F64, groups + 1,
                          KL_MEM_DEVICE, 0);
  return st;
}

kl_status kl__cg_cl_scratch(kl_plan *p) {
  return vectors_and_partials(p, MOST_GROUPS);
}

static void keep(kl__cg_host *h, kl_status st) {
  if (h->failed == KL_OK) h->failed = st;
}

#define ENQUEUE(h, call)                                                      \
  do {                                                                        \
    const cl_int e_ = (call);                                                 \
    if (e_ != CL_SUCCESS)                                                     \
      keep((h), KL_FAIL(KL_DEVICE, "%s failed: %s", #call,                    \
                        kl__cl_error(e_)));                                   \
  } while (0)

/* A matvec kernel's arguments 0 to 5 (cg_matvec, cg_matvec_dot): the
 * matrix's three arrays, v, out and the rows. */
static void matrix_args(kl__cg_host *h, cl_kernel k, const double *v,
                        double *out) {
  const cl_mem offsets = (cl_mem)(void *)h->matrix.offsets,
               columns = (cl_mem)(void *)h->matrix.columns,
               values = (cl_mem)(void *)h->matrix.values,
               in = (cl_mem)(void *)v, o = (cl_mem)out;
  const cl_ulong rows = (cl_ulong)h->matrix.rows;
  ENQUEUE(h, kl__cl.SetKernelArg(k, 0, sizeof offsets, &offsets));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 1, sizeof columns, &columns));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 2, sizeof values, &values));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 3, sizeof in, &in));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 4, sizeof o, &o));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 5, sizeof rows, &rows));
}

static void matvec(const kl__cg_host *hc, const double *v, double *out) {
  kl__cg_host *h = (kl__cg_host *)hc;
  const kl_args *a = h->args;
  cl_kernel k = a->state.pointer[K_MATVEC];
  matrix_args(h, k, v, out);
  keep(h, kl__cl_launch(a, k, (size_t)h->matrix.rows, kl__cl_group(a)));
  if (h->phases) ENQUEUE(h, kl__cl.Finish(kl__cl_queue(a)));
}

static void waxpby(const kl__cg_host *hc, double alpha, const double *x,
                   double beta, const double *y, double *w) {
  kl__cg_host *h = (kl__cg_host *)hc;
  const kl_args *a = h->args;
  cl_kernel k = a->state.pointer[K_WAXPBY];
  const cl_mem xm = (cl_mem)(void *)x, ym = (cl_mem)(void *)y,
               wm = (cl_mem)w;
  const cl_ulong n = (cl_ulong)h->matrix.rows;
  ENQUEUE(h, kl__cl.SetKernelArg(k, 0, sizeof alpha, &alpha));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 1, sizeof xm, &xm));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 2, sizeof beta, &beta));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 3, sizeof ym, &ym));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 4, sizeof wm, &wm));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 5, sizeof n, &n));
  keep(h, kl__cl_launch(a, k, (size_t)n, kl__cl_group(a)));
  if (h->phases) ENQUEUE(h, kl__cl.Finish(kl__cl_queue(a)));
}

/* cg_dot_partials: each group's part of x.y into the partials, in the
 * stride shape; its groups, and its group size in *local. */
static size_t launch_partials(kl__cg_host *h, const double *x,
                              const double *y, size_t *local) {
  const kl_args *a = h->args;
  cl_kernel k = a->state.pointer[K_PARTIALS];
  size_t groups;
  kl__cl_stride_shape(a, h->matrix.rows, MOST_GROUPS, local, &groups);
  const cl_mem xm = (cl_mem)(void *)x, ym = (cl_mem)(void *)y,
               partials = a->buffers[CG_PARTIALS];
  const cl_ulong n = (cl_ulong)h->matrix.rows;
  ENQUEUE(h, kl__cl.SetKernelArg(k, 0, sizeof xm, &xm));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 1, sizeof ym, &ym));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 2, sizeof n, &n));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 3, sizeof partials, &partials));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 4, sizeof(double) * *local, NULL));
  keep(h, kl__cl_launch(a, k, groups * *local, *local));
  return groups;
}

/* x.y: the partials, then cg_dot_final sums them on the device. */
static double dot(const kl__cg_host *hc, const double *x, const double *y) {
  kl__cg_host *h = (kl__cg_host *)hc;
  const kl_args *a = h->args;
  cl_kernel final = a->state.pointer[K_FINAL];
  size_t local;
  const size_t groups = launch_partials(h, x, y, &local);
  const cl_mem partials = a->buffers[CG_PARTIALS];
  const cl_uint count = (cl_uint)groups;
  ENQUEUE(h, kl__cl.SetKernelArg(final, 0, sizeof partials, &partials));
  ENQUEUE(h, kl__cl.SetKernelArg(final, 1, sizeof count, &count));
  ENQUEUE(h, kl__cl.SetKernelArg(final, 2, sizeof(double) * local, NULL));
  keep(h, kl__cl_launch(a, final, local, local));
  double sum = 0;
  ENQUEUE(h, kl__cl.EnqueueReadBuffer(kl__cl_queue(a), partials, CL_TRUE,
                                      sizeof(double) * groups, sizeof sum,
                                      &sum, 0, NULL, NULL));
  return sum;
}

kl_status kl__cg_cl(const kl_args *a, kl_reps *reps) {
  static const kl__cg_kernels k = {matvec, waxpby, dot, NULL, NULL, NULL, NULL};
  return kl__cg_host_reps(a, reps, 0, &k);
}

/* ---- opencl-fused -------------------------------------------------------- */

kl_status kl__cg_cl_fused_setup(kl_args *a) {
  static const char *const names[] = {"cg_matvec_dot", "cg_waxpby",
                                      "cg_dot_partials", "cg_update_dot"};
  return setup(a, names);
}

/* The sum of the groups' partials, read back and added in their order
 * (the same every run): up to MOST_GROUPS of them into the stack, more
 * (opencl-sell's SpMV) into the rung's CG_READ_BACK. */
static double group_total(kl__cg_host *h, size_t groups) {
  const kl_args *a = h->args;
  double stack[MOST_GROUPS], sum = 0;
  double *partials = groups <= MOST_GROUPS ? stack : a->buffers[CG_READ_BACK];
  ENQUEUE(h, kl__cl.EnqueueReadBuffer(kl__cl_queue(a), a->buffers[CG_PARTIALS],
                                      CL_TRUE, 0, sizeof(double) * groups,
                                      partials, 0, NULL, NULL));
  if (h->failed != KL_OK) return 0;
  for (size_t g = 0; g < groups; g++) sum += partials[g];
  return sum;
}

/* The SpMV kernels with p.Ap: a row an item (opencl-fused), streamed
 * (opencl-stream), on the sliced matrix (opencl-sell). */
enum { SPMV_ROWS, SPMV_STREAM, SPMV_SELL };

/* cg_sell_dot's arguments 0 to 5: the sliced matrix's three arrays, v,
 * out and the rows. */
static void sliced_args(kl__cg_host *h, cl_kernel k, const double *v,
                        double *out) {
  void *const *b = h->args->buffers;
  const cl_mem offsets = (cl_mem)b[CG_SELL_OFFSETS],
               columns = (cl_mem)b[CG_SELL_COLUMNS],
               values = (cl_mem)b[CG_SELL_VALUES], in = (cl_mem)(void *)v,
               o = (cl_mem)out;
  const cl_ulong rows = (cl_ulong)h->matrix.rows;
  ENQUEUE(h, kl__cl.SetKernelArg(k, 0, sizeof offsets, &offsets));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 1, sizeof columns, &columns));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 2, sizeof values, &values));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 3, sizeof in, &in));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 4, sizeof o, &o));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 5, sizeof rows, &rows));
}

/* out = A v and each group's part of v.out: cg_matvec_dot in the stride
 * shape; cg_stream_dot in groups of STREAM_GROUP items on every device
 * (on a CPU too, where the staging makes it slower than opencl-fused's
 * rows but the kernel is the one a GPU runs), as many groups as the
 * stride shape has (8 a compute unit on a GPU), no more than the rows
 * fill; or cg_sell_dot, each group a run of whole tiles of rows: on a
 * GPU as cuda-sell's blocks take them (cg_sell_blocks: up to
 * CG_TILE_BLOCKS groups, each once, where the stride shape's 1024
 * long-lived groups ran 3-4 points slower, LESSONS.md), on a CPU in the
 * stride shape (an item a group: a run of rows). */
static size_t launch_matvec_dot(kl__cg_host *h, const double *v, double *out,
                                int form) {
  const kl_args *a = h->args;
  cl_kernel k = a->state.pointer[K_MATVEC_DOT];
  size_t local, groups;
  kl__cl_stride_shape(a, h->matrix.rows, MOST_GROUPS, &local, &groups);
  if (form == SPMV_SELL && !kl__cl_on_cpu(a))
    groups = (size_t)cg_sell_blocks(h->matrix.rows, CG_NNZ(a->plan),
                                    (int)local);
  if (form == SPMV_STREAM) {
    local = STREAM_GROUP;
    const size_t need = ((size_t)h->matrix.rows + local - 1) / local;
    if (groups > need) groups = need > 0 ? need : 1;
  }
  const cl_mem partials = a->buffers[CG_PARTIALS];
  if (form == SPMV_SELL)
    sliced_args(h, k, v, out);
  else
    matrix_args(h, k, v, out);
  ENQUEUE(h, kl__cl.SetKernelArg(k, 6, sizeof partials, &partials));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 7, sizeof(double) * local, NULL));
  if (form == SPMV_STREAM)
    ENQUEUE(h, kl__cl.SetKernelArg(k, 8, sizeof(double) * STREAM_CHUNK, NULL));
  keep(h, kl__cl_launch(a, k, groups * local, local));
  return groups;
}

/* The start's r = b - A x: the SpMV, its partials left unread. */
static void product(kl__cg_host *h, const double *v, double *out, int form) {
  (void)launch_matvec_dot(h, v, out, form);
  if (h->phases) ENQUEUE(h, kl__cl.Finish(kl__cl_queue(h->args)));
}

static void fused_matvec(const kl__cg_host *hc, const double *v,
                         double *out) {
  product((kl__cg_host *)hc, v, out, SPMV_ROWS);
}

/* The start's r.r and b.b: cg_dot_partials, the host adding them. */
static double fused_dot(const kl__cg_host *hc, const double *x,
                        const double *y) {
  kl__cg_host *h = (kl__cg_host *)hc;
  size_t local;
  return group_total(h, launch_partials(h, x, y, &local));
}

/* Ap = A p and p.Ap: one kernel and one read. */
static double matvec_dot(const kl__cg_host *hc, const double *v,
                         double *out) {
  kl__cg_host *h = (kl__cg_host *)hc;
  return group_total(h, launch_matvec_dot(h, v, out, SPMV_ROWS));
}

/* x += alpha p, r -= alpha Ap and the new r.r: one kernel and one read. */
static double update(const kl__cg_host *hc, double alpha, double *x,
                     double *r, const double *p, const double *ap) {
  kl__cg_host *h = (kl__cg_host *)hc;
  const kl_args *a = h->args;
  cl_kernel k = a->state.pointer[K_UPDATE_DOT];
  size_t local, groups;
  kl__cl_stride_shape(a, h->matrix.rows, MOST_GROUPS, &local, &groups);
  const cl_mem xm = (cl_mem)x, rm = (cl_mem)r, pm = (cl_mem)(void *)p,
               apm = (cl_mem)(void *)ap, partials = a->buffers[CG_PARTIALS];
  const cl_ulong n = (cl_ulong)h->matrix.rows;
  ENQUEUE(h, kl__cl.SetKernelArg(k, 0, sizeof alpha, &alpha));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 1, sizeof xm, &xm));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 2, sizeof rm, &rm));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 3, sizeof pm, &pm));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 4, sizeof apm, &apm));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 5, sizeof n, &n));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 6, sizeof partials, &partials));
  ENQUEUE(h, kl__cl.SetKernelArg(k, 7, sizeof(double) * local, NULL));
  keep(h, kl__cl_launch(a, k, groups * local, local));
  return group_total(h, groups);
}

/* The iteration: the fused SpMV, the fused update, and p = r + beta p
 * (opencl's waxpby): three kernels and two reads, against opencl's eight
 * kernels. */
kl_status kl__cg_cl_fused(const kl_args *a, kl_reps *reps) {
  static const kl__cg_kernels k = {fused_matvec, waxpby,     fused_dot,
                                   NULL,         NULL,       matvec_dot,
                                   update};
  return kl__cg_host_reps(a, reps, 0, &k);
}

/* ---- opencl-stream ------------------------------------------------------- */

kl_status kl__cg_cl_stream_setup(kl_args *a) {
  static const char *const names[] = {"cg_stream_dot", "cg_waxpby",
                                      "cg_dot_partials", "cg_update_dot"};
  return setup(a, names);
}

/* The start's r = b - A x, and Ap = A p with p.Ap, by cg_stream_dot. */
static void stream_matvec(const kl__cg_host *hc, const double *v,
                          double *out) {
  product((kl__cg_host *)hc, v, out, SPMV_STREAM);
}
static double stream_matvec_dot(const kl__cg_host *hc, const double *v,
                                double *out) {
  kl__cg_host *h = (kl__cg_host *)hc;
  return group_total(h, launch_matvec_dot(h, v, out, SPMV_STREAM));
}

/* opencl-fused's iteration with the streamed SpMV. */
kl_status kl__cg_cl_stream(const kl_args *a, kl_reps *reps) {
  static const kl__cg_kernels k = {stream_matvec, waxpby,   fused_dot,
                                   NULL,          NULL,     stream_matvec_dot,
                                   update};
  return kl__cg_host_reps(a, reps, 0, &k);
}

/* ---- opencl-sell --------------------------------------------------------- */

/* r, p, Ap, the partials of up to CG_TILE_BLOCKS groups (one more: the
 * sum) and their host copy, and the sliced matrix. */
kl_status kl__cg_cl_sell_scratch(kl_plan *p) {
  kl_status st = vectors_and_partials(p, CG_TILE_BLOCKS);
  if (st == KL_OK)
    st = kl__plan_scratch(p, CG_READ_BACK, "partials read back", KL_F64,
                          CG_TILE_BLOCKS, KL_MEM_PAGEABLE, 0);
  return st == KL_OK ? kl__cg_sell_scratch(p) : st;
}

/* The slice offsets from the widths cg_sell_width put at offsets[0 ..
 * slices - 1]: their running totals, summed on the host (2 MB at 201^3,
 * once a problem), into offsets[0 .. slices]; the entries they hold in
 * *entries. */
static kl_status slice_offsets(const kl_args *a, cl_mem offsets,
                               int64_t slices, int64_t *entries) {
  int64_t *o = malloc(sizeof *o * (size_t)(slices + 1));
  if (!o) return KL_FAIL(KL_NO_MEMORY, "cg: opencl-sell: out of host memory "
                         "for %lld slice offsets", (long long)slices + 1);
  cl_int e = kl__cl.EnqueueReadBuffer(kl__cl_queue(a), offsets, CL_TRUE, 0,
                                      sizeof *o * (size_t)slices, o + 1, 0,
                                      NULL, NULL);
  o[0] = 0;
  for (int64_t s = 0; s < slices; s++) o[s + 1] += o[s];
  if (e == CL_SUCCESS)
    e = kl__cl.EnqueueWriteBuffer(kl__cl_queue(a), offsets, CL_TRUE, 0,
                                  sizeof *o * (size_t)(slices + 1), o, 0,
                                  NULL, NULL);
  *entries = o[slices];
  free(o);
  if (e != CL_SUCCESS)
    return KL_FAIL(KL_DEVICE, "cg: opencl-sell: the slice offsets' copy "
                   "failed: %s", kl__cl_error(e));
  return KL_OK;
}

/* The sliced matrix from the CSR, once a problem, as cuda-sell's setup
 * makes it: the slices' widths (cg_sell_width), their offsets
 * (slice_offsets), then every row's entries (cg_sell_fill). A matrix
 * whose slices need more room than the scratch has (kl__cg_sell_room:
 * too much padding) is not this rung's (KL_UNAVAILABLE). Then the
 * solve's kernels. */
static kl_status sell_make(kl_args *a) {
  const kl_plan *p = a->plan;
  const cl_ulong rows = (cl_ulong)CG_ROWS(p);
  const int64_t slices = CG_SELL_SLICES(CG_ROWS(p));
  const int64_t room = p->buffers[CG_SELL_VALUES].count;
  const cl_mem offsets = a->buffers[CG_OFFSETS],
               columns = a->buffers[CG_COLUMNS],
               values = a->buffers[CG_VALUES],
               sliced_offsets = a->buffers[CG_SELL_OFFSETS],
               sliced_columns = a->buffers[CG_SELL_COLUMNS],
               sliced_values = a->buffers[CG_SELL_VALUES];
  char options[160];
  kl_status st = options_of(a, options, sizeof options);
  if (st == KL_OK)
    st = kl__cl_rung_kernel(a, kl__cl_source_cg, 0, options, "cg_sell_width",
                            0);
  if (st == KL_OK)
    st = kl__cl_rung_kernel(a, kl__cl_source_cg, 0, options, "cg_sell_fill",
                            1);
  if (st != KL_OK) return st;
  cl_kernel width = a->state.pointer[0], fill = a->state.pointer[1];
  KL_CL_ARG(width, 0, offsets);
  KL_CL_ARG(width, 1, rows);
  KL_CL_ARG(width, 2, sliced_offsets);
  int64_t entries = 0;
  st = kl__cl_launch(a, width, (size_t)slices, kl__cl_group(a));
  if (st == KL_OK) st = slice_offsets(a, sliced_offsets, slices, &entries);
  if (st != KL_OK) return st;
  if (entries > room)
    return kl__usage(KL_UNAVAILABLE, "cg: opencl-sell: the matrix's slices "
                     "of %d rows hold %lld entries with their padding, "
                     "more than the %lld that keep them within 1/%d of its "
                     "CSR's bytes", CG_SELL_HEIGHT, (long long)entries,
                     (long long)room, CG_SELL_SLACK);
  KL_CL_ARG(fill, 0, offsets);
  KL_CL_ARG(fill, 1, columns);
  KL_CL_ARG(fill, 2, values);
  KL_CL_ARG(fill, 3, rows);
  KL_CL_ARG(fill, 4, sliced_offsets);
  KL_CL_ARG(fill, 5, sliced_columns);
  KL_CL_ARG(fill, 6, sliced_values);
  st = kl__cl_launch(a, fill, (size_t)rows, kl__cl_group(a));
  if (st != KL_OK) return st;
  KL_CL_CHECK(kl__cl.Finish(kl__cl_queue(a)));
  return KL_OK;
}

kl_status kl__cg_cl_sell_setup(kl_args *a) {
  static const char *const names[] = {"cg_sell_dot", "cg_waxpby",
                                      "cg_dot_partials", "cg_update_dot"};
  const kl_status st = sell_make(a);
  kl__cl_teardown(a); /* the setup's kernels; the solve's follow */
  return st == KL_OK ? setup(a, names) : st;
}

/* The start's r = b - A x, and Ap = A p with p.Ap, by cg_sell_dot. */
static void sell_matvec(const kl__cg_host *hc, const double *v,
                        double *out) {
  product((kl__cg_host *)hc, v, out, SPMV_SELL);
}
static double sell_matvec_dot(const kl__cg_host *hc, const double *v,
                              double *out) {
  kl__cg_host *h = (kl__cg_host *)hc;
  return group_total(h, launch_matvec_dot(h, v, out, SPMV_SELL));
}

/* opencl-fused's iteration with the sliced SpMV. */
kl_status kl__cg_cl_sell(const kl_args *a, kl_reps *reps) {
  static const kl__cg_kernels k = {sell_matvec, waxpby,   fused_dot,
                                   NULL,        NULL,     sell_matvec_dot,
                                   update};
  return kl__cg_host_reps(a, reps, 0, &k);
}
