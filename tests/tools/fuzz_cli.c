/* fuzz_cli: runs `kladder` on mutated command lines and fails on anything
 * that is not one of its documented outcomes.
 *
 *   fuzz_cli KLADDER [--seed S] [--cases N] [--jobs J] [--timeout SECONDS]
 *                    [--case K] [--verbose]
 *
 * Every case starts from one of a set of valid command lines and applies
 * one to four mutations: dropped, repeated and swapped tokens, flipped
 * characters, numbers replaced by boundary values (0, -1, 2^31, 2^63, 2^64,
 * 10^30, ...), huge shapes and leading dimensions, -p parameters that are
 * huge, malformed or unknown, empty and 100 kB
 * arguments, and --csv/--json/--input paths that are directories or lie in
 * missing directories. Case K's command line is a function of the seed and K alone,
 * so a failure reproduces with --seed S --case K whatever the job count.
 *
 * A case fails when kladder exits outside 0-3, dies of a signal, runs past
 * the time limit (killed: "hang"), or a sanitizer reports anything: the
 * child runs with ASAN_OPTIONS exitcode=86 and UBSAN_OPTIONS exitcode=87,
 * halt_on_error=1 (appended to what is set, so the rest is kept), and its
 * stderr is searched for "Sanitizer" and "runtime error:". Each case runs
 * with its working directory in a fresh temporary directory, removed
 * afterwards, and with KLADDER_MEMORY_LIMIT=4M, so that a line that asks
 * for the default sizes or for huge ones is sized for, or refused by, a
 * 4 MiB machine instead of taking minutes (one case in eight gets a smaller
 * or a malformed limit instead).
 *
 * The last line is "N passed, M failed"; the exit status is 1 when any case
 * failed, 2 on bad usage of this program. */
#define _XOPEN_SOURCE 700 /* nftw, strtok_r, strsignal */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 64
#define MAX_JOBS 16
#define LONG_ARG_BYTES (100 * 1024)
#define ASAN_EXIT 86
#define UBSAN_EXIT 87

/* Valid command lines, the mutations' starting points. Run lines name
 * their workloads and small sizes, so that the unmutated line is quick.
 * integrate is left out: its work is not bounded by memory (it has no
 * arrays), so no memory limit can keep a mutated size such as 2^31 points,
 * a minute of legitimate work under ASan, inside a case's time limit.
 * Repeated -w options add up, so a line that is a run line after its
 * mutations gets a -w that leaves integrate out only where it does not
 * select workloads of its own (selects_workloads): with its -w dropped,
 * the run is the suite of the other workloads, never the default one. */
