/* launch_log: an LD_PRELOAD shim that lists the CUDA kernels a process's
 * objects register and the launches it makes of them, for the sanitizer
 * gate's coverage check (scripts/gpu-sanitize.sh). compute-sanitizer has
 * no launch listing of its own.
 *
 *   KL_LAUNCH_LOG=FILE LD_PRELOAD=liblaunch_log.so PROGRAM ...
 *
 * It interposes the CUDA runtime's entry points that nvcc's code calls:
 *   __cudaRegisterFunction  every __global__ function of a module, as its
 *                           fat binary registers at load (the kernels in
 *                           the objects: libkladder-cuda.so's, or a test
 *                           program's own from libkladder.a);
 *   __cudaGetKernel         the handle a launch stub asks for its kernel
 *                           (CUDA 13's <<<>>> launches by handle);
 *   __cudaLaunchKernel(_ptsz), cudaLaunchKernel(_ptsz),
 *   cudaLaunchKernelExC(_ptsz), cudaLaunchCooperativeKernel(_ptsz)
 *                           the launches: <<<>>>, the runtime's calls, and
 *                           cudaLaunchKernelEx (programmatic launches);
 * and forwards each to the real function. A kernel launched inside a
 * stream capture is counted where it is captured, once, not at every
 * replay of the graph. Vendor libraries (cuBLAS, cuSPARSE, cuRAND, NCCL)
 * carry a static CUDA runtime of their own: their kernels and launches
 * do not pass through here, and are not ours to list.
 *
 * The real functions: dlsym(RTLD_NEXT), which finds a libcudart.so that a
 * program links; where the runtime came with a library opened by dlopen
 * with RTLD_LOCAL (libkladder.so opens libkladder-cuda.so so, and that
 * links libcudart.so), the libcudart.so that is loaded, found by
 * dl_iterate_phdr.
 *
 * A test program names the case it runs next through kl_launch_log_case
 * (launch_log_case.h finds it where this shim is loaded);
 * KL_LAUNCH_LOG_CASE names the first (a command's one problem). Without
 * KL_LAUNCH_LOG the shim only forwards.
 *
 * FILE is written at the process's exit (a process killed before it
 * writes only the first line), one record a line, fields split by tabs:
 *   P  pid                      the shim loaded (written at once)
 *   S  SMs                      the launching device's SM count
 *   R  name function mangled object
 *                               a registered kernel; object: the file of
 *                               its host stub
 *   L  count gx,gy,gz bx,by,bz function name case
 *                               launches of one kernel at one grid and
 *                               block, in one case
 *   U  count address            launches of a function not registered
 *   D  count                    launches past a full table, not counted
 * name: the demangled name without its parameter list ("copy_kernel<float>",
 * the mangled one where nothing demangles); function: the __global__
 * function it instantiates, the name without template arguments
 * ("copy_kernel"), with the parameter list of its first instantiation
 * where two functions share a name ("info_kernel(double*, double, double)").
 * A static kernel of a header that several files include is registered
 * by each, under one name. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

/* The runtime's entry points that its headers declare for nvcc's code
 * only, or under per-thread default streams only. */
void __cudaRegisterFunction(void **handle, const char *host_fun,
                            char *device_fun, const char *device_name,
                            int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *block, dim3 *grid, int *warp_size);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *host_fun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block,
                               void **args, size_t shared,
                               cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid,
                                    dim3 block, void **args, size_t shared,
                                    cudaStream_t stream);
cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block,
                                  void **args, size_t shared,
                                  cudaStream_t stream);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config,
                                     const void *func, void **args);
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 grid,
                                             dim3 block, void **args,
                                             size_t shared,
                                             cudaStream_t stream);
void kl_launch_log_case(const char *text);

/* ---- the real functions ---------------------------------------------------- */

static int find_cudart(struct dl_phdr_info *info, size_t size, void *out) {
  (void)size;
  if (info->dlpi_name && strstr(info->dlpi_name, "/libcudart.so")) {
    *(const char **)out = info->dlpi_name;
    return 1;
  }
  return 0;
}

static void *real(const char *name) {
  void *fn = dlsym(RTLD_NEXT, name);
  if (fn) return fn;
  const char *path = NULL;
  dl_iterate_phdr(find_cudart, &path);
  void *lib = path ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
  fn = lib ? dlsym(lib, name) : NULL;
  if (!fn) {
    /* Nothing to forward to: the program cannot go on as it meant to. */
    fprintf(stderr, "launch_log: no real %s (libcudart.so not loaded)\n",
            name);
    abort();
  }
  return fn;
}

