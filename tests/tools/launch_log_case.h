/* A test program's side of the sanitizer gate's launch log
 * (tools/launch_log.c): where that library is preloaded, it defines
 * kl_launch_log_case, and the program names each case to it before the
 * case runs, so that the log tells which case made which launch; where it
 * is not, nothing happens. Found with dlsym on the program's own handle,
 * whose search covers the preloaded libraries (POSIX dlopen(NULL)). */
#ifndef KL_TESTS_LAUNCH_LOG_CASE_H
#define KL_TESTS_LAUNCH_LOG_CASE_H

#include <dlfcn.h>
#include <string.h>

typedef void (*kl_case_hook)(const char *text);

static void launch_log_case(const char *text) {
  static int looked;
  static kl_case_hook hook;
  if (!looked) {
    looked = 1;
    void *self = dlopen(NULL, RTLD_LAZY);
    void *fn = self ? dlsym(self, "kl_launch_log_case") : NULL;
    /* A function pointer from dlsym's object pointer, as POSIX allows. */
    memcpy(&hook, &fn, sizeof fn);
  }
  if (hook) hook(text);
}

#endif