static const char *const seeds[] = {
    "list",
    "--help",
    "--version",
    "run --help",
    "run -w map -b serial -n 1000 --reps 2 --warmup 0",
    "run -w stream -b serial,openmp -t f32 -n 4K --reps 2 -q",
    "run -w reduce -b openmp -o max -t i32 --inputs extreme-last -n 3001 "
    "--reps 1",
    "run -w reduce -r serial,openmp-partials -o sum -t f64 --inputs large "
    "-n 100003 --seed 7 --no-ceiling --reps 2",
    "run -w gemm -b serial,openmp -s 33x17x9 --ld 40,20,35 --alpha -1.5 "
    "--beta 0.5 --reps 1 --warmup 0",
    "run -w gemm -r openmp-blocked -s 64 --scalars 2,1 -t f32 --reps 2 "
    "--max-time 1",
    "run -w gemm -b openmp -n 100 --ld ,,128 --reps=2 --max-time=0 -q",
    "run -w map,stream -b serial -n 2048 --reps 2 --csv out.csv --json "
    "out.json",
    "run --workload=map --backend=serial --size=1M --reps=1 --warmup=0 "
    "--seed=1",
    "run -w reduce -b serial -t u8 -n 65 --reps 1",
    "run -w map,reduce,gemm -b openmp -n 64 --reps 1 --no-ceiling",
    "run -w stream -r serial-copy -n 1 --reps 1 --warmup 1",
    "run -w reduce -b serial,openmp -t i32 -o sum --inputs alternating -n 33 "
    "--reps 1 --max-time 0.5",
    "run -w reduce -b serial -t f32 -o min --inputs extreme-first -n 1 "
    "--reps 3 --warmup 2",
    "run -w gemm -b serial -t f32 -s 7x5x3 --ld 9,,8 --scalars=0.5,1 "
    "--reps 1 --csv out.csv",
    "run -w gemm -r serial-naive,serial-loop-order -n 16 --beta -1 --json "
    "out.json --reps 1",
    "run -w map,stream -r serial,openmp,serial-triad -t f32 -n 1K --reps 1 "
    "--seed 18446744073709551615",
    /* Parameters by name (-p, --param), as core v2 takes them. */
    "list -w gemm",
    "run -w gemm -b serial -p m=7,n=5,k=3,lda=9,ldc=8 -p alpha=-1.5,beta=0.5 "
    "--reps 1 --warmup 0",
    "run -w reduce -b serial,openmp -p op=max,inputs=nan-middle,n=1000 -t f32 "
    "--reps 1 --no-ceiling",
    "run -w map,stream -b serial --param n=4096 --reps 2 --warmup 0",
    /* Lessons (issue 35): explain, with and without results. */
    "explain -w map -b serial,openmp",
    "explain -w map -r openmp -n 4K --results out.json",
    "run -w map -b serial -n 1K --reps 3 --explain --json out.json",
    /* histogram: patterns, the all-same byte, and a file's bytes. */
    "run -w histogram -b serial,openmp --inputs all-same -p value=255 -n 4K "
    "--reps 1",
    "run -w histogram -r serial,openmp-blocks --inputs skewed -n 33 --reps 2",
    "run -w histogram -b serial -i /etc/passwd --reps 1 --warmup 0",
    /* The report and compare (issue 30): results files and bad ones. */
    "run -w map -b serial -n 1000 --reps 2 --json out.json --html out.html",
    "report /etc/passwd -o out.html",
    "report out.json -o out.html",
    "compare /etc/passwd /etc/hostname",
    "compare out.json out.json --threshold 0.1",
};
#define SEED_COUNT (sizeof seeds / sizeof seeds[0])

/* The workloads a run line runs when its own -w is gone (see above). */
static const char *const run_prefix[] = {"-w", "stream,map,reduce,gemm"};

/* kladder run's options as its getopt_long reads them (src/cli/main.c),
 * to find the lines that select their own workloads. A table that falls
 * behind kladder's errs on the safe side: an option it does not know
 * makes a line look refused, and such a line gets the -w above. */