/* The real functions' types. */
typedef void (*register_fn)(void **, const char *, char *, const char *, int,
                            uint3 *, uint3 *, dim3 *, dim3 *, int *);
typedef cudaError_t (*get_kernel_fn)(cudaKernel_t *, const void *);
typedef cudaError_t (*handle_launch_fn)(cudaKernel_t, dim3, dim3, void **,
                                        size_t, cudaStream_t);
typedef cudaError_t (*launch_fn)(const void *, dim3, dim3, void **, size_t,
                                 cudaStream_t);
typedef cudaError_t (*launch_ex_fn)(const cudaLaunchConfig_t *, const void *,
                                    void **);
typedef cudaError_t (*get_device_fn)(int *);
typedef cudaError_t (*attribute_fn)(int *, enum cudaDeviceAttr, int);

/* Each real function looked up once, at its first call. */
#define REAL(type, name)                                                      \
  static type real_##name;                                                    \
  if (!real_##name) real_##name = (type)real(#name)

/* ---- the tables ------------------------------------------------------------ */

typedef struct kernel {
  const void *host_fun;  /* the host stub */
  const void *handle;    /* its cudaKernel_t, once a stub asks */
  char *mangled;
} kernel;

typedef struct launch {
  int kernel; /* index in kernels; -1 unregistered (address in key) */
  int case_index;
  unsigned grid[3], block[3];
  const void *address;
  unsigned long long count;
  int used;
} launch;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static kernel *kernels;
static int kernel_count, kernel_room;
/* Open addressing over launches, by kernel, case, grid and block. */
#define LAUNCH_SLOTS (1 << 17)
static launch *launches;
static unsigned long long dropped; /* launches past a full table */
static char **cases;
static int case_count, case_room, current_case;
static int sms = -1;
static char log_path[4096];

static int find_kernel(const void *fun) {
  for (int i = 0; i < kernel_count; i++)
    if (kernels[i].host_fun == fun || (fun && kernels[i].handle == fun))
      return i;
  return -1;
}

static int intern_case(const char *text) {
  for (int i = 0; i < case_count; i++)
    if (strcmp(cases[i], text) == 0) return i;
  if (case_count == case_room) {
    const int room = case_room ? 2 * case_room : 64;
    char **more = realloc(cases, sizeof *cases * (size_t)room);
    if (!more) return 0;
    cases = more, case_room = room;
  }
  char *copy = strdup(text);
  if (!copy) return 0;
  cases[case_count] = copy;
  return case_count++;
}

static uint64_t mix(uint64_t h, uint64_t v) {
  return (h ^ v) * 0x100000001b3ull;
}

/* One launch of fun (a host stub or a kernel handle) counted. */
static void count_launch(const void *fun, dim3 grid, dim3 block) {
  if (!log_path[0]) return;
  pthread_mutex_lock(&lock);
  if (sms < 0) {
    /* The SM count of the device the first launch goes to. */
    REAL(get_device_fn, cudaGetDevice);
    REAL(attribute_fn, cudaDeviceGetAttribute);
    int device = 0, count = 0;
    if (real_cudaGetDevice(&device) == cudaSuccess &&
        real_cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount,
                                    device) == cudaSuccess)
      sms = count;
    else
      sms = 0;
  }
  if (!launches) launches = calloc(LAUNCH_SLOTS, sizeof *launches);
  const int k = find_kernel(fun);
  const unsigned g[3] = {grid.x, grid.y, grid.z},
                 b[3] = {block.x, block.y, block.z};
  uint64_t h = 0xcbf29ce484222325ull;
  h = mix(h, (uint64_t)k), h = mix(h, (uint64_t)current_case);
  h = mix(h, (uint64_t)(uintptr_t)(k < 0 ? fun : NULL));
  for (int i = 0; i < 3; i++) h = mix(mix(h, g[i]), b[i]);
  int placed = 0;
  for (uint64_t probe = 0; launches && probe < LAUNCH_SLOTS && !placed;
       probe++) {
    launch *l = &launches[(h + probe) & (LAUNCH_SLOTS - 1)];
    if (!l->used) {
      *l = (launch){k, current_case, {g[0], g[1], g[2]}, {b[0], b[1], b[2]},
                    k < 0 ? fun : NULL, 0, 1};
    }
    if (l->kernel == k && l->case_index == current_case &&
        l->address == (k < 0 ? fun : NULL) && !memcmp(l->grid, g, sizeof g) &&
        !memcmp(l->block, b, sizeof b)) {
      l->count++;
      placed = 1;
    }
  }
  if (!placed) dropped++;
  pthread_mutex_unlock(&lock);
}

