#define _POSIX_C_SOURCE 200809L
/* A stand-in for NVML's library (libnvidia-ml.so.1) for the energy tests
 * (test_energy.c, through KLADDER_NVML_LIBRARY): one board, at PCI bus id
 * FAKE_NVML_BUS, whose energy counter advances at FAKE_NVML_WATTS and
 * moves every 20 ms, and whose reported power is FAKE_NVML_REPORTED
 * watts (FAKE_NVML_WATTS where unset). Declared as kladder declares the
 * functions it loads. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKE_NVML_BUS "00000000:17:00.0"

static int started;
static double origin;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double env_watts(const char *name, double fallback) {
  const char *s = getenv(name);
  return s && *s ? atof(s) : fallback;
}

int nvmlInit_v2(void) {
  started = 1;
  origin = now();
  return 0;
}
int nvmlShutdown(void) {
  started = 0;
  return 0;
}
int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **device) {
  if (!started) return 1;  /* NVML_ERROR_UNINITIALIZED */
  if (strcmp(bus, FAKE_NVML_BUS) != 0) return 6; /* NOT_FOUND */
  *device = &started;
  return 0;
}
int nvmlDeviceGetTotalEnergyConsumption(void *device,
                                        unsigned long long *millijoules) {
  if (device != &started) return 2; /* INVALID_ARGUMENT */
  /* The counter moves every 20 ms, by what was drawn since the last. */
  const double t = now() - origin, step = 0.02;
  const double updated = step * (double)(long long)(t / step);
  *millijoules = (unsigned long long)(1e3 * env_watts("FAKE_NVML_WATTS", 250) *
                                      updated) + 1000000ULL;
  return 0;
}
int nvmlDeviceGetPowerUsage(void *device, unsigned int *milliwatts) {
  if (device != &started) return 2;
  const double w = env_watts("FAKE_NVML_REPORTED",
                             env_watts("FAKE_NVML_WATTS", 250));
  *milliwatts = (unsigned int)(1e3 * w);
  return 0;
}