static const char run_shorts[] = "w:b:r:p:n:t:o:s:i:qh";
static const struct option run_longs[] = {
    {"workload", required_argument, NULL, 'w'},
    {"backend", required_argument, NULL, 'b'},
    {"rung", required_argument, NULL, 'r'},
    {"param", required_argument, NULL, 'p'},
    {"size", required_argument, NULL, 'n'},
    {"type", required_argument, NULL, 't'},
    {"op", required_argument, NULL, 'o'},
    {"inputs", required_argument, NULL, 256},
    {"input", required_argument, NULL, 'i'},
    {"shape", required_argument, NULL, 's'},
    {"ld", required_argument, NULL, 257},
    {"alpha", required_argument, NULL, 258},
    {"beta", required_argument, NULL, 259},
    {"scalars", required_argument, NULL, 260},
    {"reps", required_argument, NULL, 261},
    {"warmup", required_argument, NULL, 262},
    {"max-time", required_argument, NULL, 263},
    {"seed", required_argument, NULL, 264},
    {"csv", required_argument, NULL, 265},
    {"json", required_argument, NULL, 266},
    {"no-ceiling", no_argument, NULL, 267},
    {"rhs", required_argument, NULL, 268},
    {"solution", required_argument, NULL, 269},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

static const char *const numbers[] = {
    "0", "-1", "1", "2147483647", "2147483648", "4294967296",
    "9223372036854775807", "9223372036854775808", "18446744073709551616",
    "1000000000000000000000000000000", "-9223372036854775808", "1e308",
    "1e-320", "nan", "inf", "0x10", "1000001", "007",
};
#define NUMBER_COUNT (sizeof numbers / sizeof numbers[0])

static const char *const huge_shapes[] = {
    "2147483648x2147483648x2147483648", "9223372036854775807x2x2",
    "1x1x4294967296", "65536x65536x65536", "1099511627776x1x1",
    "1099511627777", "3000x3000x3000", "1x1000000000x1", "0x0x0",
    "1x1x1x1", "18446744073709551616x1",
};
#define HUGE_SHAPE_COUNT (sizeof huge_shapes / sizeof huge_shapes[0])

static const char *const huge_leads[] = {
    "2147483648,2147483648,2147483648", "9223372036854775807",
    ",,4294967296", "1099511627776,1,1", "4611686018427387904,,",
    "1000000000,1000000000,1000000000", "1,1,1", ",,", "-1,-1,-1",
};
#define HUGE_LEAD_COUNT (sizeof huge_leads / sizeof huge_leads[0])

/* -p values: huge or odd parameters, malformed and unknown ones. */
static const char *const huge_params[] = {
    "m=2147483648,n=2147483648,k=2147483648", "n=9223372036854775807",
    "k=4294967296", "m=1099511627776,n=1,k=1", "lda=4611686018427387904",
    "ldb=1,ldc=1", "alpha=1e308,beta=-1e308", "beta=nan", "alpha=1e-320",
    "n=1099511627777", "n=0", "op=product", "inputs=nan-first", "op=",
    "=", ",,", "n", "frob=1", "n=1,n=2", "m=7,m=8", "value=256",
    "inputs=all-same,value=-1",
};
#define HUGE_PARAM_COUNT (sizeof huge_params / sizeof huge_params[0])

/* The memory limit of most cases, then others for one case in eight: none
 * above it, so that no case can size itself beyond it; some malformed. */
#define LIMIT "4M"
static const char *const limits[] = {"1",  "1K", "64K", "1M", "0",
                                     "",   "x",  "-4M", "4MB",
                                     "18446744073709551616"};
#define LIMIT_COUNT (sizeof limits / sizeof limits[0])

/* Directories, and files in directories that do not exist (relative: the
 * case's own directory is the working directory). */
static const char *const bad_paths[] = {".", "/", "..", "missing/out.csv",
                                        "missing/deeper/out.json", ""};
#define BAD_PATH_COUNT (sizeof bad_paths / sizeof bad_paths[0])

static const char *const options[] = {
    "-w", "-b", "-r", "-n", "-t", "-o", "--inputs", "-s", "--ld", "--alpha",
    "--beta", "--scalars", "--reps", "--warmup", "--seed", "--csv", "--json",
    "--no-ceiling", "--max-time", "-q", "-h", "--size=", "--ld=", "--",
    "-", "run", "list", "-p", "--param", "--param=", "-n5", "--quiet=x",
    "--work", "-qw", "-i", "--input", "--input=", "--rhs", "--solution",
    "--html", "report", "compare", "--threshold", "--alpha",
    "--db", "history", "--import", "--check", "--since", "--machine",
    "explain", "--results", "--explain",
};
#define OPTION_COUNT (sizeof options / sizeof options[0])

/* ---- random numbers: splitmix64, one stream per case ------------------- */

typedef struct rng {
  uint64_t state;
} rng;

static uint64_t next(rng *r) {
  uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static size_t below(rng *r, size_t n) { return (size_t)(next(r) % n); }

/* ---- a case's command line ---------------------------------------------- */

typedef struct command {
  char *argv[MAX_ARGS + 2]; /* argv[0] is kladder, NULL-terminated */
  int argc;
  const char *limit; /* KLADDER_MEMORY_LIMIT */
} command;

static void *xmalloc(size_t size) {
  void *p = malloc(size);
  if (!p) {
    perror("fuzz_cli: malloc");
    exit(2);
  }
  return p;
}

static char *dup_text(const char *s) {
  size_t len = strlen(s);
  char *d = xmalloc(len + 1);
  memcpy(d, s, len + 1);
  return d;
}

static void push(command *c, const char *arg) {
  if (c->argc < MAX_ARGS + 1) c->argv[c->argc++] = dup_text(arg);
  c->argv[c->argc] = NULL;
}

static void command_free(command *c) {
  for (int i = 0; i < c->argc; i++) free(c->argv[i]);
  c->argc = 0;
}

/* Replace argument i with text. */
static void replace(command *c, int i, const char *text) {
  free(c->argv[i]);
  c->argv[i] = dup_text(text);
}

/* The position of the value that follows option `name`, or -1. */
static int value_of(const command *c, const char *name) {
  for (int i = 1; i + 1 < c->argc; i++)
    if (strcmp(c->argv[i], name) == 0) return i + 1;
  return -1;
}

/* Set option name to value, in place when present, else appended. */
static void set_option(command *c, const char *name, const char *value) {
  int v = value_of(c, name);
  if (v >= 0) {
    replace(c, v, value);
  } else {
    push(c, name);
    push(c, value);
  }
}

static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* Whether a run of digits starts at s[k]. */
static int digits_start(const char *s, size_t k) {
  return is_digit(s[k]) && (k == 0 || !is_digit(s[k - 1]));
}

static void replace_number(command *c, rng *r, int i) {
  /* A run of digits (with its sign) inside the token, or the whole token. */
  const char *s = c->argv[i];
  size_t len = strlen(s), runs = 0;
  for (size_t k = 0; k < len; k++) runs += digits_start(s, k);
  const char *value = numbers[below(r, NUMBER_COUNT)];
  if (runs == 0) {
    replace(c, i, value);
    return;
  }
  size_t pick = below(r, runs), seen = 0, begin = 0, end = 0;
  for (size_t k = 0; k < len; k++) {
    if (digits_start(s, k) && seen++ == pick) {
      begin = k > 0 && s[k - 1] == '-' ? k - 1 : k;
      for (end = k; end < len && is_digit(s[end]);) end++;
      break;
    }
  }
  size_t vlen = strlen(value);
  char *out = xmalloc(len - (end - begin) + vlen + 1);
  memcpy(out, s, begin);
  memcpy(out + begin, value, vlen);
  memcpy(out + begin + vlen, s + end, len - end + 1);
  free(c->argv[i]);
  c->argv[i] = out;
}

static void mutate(command *c, rng *r) {
  const int first = 1;            /* argv[0] is the program */
  int span = c->argc - first; /* tokens to mutate */
  int i = span > 0 ? first + (int)below(r, (size_t)span) : -1;
  switch (below(r, 12)) {
  case 0: /* drop */
    if (i < 0) break;
    free(c->argv[i]);
    memmove(&c->argv[i], &c->argv[i + 1],
            sizeof c->argv[0] * (size_t)(c->argc - i));
    c->argc--;
    break;
  case 1: /* repeat */
    if (i >= 0 && c->argc < MAX_ARGS + 1) {
      memmove(&c->argv[i + 1], &c->argv[i],
              sizeof c->argv[0] * (size_t)(c->argc - i + 1));
      c->argv[i] = dup_text(c->argv[i + 1]);
      c->argc++;
    }
    break;
  case 2: { /* swap */
    if (span < 2) break;
    int j = first + (int)below(r, (size_t)span);
    char *t = c->argv[i];
    c->argv[i] = c->argv[j];
    c->argv[j] = t;
    break;
  }
  case 3: { /* flip a character: any byte but NUL and '/', so that a path
             * stays inside the case's directory */
    if (i < 0 || !c->argv[i][0]) break;
    size_t len = strlen(c->argv[i]);
    unsigned char b;
    do b = (unsigned char)(1 + below(r, 255)); while (b == '/');
    c->argv[i][below(r, len)] = (char)b;
    break;
  }
  case 4:
  case 5: /* a number replaced by a boundary value */
    if (i >= 0) replace_number(c, r, i);
    break;
  case 6: /* a huge shape, as -s or as parameters */
    if (below(r, 2))
      set_option(c, "-s", huge_shapes[below(r, HUGE_SHAPE_COUNT)]);
    else
      set_option(c, "-p", huge_params[below(r, HUGE_PARAM_COUNT)]);
    break;
  case 7:
    set_option(c, "--ld", huge_leads[below(r, HUGE_LEAD_COUNT)]);
    break;
  case 8: { /* an empty or a very long argument */
    if (i < 0) break;
    if (below(r, 2)) {
      replace(c, i, "");
    } else {
      char *big = xmalloc(LONG_ARG_BYTES + 1);
      const char fill = "9ax,-"[below(r, 5)];
      memset(big, fill, LONG_ARG_BYTES);
      big[LONG_ARG_BYTES] = '\0';
      free(c->argv[i]);
      c->argv[i] = big;
    }
    break;
  }
  case 9: /* a results file, or an input file, that cannot be used */
    set_option(c, (const char *[]){"--csv", "--json", "--input"}[below(r, 3)],
               bad_paths[below(r, BAD_PATH_COUNT)]);
    break;
  case 11: { /* a token from another line */
    if (i < 0) break;
    char *line = dup_text(seeds[below(r, SEED_COUNT)]), *save = NULL;
    size_t count = 0;
    for (char *t = line; (t = strchr(t, ' ')); t++) count++;
    size_t pick = below(r, count + 1);
    char *tok = strtok_r(line, " ", &save);
    for (size_t k = 0; k < pick && tok; k++) tok = strtok_r(NULL, " ", &save);
    if (tok) replace(c, i, tok);
    free(line);
    break;
  }
  case 10: /* an option inserted anywhere */
    if (c->argc < MAX_ARGS + 1) {
      int at = span > 0 ? i : c->argc;
      memmove(&c->argv[at + 1], &c->argv[at],
              sizeof c->argv[0] * (size_t)(c->argc - at + 1));
      c->argv[at] = dup_text(options[below(r, OPTION_COUNT)]);
      c->argc++;
    }
    break;
  }
}

/* Whether the run line c selects workloads of its own: a non-empty -w
 * that kladder reads as one, on a line it accepts. A line it refuses
 * runs nothing either way, so "no" is safe wherever this is unsure. */
static int selects_workloads(const command *c) {
  char *args[MAX_ARGS + 2];
  const int argc = c->argc - 1; /* from "run" */
  memcpy(args, c->argv + 1, sizeof args[0] * (size_t)argc);
  args[argc] = NULL;
  /* 0, not 1: glibc starts afresh, also inside a cluster of letters;
   * getopt_long reorders args, a copy. */
  optind = 0;
  opterr = 0;
  int own = 0, ch;
  while ((ch = getopt_long(argc, args, run_shorts, run_longs, NULL)) != -1) {
    if (ch == '?' || ch == ':') return 0;
    if (ch == 'w' && optarg[0]) own = 1;
  }
  return own && optind == argc;
}

static void make_case(command *c, const char *kladder, uint64_t seed,
                      long index) {
  rng r = {seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(index + 1))};
  (void)next(&r);
  c->argc = 0;
  push(c, kladder);
  char *line = dup_text(seeds[below(&r, SEED_COUNT)]), *save = NULL;
  for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save))
    push(c, t);
  free(line);
  c->limit = below(&r, 8) ? LIMIT : limits[below(&r, LIMIT_COUNT)];
  int mutations = 1 + (int)below(&r, 4);
  for (int m = 0; m < mutations; m++) mutate(c, &r);
  /* Whatever became a run line runs the workloads other than integrate
   * unless it selects its own (see seeds[]). */
  if (c->argc > 1 && strcmp(c->argv[1], "run") == 0 &&
      !selects_workloads(c) && c->argc + 2 <= MAX_ARGS + 1) {
    memmove(&c->argv[4], &c->argv[2],
            sizeof c->argv[0] * (size_t)(c->argc - 1));
    c->argv[2] = dup_text(run_prefix[0]);
    c->argv[3] = dup_text(run_prefix[1]);
    c->argc += 2;
  }
}

