/* The GPU module's one exported symbol (module.h): its backend, the real
 * one of cuda.cu, and its entries by name (gpu-entries.c, generated).
 * CMakeLists.txt builds this file into the module only, whose link
 * (module.map) keeps every other symbol local to it. */
#include "module.h"
#include "../../registry.h"

extern const kl__gpu_entry kl__gpu_entries[];

#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
const kl__gpu_module_info *kl__gpu_module(void) {
  static const kl__gpu_module_info info = {
      .abi = KL_GPU_MODULE_ABI,
      .model = KL_MODEL_VERSION,
      .version = KL_VERSION,
      .sizes = KL_GPU_MODULE_SIZES,
      .backend = &kl__backend_gpu,
      .entries = kl__gpu_entries,
  };
  return &info;
}
