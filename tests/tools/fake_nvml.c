#define _POSIX_C_SOURCE 200809L
/* A stand-in for NVML's library (libnvidia-ml.so.1) for the energy and
 * clock tests (test_energy.c, test_clocks.c, through KLADDER_NVML_LIBRARY):
 * one board, at PCI bus id FAKE_NVML_BUS, whose energy counter advances
 * at FAKE_NVML_WATTS and moves every FAKE_NVML_PERIOD_MS (20), and whose reported power is
 * FAKE_NVML_REPORTED watts (FAKE_NVML_WATTS where unset). Its clocks are
 * FAKE_NVML_SM_MHZ and FAKE_NVML_MEM_MHZ (1980 and 2619, its application
 * clocks), its clock-event reasons FAKE_NVML_REASONS (0), and the first
 * FAKE_NVML_SLOW_READS reads of them add a hardware thermal slowdown
 * (0x40); a 700 W limit, ECC and persistence on. Its instantaneous power
 * field reads FAKE_NVML_INSTANT watts (the reported power where unset),
 * or is not supported where FAKE_NVML_NO_FIELDS is set (then kladder
 * reads the reported power, which boards average over a second).
 * FAKE_NVML_PULSE="PERIOD_MS,ON_MS,WATTS" adds WATTS to the drawn power
 * for the first ON_MS of every PERIOD_MS (a load that repeats): the
 * counter and the instantaneous field both see it.
 * Declared as kladder declares the functions it loads. */
#include <math.h>
#include <stdio.h>
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

/* The pulse's period, its length (seconds) and its power; 0 where none. */
static int pulse(double *period, double *on, double *watts) {
  const char *s = getenv("FAKE_NVML_PULSE");
  double p = 0, o = 0, w = 0;
  if (!s || sscanf(s, "%lf,%lf,%lf", &p, &o, &w) != 3 || p <= 0) return 0;
  *period = 1e-3 * p;
  *on = 1e-3 * o;
  *watts = w;
  return 1;
}

/* The joules the pulses add from the start to t. */
static double pulse_joules(double t) {
  double period, on, watts;
  if (!pulse(&period, &on, &watts)) return 0;
  const double cycles = floor(t / period);
  return watts * (cycles * on + fmin(t - cycles * period, on));
}

/* The pulse's power at t. */
static double pulse_watts(double t) {
  double period, on, watts;
  if (!pulse(&period, &on, &watts)) return 0;
  return fmod(t, period) < on ? watts : 0;
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
  /* The counter moves every period, by what was drawn since the last. */
  const double t = now() - origin,
               step = 1e-3 * env_watts("FAKE_NVML_PERIOD_MS", 20);
  const double updated = step * (double)(long long)(t / step);
  *millijoules = (unsigned long long)(1e3 * (env_watts("FAKE_NVML_WATTS", 250) *
                                             updated +
                                         pulse_joules(updated))) +
                 1000000ULL;
  return 0;
}
int nvmlDeviceGetPowerUsage(void *device, unsigned int *milliwatts) {
  if (device != &started) return 2;
  const double w = env_watts("FAKE_NVML_REPORTED",
                             env_watts("FAKE_NVML_WATTS", 250));
  *milliwatts = (unsigned int)(1e3 * w);
  return 0;
}

/* nvmlClockType_t: 1 SM, 2 memory. */
int nvmlDeviceGetClockInfo(void *device, int type, unsigned int *mhz) {
  if (device != &started) return 2;
  *mhz = (unsigned int)(type == 2 ? env_watts("FAKE_NVML_MEM_MHZ", 2619)
                                  : env_watts("FAKE_NVML_SM_MHZ", 1980));
  return 0;
}
int nvmlDeviceGetDefaultApplicationsClock(void *device, int type,
                                          unsigned int *mhz) {
  if (device != &started) return 2;
  *mhz = type == 2 ? 2619 : 1980;
  return 0;
}
int nvmlDeviceGetMaxClockInfo(void *device, int type, unsigned int *mhz) {
  return nvmlDeviceGetDefaultApplicationsClock(device, type, mhz);
}
static int reason_reads;
/* Not NVML's: a test starts the count of slowed reads again. */
void fake_nvml_reset(void) { reason_reads = 0; }
int nvmlDeviceGetCurrentClocksEventReasons(void *device,
                                           unsigned long long *reasons) {
  if (device != &started) return 2;
  const char *s = getenv("FAKE_NVML_REASONS");
  *reasons = s && *s ? strtoull(s, NULL, 0) : 0;
  if (reason_reads++ < (int)env_watts("FAKE_NVML_SLOW_READS", 0))
    *reasons |= 0x40;
  return 0;
}
int nvmlDeviceGetEnforcedPowerLimit(void *device, unsigned int *milliwatts) {
  if (device != &started) return 2;
  *milliwatts = 700000;
  return 0;
}
int nvmlDeviceGetEccMode(void *device, int *current, int *pending) {
  if (device != &started) return 2;
  *current = *pending = 1;
  return 0;
}
int nvmlDeviceGetPersistenceMode(void *device, int *mode) {
  if (device != &started) return 2;
  *mode = 1;
  return 0;
}

/* nvmlFieldValue_t, as NVML lays it out. */
typedef struct fake_field {
  unsigned int id, scope;
  long long timestamp, latency_us;
  int type, status;
  union {
    double d;
    unsigned int ui;
    unsigned long long ull;
  } value;
} fake_field;
int nvmlDeviceGetFieldValues(void *device, int count, fake_field *values) {
  if (device != &started) return 2;
  for (int i = 0; i < count; i++) {
    fake_field *f = &values[i];
    f->status = 3; /* NOT_SUPPORTED */
    if (f->id != 186 || getenv("FAKE_NVML_NO_FIELDS")) continue;
    const double w = env_watts(
        "FAKE_NVML_INSTANT",
        env_watts("FAKE_NVML_REPORTED", env_watts("FAKE_NVML_WATTS", 250)));
    f->type = 1; /* unsigned int */
    f->value.ui = (unsigned int)(1e3 * (w + pulse_watts(now() - origin)));
    f->status = 0;
  }
  return 0;
}
