/* The launch log's test program (launch_log.sh): what nvcc's code does
 * with the CUDA runtime, against fake_cudart.c. Three kernels registered
 * (two functions of one name and other parameters among them), each
 * launched in the ways a program launches: a <<<>>> stub's handle, the
 * stub through cudaLaunchKernel and cudaLaunchKernelEx, in two cases
 * named through kl_launch_log_case; and a launch of a function that no
 * module registered. */
#include <stddef.h>
#include <stdio.h>

#include "launch_log_case.h"

typedef struct probe_dim3 {
  unsigned x, y, z;
} probe_dim3;

typedef struct probe_config {
  probe_dim3 grid, block;
  size_t shared;
  void *stream;
  void *attrs;
  unsigned count;
} probe_config;

void __cudaRegisterFunction(void **handle, const char *host_fun,
                            char *device_fun, const char *device_name,
                            int thread_limit, void *tid, void *bid,
                            probe_dim3 *block, probe_dim3 *grid,
                            int *warp_size);
int __cudaGetKernel(void **kernel, const void *host_fun);
int __cudaLaunchKernel(void *kernel, probe_dim3 grid, probe_dim3 block,
                       void **args, size_t shared, void *stream);
int cudaLaunchKernel(const void *func, probe_dim3 grid, probe_dim3 block,
                     void **args, size_t shared, void *stream);
int cudaLaunchKernelExC(const probe_config *config, const void *func,
                        void **args);

/* The host stubs: only their addresses matter. */
static char stubs[4];

static const char *const mangled[3] = {
    "_Z11copy_kernelIfEvPKT_S2_PS0_S0_l",
    "_Z13shared_kernelIdLi16EEv14kl__gemm_shapePKT_S3_PS1_",
    "_Z13shared_kernelIjLb0EEvPKjliPT_"};

int main(void) {
  void *module = NULL;
  for (int i = 0; i < 3; i++)
    __cudaRegisterFunction(&module, &stubs[i], (char *)mangled[i],
                           mangled[i], -1, NULL, NULL, NULL, NULL, NULL);
  void *copy = NULL;
  if (__cudaGetKernel(&copy, &stubs[0]) != 0) return 1;
  const probe_dim3 one = {1, 1, 1}, block = {256, 1, 1};
  const probe_dim3 wide = {300, 1, 1}, tiles = {12, 13, 2};
  launch_log_case("probe copy f32 - n=1000003");
  for (int i = 0; i < 3; i++)
    __cudaLaunchKernel(copy, wide, block, NULL, 0, NULL);
  __cudaLaunchKernel(copy, one, block, NULL, 0, NULL);
  cudaLaunchKernel(&stubs[1], tiles, block, NULL, 0, NULL);
  launch_log_case("probe shared u8 - n=64");
  const probe_config config = {one, block, 0, NULL, NULL, 0};
  cudaLaunchKernelExC(&config, &stubs[2], NULL);
  cudaLaunchKernel(&stubs[3], one, one, NULL, 0, NULL);
  puts("probe done");
  return 0;
}
