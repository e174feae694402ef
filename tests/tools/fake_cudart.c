/* A stand-in for the CUDA runtime's entry points that the launch log
 * (launch_log.c) interposes, for its test on a machine without a GPU
 * (launch_log_probe.c links it): each does nothing and succeeds;
 * cudaDeviceGetAttribute says 132 SMs. Declared as the runtime declares
 * them, with its types spelled out (no CUDA headers needed). */
#include <stddef.h>

typedef struct fake_dim3 {
  unsigned x, y, z;
} fake_dim3;

typedef struct fake_config {
  fake_dim3 grid, block;
  size_t shared;
  void *stream;
  void *attrs;
  unsigned count;
} fake_config;

void __cudaRegisterFunction(void **handle, const char *host_fun,
                            char *device_fun, const char *device_name,
                            int thread_limit, void *tid, void *bid,
                            fake_dim3 *block, fake_dim3 *grid,
                            int *warp_size) {
  (void)handle, (void)host_fun, (void)device_fun, (void)device_name;
  (void)thread_limit, (void)tid, (void)bid, (void)block, (void)grid;
  (void)warp_size;
}

/* A kernel's handle: an address of the runtime's own, not the stub's,
 * one per stub asked for. */
static const void *asked[64];
static char handles[64];

int __cudaGetKernel(void **kernel, const void *host_fun) {
  int i = 0;
  while (i < 63 && asked[i] && asked[i] != host_fun) i++;
  asked[i] = host_fun;
  *kernel = &handles[i];
  return 0;
}

int __cudaLaunchKernel(void *kernel, fake_dim3 grid, fake_dim3 block,
                       void **args, size_t shared, void *stream) {
  (void)kernel, (void)grid, (void)block, (void)args, (void)shared;
  (void)stream;
  return 0;
}

int cudaLaunchKernel(const void *func, fake_dim3 grid, fake_dim3 block,
                     void **args, size_t shared, void *stream) {
  (void)func, (void)grid, (void)block, (void)args, (void)shared, (void)stream;
  return 0;
}

int cudaLaunchKernelExC(const fake_config *config, const void *func,
                        void **args) {
  (void)config, (void)func, (void)args;
  return 0;
}

int cudaGetDevice(int *device) {
  *device = 0;
  return 0;
}

int cudaDeviceGetAttribute(int *value, int attribute, int device) {
  (void)attribute, (void)device;
  *value = 132;
  return 0;
}
