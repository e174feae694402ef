/* test_module MODULE: the GPU module's entries as libkladder.so sees
 * them. Once the GPU backend's probe has loaded the module (whether a
 * device answers or not), every slot of the shared library's stubs holds
 * a function of MODULE (libkladder-cuda.so): the generated stubs and
 * table agree, and the module's entries bind to themselves, not to the
 * stubs of the same names. Links libkladder.so, not libkladder.a. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "backends/module/module.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_module MODULE\n");
    return 2;
  }
  char info[512] = "";
  (void)kl_backend_available(&kl__backend_gpu, info, sizeof info);
  if (strstr(info, "not loaded")) {
    printf("FAIL: %s\n", info);
    return 1;
  }
  int count = 0, bad = 0;
  for (kl__gpu_slot *const *s = kl__gpu_slots; *s; s++, count++) {
    kl__gpu_fn fn = kl__gpu_entry_of(*s);
    Dl_info where;
    const char *file = fn && dladdr((void *)fn, &where) && where.dli_fname
                           ? where.dli_fname
                           : "nowhere";
    const char *slash = strrchr(file, '/');
    if (strcmp(slash ? slash + 1 : file, argv[1]) != 0) {
      printf("FAIL: %s is in %s\n", (*s)->name, file);
      bad++;
    }
  }
  printf("%d GPU entries, %d outside %s (%s)\n", count, bad, argv[1], info);
  return bad || count == 0;
}
