/* test_module MODULE: the GPU module's entries as libkladder.so sees
 * them. Once the GPU backend's probe has loaded the module (whether a
 * device answers or not), every slot of the shared library's stubs holds
 * a function of MODULE (libkladder-cuda.so): the generated stubs and
 * table agree, and the module's entries bind to themselves, not to the
 * stubs of the same names. And the shared library's GPU backend, which
 * forwards to the module's, forwards every method the module's backend
 * has. Links libkladder.so, not libkladder.a. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "backends/module/module.h"
#include "registry.h"

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
  /* The methods of kl_backend, by offset: a member added to it fails to
   * build here until it is listed, and forwarded in loader.c. */
  static const struct {
    const char *name;
    size_t at;
  } methods[] = {
#define METHOD(m) {#m, offsetof(kl_backend, m)}
      METHOD(probe),        METHOD(memory),          METHOD(open),
      METHOD(close),        METHOD(alloc),           METHOD(release),
      METHOD(copy),         METHOD(fill_bytes),      METHOD(sync),
      METHOD(record),       METHOD(elapsed),         METHOD(device_count),
      METHOD(describe),     METHOD(enter),           METHOD(memory_on_host),
      METHOD(left_out),     METHOD(compile_seconds), METHOD(bus_id),
      METHOD(range),        METHOD(launch),          METHOD(adopt_stream),
      METHOD(ahead),
#undef METHOD
  };
  _Static_assert(sizeof(kl_backend) ==
                     offsetof(kl_backend, ahead) + sizeof(void (*)(void)),
                 "a member added to kl_backend: list it in methods[] and "
                 "forward it in loader.c");
  void *handle = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
  kl__gpu_module_fn get =
      handle ? (kl__gpu_module_fn)dlsym(handle, KL_GPU_MODULE_SYMBOL) : NULL;
  const kl__gpu_module_info *m = get ? get() : NULL;
  if (!m || !m->backend) {
    printf("FAIL: %s's backend not found\n", argv[1]);
    return 1;
  }
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
    void *mine, *theirs;
    memcpy(&theirs, (const char *)m->backend + methods[i].at, sizeof theirs);
    memcpy(&mine, (const char *)&kl__backend_gpu + methods[i].at,
           sizeof mine);
    if (theirs && !mine) {
      printf("FAIL: the module's backend has %s, the forwarder does not\n",
             methods[i].name);
      bad++;
    }
  }
  if (handle) dlclose(handle);
  printf("%d GPU entries, %d outside %s (%s)\n", count, bad, argv[1], info);
  return bad || count == 0;
}