/* ---- the interposed functions ------------------------------------------------ */

void __cudaRegisterFunction(void **handle, const char *host_fun,
                            char *device_fun, const char *device_name,
                            int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *block, dim3 *grid, int *warp_size) {
  REAL(register_fn, __cudaRegisterFunction);
  pthread_mutex_lock(&lock);
  if (find_kernel(host_fun) < 0) {
    if (kernel_count == kernel_room) {
      const int room = kernel_room ? 2 * kernel_room : 256;
      kernel *more = realloc(kernels, sizeof *kernels * (size_t)room);
      if (more) kernels = more, kernel_room = room;
    }
    if (kernel_count < kernel_room) {
      kernels[kernel_count].host_fun = host_fun;
      kernels[kernel_count].handle = NULL;
      kernels[kernel_count].mangled =
          strdup(device_name ? device_name : device_fun ? device_fun : "?");
      kernel_count++;
    }
  }
  pthread_mutex_unlock(&lock);
  real___cudaRegisterFunction(handle, host_fun, device_fun, device_name,
                              thread_limit, tid, bid, block, grid, warp_size);
}

cudaError_t __cudaGetKernel(cudaKernel_t *out, const void *host_fun) {
  REAL(get_kernel_fn, __cudaGetKernel);
  const cudaError_t e = real___cudaGetKernel(out, host_fun);
  if (e == cudaSuccess && out) {
    pthread_mutex_lock(&lock);
    const int k = find_kernel(host_fun);
    if (k >= 0) kernels[k].handle = (const void *)*out;
    pthread_mutex_unlock(&lock);
  }
  return e;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block,
                               void **args, size_t shared,
                               cudaStream_t stream) {
  REAL(handle_launch_fn, __cudaLaunchKernel);
  count_launch((const void *)kernel, grid, block);
  return real___cudaLaunchKernel(kernel, grid, block, args, shared, stream);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid,
                                    dim3 block, void **args, size_t shared,
                                    cudaStream_t stream) {
  REAL(handle_launch_fn, __cudaLaunchKernel_ptsz);
  count_launch((const void *)kernel, grid, block);
  return real___cudaLaunchKernel_ptsz(kernel, grid, block, args, shared,
                                      stream);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block,
                             void **args, size_t shared, cudaStream_t stream) {
  REAL(launch_fn, cudaLaunchKernel);
  count_launch(func, grid, block);
  return real_cudaLaunchKernel(func, grid, block, args, shared, stream);
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block,
                                  void **args, size_t shared,
                                  cudaStream_t stream) {
  REAL(launch_fn, cudaLaunchKernel_ptsz);
  count_launch(func, grid, block);
  return real_cudaLaunchKernel_ptsz(func, grid, block, args, shared, stream);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config,
                                const void *func, void **args) {
  REAL(launch_ex_fn, cudaLaunchKernelExC);
  if (config) count_launch(func, config->gridDim, config->blockDim);
  return real_cudaLaunchKernelExC(config, func, args);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config,
                                     const void *func, void **args) {
  REAL(launch_ex_fn, cudaLaunchKernelExC_ptsz);
  if (config) count_launch(func, config->gridDim, config->blockDim);
  return real_cudaLaunchKernelExC_ptsz(config, func, args);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid,
                                        dim3 block, void **args, size_t shared,
                                        cudaStream_t stream) {
  REAL(launch_fn, cudaLaunchCooperativeKernel);
  count_launch(func, grid, block);
  return real_cudaLaunchCooperativeKernel(func, grid, block, args, shared,
                                          stream);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 grid,
                                             dim3 block, void **args,
                                             size_t shared,
                                             cudaStream_t stream) {
  REAL(launch_fn, cudaLaunchCooperativeKernel_ptsz);
  count_launch(func, grid, block);
  return real_cudaLaunchCooperativeKernel_ptsz(func, grid, block, args,
                                               shared, stream);
}

void kl_launch_log_case(const char *text) {
  pthread_mutex_lock(&lock);
  current_case = intern_case(text && *text ? text : "-");
  pthread_mutex_unlock(&lock);
}

/* ---- names ------------------------------------------------------------------- */

/* The whole demangled name (malloc'ed), or NULL where there is no C++
 * runtime or it does not demangle the name. The runtime may be loaded only
 * as a library of a module opened with RTLD_LOCAL (libkladder-cuda.so's),
 * or not at all (a C program): then it is asked for, or loaded, by name. */
