/* test_stream: a GPU context adopts the caller's stream
 * (kl_context_adopt_stream). A pinned host array is copied to the device
 * on the caller's stream and, with no wait, summed by kl_reduce on the
 * context: the sum is the copy's, whole, as the reduce runs after it on
 * that stream (on the context's own stream it would race the copy).
 * Three rounds, each a new value; then the context's own stream back,
 * the context closed, and the caller's stream still the caller's: it
 * answers and is destroyed without error. Exit 77 without a CUDA device. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "expect.h"
#include "kladder-reduce.h"

int main(void) {
  kl_context *ctx = NULL;
  if (kl_context_open("cuda", &ctx) != KL_OK) {
    printf("SKIP: no cuda device here: %s\n", kl_last_error());
    return 77;
  }
  const int64_t n = (int64_t)1 << 24; /* 128 MB: milliseconds to copy */
  const size_t bytes = (size_t)n * sizeof(double);
  double *host = NULL, *dev = NULL;
  cudaStream_t s = NULL;
  EXPECT(cudaMallocHost((void **)&host, bytes) == cudaSuccess);
  EXPECT(cudaMalloc((void **)&dev, bytes) == cudaSuccess);
  EXPECT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  EXPECT(kl_context_adopt_stream(ctx, s) == KL_OK);
  for (int round = 1; host && dev && s && round <= 3; round++) {
    for (int64_t i = 0; i < n; i++) host[i] = round;
    double sum = -1;
    EXPECT(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s) ==
           cudaSuccess);
    EXPECT(kl_reduce(ctx, "sum", KL_F64, dev, n, 1, &sum) == KL_OK);
    printf("round %d: sum %.17g, want %.17g\n", round, sum,
           (double)round * (double)n);
    EXPECT(sum == (double)round * (double)n);
  }
  EXPECT(kl_context_adopt_stream(ctx, NULL) == KL_OK);
  kl_context_close(ctx);
  EXPECT(s && cudaStreamQuery(s) == cudaSuccess);
  EXPECT(s && cudaStreamDestroy(s) == cudaSuccess);
  cudaFree(dev);
  cudaFreeHost(host);
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
