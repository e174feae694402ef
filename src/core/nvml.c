/* NVML, the driver's management library, loaded at run time for one
 * board (its PCI bus id): its energy counter and power (energy.c), its
 * clocks and why they are below their maximum (the harness watches them
 * around timed runs), and what a results file discloses of the board (its
 * power limit, ECC, persistence mode, application clocks). Only the
 * functions called here are declared, as NVML's header has them;
 * KLADDER_NVML_LIBRARY names a stand-in (the tests' fake). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef void *nvml_device;
typedef int (*init_fn)(void);
typedef int (*shutdown_fn)(void);
typedef int (*by_bus_fn)(const char *bus_id, nvml_device *device);
typedef int (*energy_fn)(nvml_device device, unsigned long long *mj);
typedef int (*uint_fn)(nvml_device device, unsigned int *value);
typedef int (*clock_fn)(nvml_device device, int type, unsigned int *mhz);
typedef int (*reasons_fn)(nvml_device device, unsigned long long *reasons);
typedef int (*ecc_fn)(nvml_device device, int *current, int *pending);
typedef int (*state_fn)(nvml_device device, int *state);
/* nvmlFieldValue_t: a field asked for by id, its value by its type. */
typedef struct nvml_field {
  unsigned int id, scope;
  long long timestamp, latency_us;
  int type, status;
  union {
    double d;
    unsigned int ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
  } value;
} nvml_field;
typedef int (*fields_fn)(nvml_device device, int count, nvml_field *values);
/* NVML_FI_DEV_POWER_INSTANT: the board's power now, in milliwatts (where
 * nvmlDeviceGetPowerUsage, on Ampere and later, is a 1 s average). */
enum { NVML_FI_DEV_POWER_INSTANT = 186 };

/* nvmlClockType_t */
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };

struct kl__nvml {
  void *library;
  shutdown_fn shutdown;
  nvml_device device;
  energy_fn energy;
  uint_fn power, power_limit;
  clock_fn clock, app_clock, max_clock;
  reasons_fn reasons;
  ecc_fn ecc;
  state_fn persistence;
  fields_fn fields;
};

/* A symbol of the library as a function pointer (dlsym gives an object
 * pointer; POSIX makes it a function's), NULL where it has none. */
#define LOAD(n, field, name)                                                  \
  do {                                                                        \
    void *p_ = dlsym((n)->library, name);                                     \
    memcpy(&(n)->field, &p_, sizeof p_);                                      \
  } while (0)