/* ---- running a case ------------------------------------------------------ */

typedef struct slot {
  pid_t pid;
  long index;
  double deadline;
  char dir[4096];
  command cmd;
} slot;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Append opt to the sanitizer option variable name, keeping what is set. */
static void add_option(const char *name, const char *opt) {
  const char *old = getenv(name);
  size_t len = (old ? strlen(old) : 0) + strlen(opt) + 2;
  char *value = xmalloc(len);
  snprintf(value, len, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "",
           opt);
  setenv(name, value, 1);
  free(value);
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}

static void remove_tree(const char *dir) {
  nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int start(slot *s, const char *tmp) {
  snprintf(s->dir, sizeof s->dir, "%s/kladder-fuzz-XXXXXX", tmp);
  if (!mkdtemp(s->dir)) {
    fprintf(stderr, "fuzz_cli: mkdtemp in %s: %s\n", tmp, strerror(errno));
    return 0;
  }
  char cwd[4200], err[4200];
  snprintf(cwd, sizeof cwd, "%s/cwd", s->dir);
  snprintf(err, sizeof err, "%s/stderr", s->dir);
  if (mkdir(cwd, 0700) != 0) {
    fprintf(stderr, "fuzz_cli: mkdir %s: %s\n", cwd, strerror(errno));
    return 0;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    perror("fuzz_cli: fork");
    return 0;
  }
  if (pid == 0) {
    /* Its own process group, so that a timeout kills all of it. */
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY), out = open("/dev/null", O_WRONLY);
    int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || fd < 0 || chdir(cwd) != 0 ||
        setenv("KLADDER_MEMORY_LIMIT", s->cmd.limit, 1) != 0)
      _exit(125);
    dup2(in, 0);
    dup2(out, 1);
    dup2(fd, 2);
    execv(s->cmd.argv[0], s->cmd.argv);
    _exit(126);
  }
  setpgid(pid, pid);
  s->pid = pid;
  return 1;
}