static char *demangled(const char *mangled) {
  typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
  demangle_fn demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
  void *cxx =
      demangle ? NULL : dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
  if (!demangle && !cxx) cxx = dlopen("libstdc++.so.6", RTLD_LAZY);
  if (cxx) demangle = (demangle_fn)dlsym(cxx, "__cxa_demangle");
  int status = -1;
  char *d = demangle ? demangle(mangled, NULL, NULL, &status) : NULL;
  if (d && status == 0) return d;
  free(d);
  return NULL;
}

/* Where the parameter list of a whole demangled name starts (its last
 * top-level parenthesis), or its end. */
static size_t parameters_at(const char *d) {
  size_t end = strlen(d);
  if (end == 0 || d[end - 1] != ')') return end;
  int depth = 0;
  for (size_t i = end; i-- > 0;) {
    if (d[i] == ')') depth++;
    else if (d[i] == '(' && --depth == 0) return i;
  }
  return end;
}

/* Past one <nested-name> or <template-args> of a mangled name, from just
 * after its opening letter to just after its closing 'E'; NULL where it
 * does not parse (forms no kernel here uses). */
static const char *past_group(const char *p) {
  int depth = 1;
  while (*p && depth > 0) {
    if (*p >= '0' && *p <= '9') { /* a source name: its length, then it */
      char *end = NULL;
      const long len = strtol(p, &end, 10);
      if (len <= 0 || strnlen(end, (size_t)len) < (size_t)len) return NULL;
      p = end + len;
    } else if (*p == 'L') { /* a literal (L type value E) or L_Z name E */
      if (p[1] == '_' && p[2] == 'Z') {
        p += 3, depth++;
      } else {
        const char *e = strchr(p, 'E');
        if (!e) return NULL;
        p = e + 1;
      }
    } else if (*p == 'S' && p[1] >= 'a' && p[1] <= 'z') { /* St, Sa ... */
      p += 2;
    } else if (*p == 'S' || *p == 'T') { /* S_, S0_; T_, T0_ */
      const char *u = strchr(p, '_');
      if (!u) return NULL;
      p = u + 1;
    } else if (*p == 'I' || *p == 'N' || *p == 'X') {
      depth++, p++;
    } else if (*p == 'E') {
      depth--, p++;
    } else {
      p++;
    }
  }
  return depth == 0 ? p : NULL;
}

/* The mangled signature past the function's name and its template
 * arguments, its substitutions' numbers dropped (S3_ -> S_: they count
 * the components before them, which differ from one instantiation to the
 * next), into out: the same for every instantiation of one template (it
 * names the template's parameters, T_, not the arguments), and different
 * for two functions of one name and other parameters. "" where it does
 * not parse. */
static const char *signature_of(const char *m);

static void shape_of(const char *m, char *out, size_t size) {
  const char *p = signature_of(m);
  size_t o = 0;
  while (*p && o + 1 < size) {
    const char c = p[0] == 'S' ? p[1] : 'a';
    if (c == '_' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z')) {
      const char *u = strchr(p, '_');
      if (!u) break;
      if (o + 2 < size) out[o++] = 'S', out[o++] = '_';
      p = u + 1;
    } else {
      out[o++] = *p++;
    }
  }
  out[o] = '\0';
}

static const char *signature_of(const char *m) {
  if (strncmp(m, "_Z", 2) != 0) return "";
  const char *p = m + 2;
  if (*p == 'N') {
    p = past_group(p + 1);
  } else if (*p >= '0' && *p <= '9') {
    char *end = NULL;
    const long len = strtol(p, &end, 10);
    if (len <= 0 || strnlen(end, (size_t)len) < (size_t)len) return "";
    p = end + len;
    if (*p == 'I') p = past_group(p + 1);
  } else {
    return "";
  }
  return p ? p : "";
}

/* name: the demangled name without its parameter list or a template's
 * return type ("copy_kernel<float>"); base: that without its template
 * arguments ("copy_kernel"); both the mangled name where nothing
 * demangles. params: the parameter list, "" where none. */
typedef struct names {
  char name[1024], base[1024], params[1024], shape[1024];
} names;