kl_status kl__nvml_open(const char *bus, kl__nvml **out, char *why,
                        size_t size) {
  *out = NULL;
  kl__nvml *n = calloc(1, sizeof *n);
  if (!n) return KL_FAIL(KL_NO_MEMORY, "out of host memory");
  const char *name = getenv("KLADDER_NVML_LIBRARY");
  if (!name || !*name) name = "libnvidia-ml.so.1";
  n->library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!n->library) {
    snprintf(why, size, "no NVML (%s could not be loaded)", name);
    free(n);
    return KL_UNAVAILABLE;
  }
  init_fn init;
  by_bus_fn by_bus;
  void *p = dlsym(n->library, "nvmlInit_v2");
  memcpy(&init, &p, sizeof p);
  p = dlsym(n->library, "nvmlDeviceGetHandleByPciBusId_v2");
  memcpy(&by_bus, &p, sizeof p);
  LOAD(n, shutdown, "nvmlShutdown");
  LOAD(n, energy, "nvmlDeviceGetTotalEnergyConsumption");
  LOAD(n, power, "nvmlDeviceGetPowerUsage");
  LOAD(n, power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  LOAD(n, clock, "nvmlDeviceGetClockInfo");
  LOAD(n, app_clock, "nvmlDeviceGetDefaultApplicationsClock");
  LOAD(n, max_clock, "nvmlDeviceGetMaxClockInfo");
  /* The reasons' newer name (drivers from 535), else the older one. */
  LOAD(n, reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!n->reasons) LOAD(n, reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  LOAD(n, ecc, "nvmlDeviceGetEccMode");
  LOAD(n, persistence, "nvmlDeviceGetPersistenceMode");
  LOAD(n, fields, "nvmlDeviceGetFieldValues");
  kl_status st = KL_OK;
  int rc = 0;
  if (!init || !by_bus || !n->shutdown) {
    snprintf(why, size, "%s lacks NVML's first functions", name);
    st = KL_UNAVAILABLE;
  } else if ((rc = init()) != 0) {
    snprintf(why, size, "NVML did not start (nvmlInit_v2: %d)", rc);
    n->shutdown = NULL;
    st = KL_UNAVAILABLE;
  } else if ((rc = by_bus(bus, &n->device)) != 0) {
    snprintf(why, size, "NVML does not know the device at %s (%d)", bus, rc);
    st = KL_UNAVAILABLE;
  }
  if (st != KL_OK) {
    kl__nvml_close(n);
    return st;
  }
  *out = n;
  return KL_OK;
}

void kl__nvml_close(kl__nvml *n) {
  if (!n) return;
  if (n->shutdown) n->shutdown();
  dlclose(n->library);
  free(n);
}

int kl__nvml_energy(const kl__nvml *n, double *joules) {
  unsigned long long mj = 0;
  if (!n->energy || n->energy(n->device, &mj) != 0) return 0;
  *joules = 1e-3 * (double)mj;
  return 1;
}

/* A field's value as a double, by the type NVML says it has. */
static double field_value(const nvml_field *f) {
  switch (f->type) {
  case 0: return f->value.d;
  case 2: return (double)f->value.ul;
  case 3: return (double)f->value.ull;
  case 4: return (double)f->value.sll;
  case 5: return (double)f->value.si;
  default: return (double)f->value.ui;
  }
}

int kl__nvml_power(const kl__nvml *n, double *watts, int *averaged) {
  nvml_field f;
  memset(&f, 0, sizeof f);
  f.id = NVML_FI_DEV_POWER_INSTANT;
  if (n->fields && n->fields(n->device, 1, &f) == 0 && f.status == 0) {
    *watts = 1e-3 * field_value(&f);
    *averaged = 0;
    return 1;
  }
  unsigned int mw = 0;
  if (!n->power || n->power(n->device, &mw) != 0) return 0;
  *watts = 1e-3 * (double)mw;
  *averaged = 1;
  return 1;
}

int kl__nvml_clocks(const kl__nvml *n, kl__clock_sample *s) {
  unsigned int sm = 0, mem = 0;
  unsigned long long reasons = 0;
  if (!n->clock || n->clock(n->device, NVML_CLOCK_SM, &sm) != 0 ||
      n->clock(n->device, NVML_CLOCK_MEM, &mem) != 0)
    return 0;
  if (n->reasons && n->reasons(n->device, &reasons) != 0) reasons = 0;
  s->sm_mhz = sm;
  s->mem_mhz = mem;
  s->reasons = reasons;
  return 1;
}

void kl__nvml_disclose(const kl__nvml *n, kl__gpu_disclosure *d) {
  memset(d, 0, sizeof *d);
  d->ecc = d->persistence = -1;
  unsigned int v = 0;
  int current = 0, pending = 0;
  if (n->power_limit && n->power_limit(n->device, &v) == 0)
    d->power_limit_watts = 1e-3 * v;
  if (n->app_clock && n->app_clock(n->device, NVML_CLOCK_SM, &v) == 0)
    d->app_sm_mhz = v;
  if (n->app_clock && n->app_clock(n->device, NVML_CLOCK_MEM, &v) == 0)
    d->app_mem_mhz = v;
  if (n->max_clock && n->max_clock(n->device, NVML_CLOCK_SM, &v) == 0)
    d->max_sm_mhz = v;
  if (n->ecc && n->ecc(n->device, &current, &pending) == 0)
    d->ecc = current != 0;
  if (n->persistence && n->persistence(n->device, &current) == 0)
    d->persistence = current != 0;
}

/* NVML's reasons that mean the board slowed itself (nvmlClocksEvent*):
 * software and hardware thermal slowdown, hardware slowdown (power brake
 * included) and the external power brake. A power cap (0x4) is not one:
 * it is the steady state of compute-bound work at the board's limit, and
 * is reported with the clock it reached. */
#define SLOWED_REASONS (0x8ULL | 0x20ULL | 0x40ULL | 0x80ULL)
#define POWER_CAP 0x4ULL
#define IDLE 0x1ULL

int kl__clocks_slowed(const kl__clock_sample *s, double app_sm_mhz) {
  if (s->reasons & SLOWED_REASONS) return 1;
  /* A clock below the fraction of the application clock, on a board that
   * is neither idle nor at its power cap, is a slowdown NVML did not
   * name. */
  return app_sm_mhz > 0 && !(s->reasons & (POWER_CAP | IDLE)) &&
         s->sm_mhz < KL__CLOCK_FLOOR * app_sm_mhz;
}

void kl__clock_reasons_text(unsigned long long reasons, char *dst,
                            size_t size) {
  static const struct {
    unsigned long long bit;
    const char *name;
  } names[] = {{0x4, "power-cap"},       {0x8, "hw-slowdown"},
               {0x20, "sw-thermal"},     {0x40, "hw-thermal"},
               {0x80, "power-brake"},    {0x2, "app-clocks"},
               {0x10, "sync-boost"},     {0x100, "display-clock"}};
  dst[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (reasons & names[i].bit)
      kl__append(dst, size, "%s%s", dst[0] ? "," : "", names[i].name);
}