/* Print an argument readably: escapes for odd bytes, long ones cut. */
static void print_arg(const char *a) {
  size_t len = strlen(a), shown = len > 48 ? 32 : len;
  putchar(' ');
  putchar('\'');
  for (size_t i = 0; i < shown; i++) {
    unsigned char ch = (unsigned char)a[i];
    if (ch == '\'' || ch == '\\') printf("\\%c", ch);
    else if (ch < 32 || ch > 126) printf("\\x%02x", ch);
    else putchar(ch);
  }
  if (shown < len) printf("...(%zu bytes)", len);
  putchar('\'');
}

/* The first sanitizer line in the child's stderr, or NULL. */
static char *sanitizer_line(const char *path, char *line, size_t size) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char *found = NULL;
  while (fgets(line, (int)size, f)) {
    if (strstr(line, "Sanitizer") || strstr(line, "runtime error:")) {
      line[strcspn(line, "\n")] = '\0';
      found = line;
      break;
    }
  }
  fclose(f);
  return found;
}

/* Judge a finished case: NULL when it passed, else why it failed. */
static const char *judge(slot *s, int status, int timed_out, char *why,
                         size_t size) {
  char err[4200], line[512];
  snprintf(err, sizeof err, "%s/stderr", s->dir);
  const char *report = sanitizer_line(err, line, sizeof line);
  if (timed_out) {
    snprintf(why, size, "hang (killed after the time limit)");
  } else if (WIFSIGNALED(status)) {
    snprintf(why, size, "killed by signal %d (%s)", WTERMSIG(status),
             strsignal(WTERMSIG(status)));
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == ASAN_EXIT) {
    snprintf(why, size, "AddressSanitizer report (exit %d): %.300s", ASAN_EXIT,
             report ? report : "");
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == UBSAN_EXIT) {
    snprintf(why, size, "UndefinedBehaviorSanitizer report (exit %d): %.300s",
             UBSAN_EXIT, report ? report : "");
  } else if (WIFEXITED(status) && WEXITSTATUS(status) > 3) {
    snprintf(why, size, "exit code %d, outside 0-3", WEXITSTATUS(status));
  } else if (report) {
    snprintf(why, size, "sanitizer output on stderr: %.300s", report);
  } else {
    return NULL;
  }
  return why;
}

