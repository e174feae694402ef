#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "harness.h"

double kl__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int kl__omp_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

static size_t meminfo_field(const char *field) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  size_t kib = 0, flen = strlen(field);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, field, flen) == 0 && line[flen] == ':') {
      unsigned long long v = 0;
      if (sscanf(line + flen + 1, "%llu", &v) == 1) kib = (size_t)v;
      break;
    }
  }
  fclose(f);
  return kib * 1024;
}

int kl__omp_thread(void) {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

int kl__omp_team(void) {
#ifdef _OPENMP
  return omp_get_num_threads();
#else
  return 1;
#endif
}

kl_status kl__memory_limit(size_t *limit) {
  *limit = SIZE_MAX;
  const char *text = getenv("KLADDER_MEMORY_LIMIT");
  if (!text) return KL_OK;
  int64_t bytes = 0;
  kl_status st = kl_parse_size(text, &bytes);
  if (st != KL_OK) {
    /* The parser's message, copied: it lives where the new one goes. */
    char why[256];
    snprintf(why, sizeof why, "%s", kl_last_error());
    return kl__usage(st, "KLADDER_MEMORY_LIMIT: %s", why);
  }
  if ((uint64_t)bytes < SIZE_MAX) *limit = (size_t)bytes;
  return KL_OK;
}

size_t kl__host_memory_available(void) {
  size_t avail = meminfo_field("MemAvailable");
  if (avail == 0) {
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) avail = (size_t)pages * (size_t)page;
  }
  /* Blocks a run keeps for reuse are its own to give back. */
  return avail + kl__host_pool_bytes();
}

kl_status kl__host_memory(int device, size_t *free_bytes, size_t *total_bytes) {
  (void)device;
  *free_bytes = kl__host_memory_available();
  *total_bytes = meminfo_field("MemTotal");
  return KL_OK;
}

/* The first value of a field of /proc/cpuinfo ("model name", "cpu MHz"):
 * what follows its colon, trimmed; "" where there is none. */
static void cpuinfo_field(const char *field, char *dst, size_t size) {
  dst[0] = '\0';
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  const size_t len = strlen(field);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, field, len) != 0) continue;
    char *colon = strchr(line, ':');
    if (colon) {
      colon++;
      while (*colon == ' ' || *colon == '\t') colon++;
      colon[strcspn(colon, "\n")] = '\0';
      snprintf(dst, size, "%s", colon);
    }
    break;
  }
  fclose(f);
}

static void cpu_model(char *dst, size_t size) {
  cpuinfo_field("model name", dst, size);
  if (!dst[0]) snprintf(dst, size, "unknown CPU");
}

/* The first line of a small text file, without its newline; "" where it
 * cannot be read. */
static void first_line(const char *path, char *dst, size_t size) {
  dst[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  if (!fgets(dst, (int)size, f)) dst[0] = '\0';
  dst[strcspn(dst, "\n")] = '\0';
  fclose(f);
}

/* cpu 0's clock in MHz: cpufreq's scaling_cur_freq (kHz), else the first
 * "cpu MHz" of /proc/cpuinfo (what a virtual machine often has alone);
 * 0 where neither says. */
static double cpu_mhz(void) {
  char text[64];
  first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", text,
             sizeof text);
  char *end = NULL;
  const double khz = strtod(text, &end);
  if (end != text && khz > 0) return khz / 1000;
  cpuinfo_field("cpu MHz", text, sizeof text);
  const double mhz = strtod(text, NULL);
  return mhz > 0 ? mhz : 0;
}

void kl__host_describe(kl_machine *m) {
  memset(m, 0, sizeof *m);
  m->size = sizeof *m;
  cpu_model(m->cpu, sizeof m->cpu);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  m->cpu_threads = cpus > 0 ? (int)cpus : 1;
  m->omp_threads = kl__omp_threads();
  if (gethostname(m->host, sizeof m->host) != 0) m->host[0] = '\0';
  m->host[sizeof m->host - 1] = '\0';
  first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
             m->cpu_governor, sizeof m->cpu_governor);
  m->cpu_mhz = cpu_mhz();
  m->gpu_ecc = m->gpu_persistence = -1; /* until a board says (run.c) */
}

void kl__machine_describe(kl_machine *m, const kl_backend *const *backends,
                          size_t count) {
  kl__host_describe(m);
  for (size_t i = 0; i < count; i++) {
    const kl_backend *b = backends[i];
    char info[256];
    if (kl_backend_host_memory(b) ||
        !kl_backend_available(b, info, sizeof info))
      continue;
    /* GPU backends describe themselves as "NAME | driver X | runtime Y". */
    char *bar = strstr(info, " | ");
    if (bar) {
      *bar = '\0';
      snprintf(m->driver, sizeof m->driver, "%.63s", bar + 3);
    }
    snprintf(m->gpu, sizeof m->gpu, "%.127s", info);
    break;
  }
}

int kl__utc(time_t t, struct tm *out) { return gmtime_r(&t, out) != NULL; }
