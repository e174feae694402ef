/* serial_sum: what issue 29 measured, through libkladder.so: a program
 * that sums four doubles with kl_reduce on a serial context. It must get
 * 10 and load no GPU library: neither the GPU module nor a CUDA or ROCm
 * runtime is among the objects of the process afterwards. tests/cli/module.sh
 * runs it under maxrss. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "kladder-reduce.h"
#include "kladder-run.h"

static int loaded_gpu(struct dl_phdr_info *info, size_t size, void *data) {
  static const char *const gpu[] = {"libkladder-cuda", "libkladder-hip",
                                    "libcudart", "libcublas", "libamdhip64"};
  (void)size;
  for (size_t i = 0; i < sizeof gpu / sizeof *gpu; i++)
    if (info->dlpi_name && strstr(info->dlpi_name, gpu[i])) {
      printf("FAIL: %s is loaded\n", info->dlpi_name);
      ++*(int *)data;
    }
  return 0;
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, sum = 0;
  kl_context *ctx = NULL;
  if (kl_context_open("serial", &ctx) != KL_OK ||
      kl_reduce(ctx, "sum", KL_F64, x, 4, 0, &sum) != KL_OK) {
    printf("FAIL: %s\n", kl_last_error());
    return 1;
  }
  kl_context_close(ctx);
  int gpu = 0;
  dl_iterate_phdr(loaded_gpu, &gpu);
  printf("serial sum of 1, 2, 3, 4: %g; %d GPU libraries loaded\n", sum, gpu);
  return sum != 10 || gpu != 0;
}