static void usage(void) {
  fprintf(stderr, "usage: fuzz_cli KLADDER [--seed S] [--cases N] [--jobs J] "
          "[--timeout SECONDS] [--case K] [--verbose]\n");
  exit(2);
}

static long number_arg(int argc, char **argv, int *i, long min) {
  if (*i + 1 >= argc) usage();
  char *end = NULL;
  errno = 0;
  long v = strtol(argv[++*i], &end, 0);
  if (errno || *end || end == argv[*i] || v < min) usage();
  return v;
}

int main(int argc, char **argv) {
  if (argc < 2) usage();
  const char *kladder = argv[1];
  uint64_t seed = 20261121;
  long cases = 1000, jobs = 2, only = -1;
  double timeout = 30;
  int verbose = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--seed") == 0 && i + 1 < argc) {
      char *end = NULL;
      errno = 0;
      seed = strtoull(argv[++i], &end, 0);
      if (errno || *end || end == argv[i] || argv[i][0] == '-') usage();
    } else if (strcmp(a, "--seed") == 0)
      usage();
    else if (strcmp(a, "--cases") == 0)
      cases = number_arg(argc, argv, &i, 1);
    else if (strcmp(a, "--jobs") == 0)
      jobs = number_arg(argc, argv, &i, 1);
    else if (strcmp(a, "--timeout") == 0)
      timeout = (double)number_arg(argc, argv, &i, 1);
    else if (strcmp(a, "--case") == 0)
      only = number_arg(argc, argv, &i, 0);
    else if (strcmp(a, "--verbose") == 0)
      verbose = 1;
    else
      usage();
  }
  if (jobs > MAX_JOBS) jobs = MAX_JOBS;
  /* Absolute: each case runs in a directory of its own. */
  char *resolved = realpath(argv[1], NULL);
  if (!resolved || access(resolved, X_OK) != 0) {
    fprintf(stderr, "fuzz_cli: %s is not an executable\n", argv[1]);
    return 2;
  }
  kladder = resolved;
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";

  /* Every child inherits these. */
  add_option("ASAN_OPTIONS", "exitcode=86");
  add_option("UBSAN_OPTIONS", "exitcode=87:halt_on_error=1");

  long first = only >= 0 ? only : 0, last = only >= 0 ? only + 1 : cases;
  printf("cli-fuzz: seed %llu, cases %ld to %ld, %ld at a time, %.0f s "
         "each at most, KLADDER_MEMORY_LIMIT=" LIMIT " (mostly)\n",
         (unsigned long long)seed, first, last - 1, jobs, timeout);
  fflush(stdout);

  slot slots[MAX_JOBS];
  memset(slots, 0, sizeof slots);
  long next_case = first, passed = 0, failed = 0, running = 0;
  double started = now();
  while (next_case < last || running > 0) {
    for (long j = 0; j < jobs && next_case < last; j++) {
      slot *s = &slots[j];
      if (s->pid) continue;
      s->index = next_case++;
      make_case(&s->cmd, kladder, seed, s->index);
      if (!start(s, tmp)) return 2;
      s->deadline = now() + timeout;
      running++;
    }
    /* Collect what finished; kill what overran. */
    int progressed = 0;
    for (long j = 0; j < jobs; j++) {
      slot *s = &slots[j];
      if (!s->pid) continue;
      int status = 0, timed_out = 0;
      pid_t got = waitpid(s->pid, &status, WNOHANG);
      if (got == 0 && now() > s->deadline) {
        kill(-s->pid, SIGKILL);
        kill(s->pid, SIGKILL);
        got = waitpid(s->pid, &status, 0);
        timed_out = 1;
      }
      if (got == 0) continue;
      if (got < 0) {
        perror("fuzz_cli: waitpid");
        return 2;
      }
      char why[512];
      const char *fail = judge(s, status, timed_out, why, sizeof why);
      if (fail || verbose) {
        printf("%s case %ld: KLADDER_MEMORY_LIMIT='%s'", fail ? "FAIL" : "ok",
               s->index, s->cmd.limit);
        for (int a = 1; a < s->cmd.argc; a++) print_arg(s->cmd.argv[a]);
        if (fail) printf("\n    %s", fail);
        else if (WIFEXITED(status))
          printf("  -> exit %d, %.2f s", WEXITSTATUS(status),
                 now() - (s->deadline - timeout));
        putchar('\n');
        fflush(stdout);
      }
      if (fail) failed++;
      else passed++;
      remove_tree(s->dir);
      command_free(&s->cmd);
      s->pid = 0;
      running--;
      progressed = 1;
    }
    if (!progressed) {
      struct timespec pause = {0, 5 * 1000 * 1000};
      nanosleep(&pause, NULL);
    }
  }
  printf("cli-fuzz: %.1f s\n", now() - started);
  free(resolved);
  printf("%ld passed, %ld failed\n", passed, failed);
  return failed ? 1 : 0;
}
