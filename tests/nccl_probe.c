/* nccl_probe: what NCCL itself reaches between this host's GPUs, one rank
 * per GPU under mpirun, the yardstick of the distributed rungs' exchange
 * phases (issue 37):
 *   - ncclAllReduce (f64 sum) bus bandwidth at 2 MiB to 256 MiB, as
 *     nccl-tests defines it: bytes / time * 2 (P - 1) / P; and the time of
 *     one double's (cg-dist's dot products), back to back and waited for;
 *   - a face exchange as laplacian-dist's cuda-nccl rung makes it: each
 *     rank an ncclSend and an ncclRecv of BYTES with each neighbour of a
 *     chain of ranks, in one group; its bandwidth is BYTES each way over
 *     the exchange's time: back to back on the stream (events), and each
 *     started together by a barrier and waited for (the host's clock, as
 *     a rung's phase counts it); then so again with a pause before each:
 *     a 1 GiB host-to-device copy (the harness restores laplacian's u so
 *     between repetitions) or 100 ms idle, which tells a cost of the
 *     exchange after such a pause from the rung's own;
 *   - the exchange against the all-reduce's bus bandwidth at the face's
 *     size (issue 37 asks 0.7 or more): a face's bandwidth, and a GPU's,
 *     the busiest rank's faces (two where there are three ranks or more)
 *     over the exchange's time, as nccl-tests' bus bandwidth is a GPU's.
 * Each figure the median of 50 timed runs after 10 of warm-up, timed with
 * events on the rank's stream, the slowest rank's (an MPI max). Every call
 * checked: an error names the call, file and line, and aborts the job.
 * Usage: mpirun -np P nccl_probe [FACE_BYTES]   (default 2 MiB: a 512^2
 * f64 face). Output: one line per figure, rank 0's. */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAIL_AT(what, text)                                                    \
  do {                                                                         \
    fprintf(stderr, "nccl_probe: %s failed at %s:%d: %s\n", what, __FILE__,    \
            __LINE__, text);                                                   \
    MPI_Abort(MPI_COMM_WORLD, 1);                                              \
  } while (0)
#define CUDA(call)                                                             \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) FAIL_AT(#call, cudaGetErrorString(e_));             \
  } while (0)