static void names_of(const char *mangled, names *n) {
  char *d = demangled(mangled);
  shape_of(mangled, n->shape, sizeof n->shape);
  n->params[0] = '\0';
  if (!d) {
    snprintf(n->name, sizeof n->name, "%s", mangled);
    snprintf(n->base, sizeof n->base, "%s", mangled);
    return;
  }
  const size_t at = parameters_at(d);
  const char *start = d;
  if (strncmp(start, "void ", 5) == 0) start += 5;
  snprintf(n->name, sizeof n->name, "%.*s", (int)(at - (size_t)(start - d)),
           start);
  snprintf(n->params, sizeof n->params, "%s", d + at);
  size_t o = 0;
  int depth = 0;
  for (const char *c = n->name; *c && o + 1 < sizeof n->base; c++) {
    if (*c == '<') depth++;
    else if (*c == '>' && depth > 0) depth--;
    else if (depth == 0) n->base[o++] = *c;
  }
  n->base[o] = '\0';
  free(d);
}

/* Tabs and newlines in a field would split the record. */
static void clean(char *s) {
  for (; *s; s++)
    if (*s == '\t' || *s == '\n') *s = ' ';
}

/* ---- the file ----------------------------------------------------------------- */

/* Each kernel's function: its base name, and where another function of
 * that base name has other parameters (gemm's and histogram's
 * shared_kernel), the parameter list of the first of its own
 * instantiations in sorted order too. */
static void functions_of(names *n, char **function) {
  for (int i = 0; i < kernel_count; i++) {
    int clash = 0, first = i;
    for (int j = 0; j < kernel_count; j++) {
      if (strcmp(n[i].base, n[j].base) != 0) continue;
      if (strcmp(n[i].shape, n[j].shape) != 0) clash = 1;
      else if (strcmp(n[j].name, n[first].name) < 0) first = j;
    }
    const char *params = n[first].params;
    const size_t size = strlen(n[i].base) + strlen(params) + 1;
    function[i] = malloc(size);
    if (function[i])
      snprintf(function[i], size, "%s%s", n[i].base, clash ? params : "");
  }
}

static void write_log(void) {
  if (!log_path[0]) return;
  pthread_mutex_lock(&lock);
  FILE *f = fopen(log_path, "a");
  names *n = calloc((size_t)kernel_count + 1, sizeof *n);
  char **function = calloc((size_t)kernel_count + 1, sizeof *function);
  if (!f || !n || !function) {
    if (f) fclose(f);
    free(n), free(function);
    pthread_mutex_unlock(&lock);
    return;
  }
  if (sms >= 0) fprintf(f, "S\t%d\n", sms);
  for (int i = 0; i < kernel_count; i++) names_of(kernels[i].mangled, &n[i]);
  functions_of(n, function);
  for (int i = 0; i < kernel_count; i++) {
    clean(n[i].name);
    if (function[i]) clean(function[i]);
    Dl_info info;
    const char *object = "?";
    if (dladdr(kernels[i].host_fun, &info) && info.dli_fname) {
      object = strrchr(info.dli_fname, '/');
      object = object ? object + 1 : info.dli_fname;
    }
    fprintf(f, "R\t%s\t%s\t%s\t%s\n", n[i].name,
            function[i] ? function[i] : n[i].base, kernels[i].mangled, object);
  }
  for (size_t s = 0; launches && s < LAUNCH_SLOTS; s++) {
    const launch *l = &launches[s];
    if (!l->used) continue;
    if (l->kernel < 0) {
      fprintf(f, "U\t%llu\t%p\n", l->count, l->address);
      continue;
    }
    const char *c = l->case_index < case_count ? cases[l->case_index] : "-";
    const int k = l->kernel;
    fprintf(f, "L\t%llu\t%u,%u,%u\t%u,%u,%u\t%s\t%s\t%s\n", l->count,
            l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
            l->block[2], function[k] ? function[k] : n[k].base, n[k].name, c);
  }
  if (dropped) fprintf(f, "D\t%llu\n", dropped);
  fclose(f);
  for (int i = 0; i < kernel_count; i++) free(function[i]);
  free(function), free(n);
  pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void start(void) {
  const char *path = getenv("KL_LAUNCH_LOG");
  if (!path || !*path || strlen(path) >= sizeof log_path) return;
  snprintf(log_path, sizeof log_path, "%s", path);
  const char *first = getenv("KL_LAUNCH_LOG_CASE");
  kl_launch_log_case(first);
  /* The first line at once: a log without more says the process ended
   * before its exit handlers ran. */
  const int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    char line[64];
    const int len = snprintf(line, sizeof line, "P\t%ld\n", (long)getpid());
    if (len > 0 && write(fd, line, (size_t)len) < 0) {
      /* nothing to do: the log says less */
    }
    close(fd);
  }
  atexit(write_log);
}