#define NCCL(call)                                                             \
  do {                                                                         \
    ncclResult_t e_ = (call);                                                  \
    if (e_ != ncclSuccess) FAIL_AT(#call, ncclGetErrorString(e_));             \
  } while (0)
#define MPI(call)                                                              \
  do {                                                                         \
    if ((call) != MPI_SUCCESS) FAIL_AT(#call, "MPI error");                    \
  } while (0)

enum { WARMUP = 10, TIMED = 50 };
#define BIG ((size_t)1 << 30)

static int by_value(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

typedef struct probe {
  int rank, ranks;
  int pause;      /* before each waited run: 0 none, 1 the copy, 2 idle */
  void *big_host; /* the copy's source (pageable) and target, 1 GiB */
  void *big_dev;
  ncclComm_t comm;
  cudaStream_t stream;
  cudaEvent_t start[TIMED], stop[TIMED];
} probe;

/* One operation, queued on the probe's stream. */
typedef void (*op_fn)(probe *pr, void *a, void *b, size_t bytes);

static void all_reduce(probe *pr, void *a, void *b, size_t bytes) {
  NCCL(ncclAllReduce(a, b, bytes / sizeof(double), ncclDouble, ncclSum,
                     pr->comm, pr->stream));
}

/* A chain of ranks: r exchanges with r - 1 and r + 1 where they exist
 * (laplacian-dist's split along one axis). */
static void exchange(probe *pr, void *a, void *b, size_t bytes) {
  char *send = a, *recv = b;
  NCCL(ncclGroupStart());
  if (pr->rank > 0) {
    NCCL(ncclSend(send, bytes, ncclChar, pr->rank - 1, pr->comm, pr->stream));
    NCCL(ncclRecv(recv, bytes, ncclChar, pr->rank - 1, pr->comm, pr->stream));
  }
  if (pr->rank + 1 < pr->ranks) {
    NCCL(ncclSend(send + bytes, bytes, ncclChar, pr->rank + 1, pr->comm,
                  pr->stream));
    NCCL(ncclRecv(recv + bytes, bytes, ncclChar, pr->rank + 1, pr->comm,
                  pr->stream));
  }
  NCCL(ncclGroupEnd());
}

/* The slowest rank's median of op's time by the host's clock, each run
 * started together (a barrier) and waited for, as a rung's phase times
 * it: the launches and the wait counted with the work. */
static double waited_seconds(probe *pr, op_fn op, void *a, void *b,
                             size_t bytes) {
  double t[TIMED];
  for (int i = -WARMUP; i < TIMED; i++) {
    if (pr->pause == 1) {
      CUDA(cudaMemcpy(pr->big_dev, pr->big_host, BIG, cudaMemcpyHostToDevice));
      CUDA(cudaDeviceSynchronize());
    } else if (pr->pause == 2) {
      const struct timespec idle = {0, 100000000};
      nanosleep(&idle, NULL);
    }
    MPI(MPI_Barrier(MPI_COMM_WORLD));
    const double t0 = MPI_Wtime();
    op(pr, a, b, bytes);
    CUDA(cudaStreamSynchronize(pr->stream));
    if (i >= 0) t[i] = MPI_Wtime() - t0;
  }
  for (int i = 1; i < TIMED; i++)
    for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
      const double x = t[j];
      t[j] = t[j - 1];
      t[j - 1] = x;
    }
  double mid = 0.5 * (t[TIMED / 2 - 1] + t[TIMED / 2]), worst = 0;
  MPI(MPI_Allreduce(&mid, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return worst;
}

/* The slowest rank's median time of op in seconds. */
static double median_seconds(probe *pr, op_fn op, void *a, void *b,
                             size_t bytes) {
  for (int i = 0; i < WARMUP; i++) op(pr, a, b, bytes);
  CUDA(cudaStreamSynchronize(pr->stream));
  MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < TIMED; i++) {
    CUDA(cudaEventRecord(pr->start[i], pr->stream));
    op(pr, a, b, bytes);
    CUDA(cudaEventRecord(pr->stop[i], pr->stream));
  }
  CUDA(cudaStreamSynchronize(pr->stream));
  float ms[TIMED];
  for (int i = 0; i < TIMED; i++)
    CUDA(cudaEventElapsedTime(&ms[i], pr->start[i], pr->stop[i]));
  qsort(ms, TIMED, sizeof ms[0], by_value);
  double t = 1e-3 * 0.5 * (ms[TIMED / 2 - 1] + ms[TIMED / 2]), worst = 0;
  MPI(MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return worst;
}

int main(int argc, char **argv) {
  /* NVLink multicast stays off, as the library keeps it. */
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  MPI(MPI_Init(&argc, &argv));
  probe pr;
  memset(&pr, 0, sizeof pr);
  MPI(MPI_Comm_rank(MPI_COMM_WORLD, &pr.rank));
  MPI(MPI_Comm_size(MPI_COMM_WORLD, &pr.ranks));
  size_t face = 2u << 20;
  if (argc > 1) {
    char *end = NULL;
    const long long v = strtoll(argv[1], &end, 10);
    if (!end || *end || v < 8 || v % 8) {
      if (pr.rank == 0)
        fprintf(stderr, "nccl_probe: FACE_BYTES must be a multiple of 8, "
                        "at least 8: '%s'\n", argv[1]);
      MPI_Finalize();
      return 2;
    }
    face = (size_t)v;
  }
  /* One GPU per rank of this host: the local rank's. */
  MPI_Comm local;
  int local_rank = 0, devices = 0;
  MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                          MPI_INFO_NULL, &local));
  MPI(MPI_Comm_rank(local, &local_rank));
  CUDA(cudaGetDeviceCount(&devices));
  if (devices < 1) FAIL_AT("cudaGetDeviceCount", "no GPU");
  CUDA(cudaSetDevice(local_rank % devices));
  ncclUniqueId id;
  if (pr.rank == 0) NCCL(ncclGetUniqueId(&id));
  MPI(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD));
  NCCL(ncclCommInitRank(&pr.comm, pr.ranks, id, pr.rank));
  CUDA(cudaStreamCreateWithFlags(&pr.stream, cudaStreamNonBlocking));
  for (int i = 0; i < TIMED; i++) {
    CUDA(cudaEventCreate(&pr.start[i]));
    CUDA(cudaEventCreate(&pr.stop[i]));
  }
  const size_t most = (size_t)256 << 20;
  void *a = NULL, *b = NULL;
  CUDA(cudaMalloc(&a, most > 2 * face ? most : 2 * face));
  CUDA(cudaMalloc(&b, most > 2 * face ? most : 2 * face));
  CUDA(cudaMemset(a, 0, most > 2 * face ? most : 2 * face));
  if (pr.rank == 0)
    printf("nccl_probe: %d ranks, NCCL %d, a GPU each "
           "(median of %d after %d warm-up, slowest rank)\n",
           pr.ranks, NCCL_VERSION_CODE, TIMED, WARMUP);
  const size_t sizes[] = {face, (size_t)8 << 20, (size_t)64 << 20, most};
  double bus_at_face = 0; /* the all-reduce's bus bandwidth, face-sized */
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    const double t = median_seconds(&pr, all_reduce, a, b, sizes[s]);
    const double algbw = sizes[s] / t;
    const double busbw = algbw * 2.0 * (pr.ranks - 1) / pr.ranks;
    if (s == 0) bus_at_face = busbw;
    if (pr.rank == 0)
      printf("allreduce %10zu bytes %9.2f us  algbw %7.2f GB/s  busbw "
             "%7.2f GB/s\n",
             sizes[s], t * 1e6, algbw * 1e-9, busbw * 1e-9);
  }
  /* One double: the latency that cg-dist's NCCL rungs pay twice an
   * iteration (its two dot products), back to back on the stream and as
   * a rung's phase times it. */
  const double one = median_seconds(&pr, all_reduce, a, b, 8);
  const double one_waited = waited_seconds(&pr, all_reduce, a, b, 8);
  if (pr.rank == 0)
    printf("allreduce %10d bytes %9.2f us back to back, %.2f us started "
           "together and waited for (the host's clock)\n",
           8, one * 1e6, one_waited * 1e6);
  const double t = median_seconds(&pr, exchange, a, b, face);
  if (pr.rank == 0)
    printf("exchange  %10zu bytes %9.2f us  %7.2f GB/s each way per face\n",
           face, t * 1e6, face / t * 1e-9);
  /* Issue 37's figure against the all-reduce of the same size: a face's
   * bandwidth, and a GPU's (the busiest rank's faces, two in a chain of
   * three or more, over the same time), as the bus bandwidth is a GPU's. */
  const int faces = pr.ranks > 2 ? 2 : 1;
  if (pr.rank == 0 && bus_at_face > 0)
    printf("exchange against the all-reduce at %zu bytes: a face %.2fx, "
           "a GPU's %d face%s %.2fx its bus bandwidth\n",
           face, face / t / bus_at_face, faces, faces > 1 ? "s" : "",
           faces * face / t / bus_at_face);
  const double w = waited_seconds(&pr, exchange, a, b, face);
  if (pr.rank == 0)
    printf("exchange  %10zu bytes %9.2f us  %7.2f GB/s each way, each one "
           "started together and waited for (the host's clock)\n",
           face, w * 1e6, face / w * 1e-9);
  pr.big_host = malloc(BIG);
  if (!pr.big_host) FAIL_AT("malloc", "no 1 GiB of host memory");
  memset(pr.big_host, 0, BIG);
  CUDA(cudaMalloc(&pr.big_dev, BIG));
  static const char *pauses[] = {"", "a 1 GiB host-to-device copy",
                                 "100 ms idle"};
  for (pr.pause = 1; pr.pause <= 2; pr.pause++) {
    const double p = waited_seconds(&pr, exchange, a, b, face);
    if (pr.rank == 0)
      printf("exchange  %10zu bytes %9.2f us  %7.2f GB/s each way, each one "
             "after %s, started together and waited for\n",
             face, p * 1e6, face / p * 1e-9, pauses[pr.pause]);
  }
  CUDA(cudaFree(pr.big_dev));
  free(pr.big_host);
  for (int i = 0; i < TIMED; i++) {
    CUDA(cudaEventDestroy(pr.start[i]));
    CUDA(cudaEventDestroy(pr.stop[i]));
  }
  CUDA(cudaFree(a));
  CUDA(cudaFree(b));
  CUDA(cudaStreamDestroy(pr.stream));
  NCCL(ncclCommDestroy(pr.comm));
  MPI(MPI_Comm_free(&local));
  MPI(MPI_Finalize());
  return 0;
}
