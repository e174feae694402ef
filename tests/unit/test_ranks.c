/* The ranks' helpers that an NCCL rung's setup is built on (ranks.c), over
 * a kl_ranks of threads in one process (its allreduce a shared table and
 * a barrier): rank 0's bytes on every rank (kl__ranks_broadcast: the
 * communicator's id), every rank's words on every rank (kl__ranks_gather:
 * each rank's GPU), in one piece and in several, with a rank that holds
 * no table of its own, and the first two ranks alike (kl__ranks_alike:
 * two ranks on one GPU). Every rank makes as many collectives. And the
 * shell of a box (kl__box_around, an overlapped rung's last step): every
 * point of the range outside its inner part in exactly one slab, none
 * inside, no empty slab. Memory the ranks share (kl__ranks_share) asked
 * of a kl_ranks that has it and of one that has not. The grid of ranks
 * (kl__rank_grid): the fewest points exchanged by the busiest rank, z
 * cuts first among equals, and a grid too small refused. No GPU, no
 * MPI. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "expect.h"

enum { MAX_RANKS = 8, MAX_VALUES = 1024 };

/* What the ranks share: a slot per rank and a barrier. */
typedef struct shared {
  int count;
  pthread_barrier_t barrier;
  uint64_t slot[MAX_RANKS][MAX_VALUES]; /* 8 bytes a value, aligned */
} shared;

typedef struct fake {
  shared *all;
  int rank;
  int collectives; /* made by this rank */
  int refused;     /* a call the fake cannot make */
} fake;

/* Value i of a rank's slot, and of the result, through memcpy: the
 * slots hold the values' bytes whatever their type. */
static double get(kl_type t, const void *v, int i) {
  const char *at = (const char *)v + (size_t)i * kl_type_size(t);
  int32_t i32;
  int64_t i64;
  double f64;
  switch (t) {
  case KL_I32: memcpy(&i32, at, sizeof i32); return i32;
  case KL_I64: memcpy(&i64, at, sizeof i64); return (double)i64;
  default: memcpy(&f64, at, sizeof f64); return f64;
  }
}

static void put(kl_type t, void *v, int i, double x) {
  char *at = (char *)v + (size_t)i * kl_type_size(t);
  const int32_t i32 = (int32_t)x;
  const int64_t i64 = (int64_t)x;
  if (t == KL_I32) memcpy(at, &i32, sizeof i32);
  else if (t == KL_I64) memcpy(at, &i64, sizeof i64);
  else memcpy(at, &x, sizeof x);
}

static uint64_t get64(const void *v, int i) {
  uint64_t x;
  memcpy(&x, (const char *)v + (size_t)i * sizeof x, sizeof x);
  return x;
}

static void allreduce(void *context, void *values, int n, kl_type type,
                      kl_ranks_op op) {
  fake *f = context;
  shared *s = f->all;
  f->collectives++;
  const size_t es = kl_type_size(type);
  if (n > MAX_VALUES || es > 8 ||
      (type != KL_U64 && type != KL_I64 && type != KL_I32 && type != KL_F64))
    f->refused = 1;
  const size_t bytes = (size_t)(n > MAX_VALUES ? MAX_VALUES : n) * es;
  memcpy(s->slot[f->rank], values, bytes);
  pthread_barrier_wait(&s->barrier);
  uint64_t out[MAX_VALUES];
  for (int i = 0; i < n && i < MAX_VALUES && !f->refused; i++) {
    if (type == KL_U64) {
      uint64_t acc = get64(s->slot[0], i);
      for (int r = 1; r < s->count; r++) {
        const uint64_t x = get64(s->slot[r], i);
        acc = op == KL_RANKS_SUM ? acc + x
              : op == KL_RANKS_MIN ? (x < acc ? x : acc)
                                   : (x > acc ? x : acc);
      }
      memcpy((char *)out + (size_t)i * sizeof acc, &acc, sizeof acc);
      continue;
    }
    double acc = get(type, s->slot[0], i);
    for (int r = 1; r < s->count; r++) {
      const double x = get(type, s->slot[r], i);
      acc = op == KL_RANKS_SUM ? acc + x
            : op == KL_RANKS_MIN ? (x < acc ? x : acc)
                                 : (x > acc ? x : acc);
    }
    put(type, out, i, acc);
  }
  /* Every rank has read every slot before any writes the next. */
  pthread_barrier_wait(&s->barrier);
  if (!f->refused) memcpy(values, out, bytes);
}

/* What one rank checks, and found. */
typedef struct job {
  fake f;
  kl_ranks ranks;
  kl_plan plan;
  int bad;
} job;

#define CHECK(j, cond)                                                        \
  do {                                                                        \
    if (!(cond)) {                                                            \
      printf("FAILED rank %d, %s:%d: %s\n", (j)->f.rank, __FILE__, __LINE__,  \
             #cond);                                                          \
      (j)->bad++;                                                             \
    }                                                                         \
  } while (0)

static unsigned char pattern(size_t i) {
  return (unsigned char)(i * 131 + 7);
}

/* kl__ranks_broadcast of `size` bytes: rank 0's everywhere. */
static void broadcast(job *j, size_t size) {
  unsigned char *b = malloc(size);
  if (!b) {
    j->bad++;
    return;
  }
  for (size_t i = 0; i < size; i++)
    b[i] = j->f.rank == 0 ? pattern(i) : (unsigned char)(j->f.rank + i);
  kl__ranks_broadcast(&j->plan, b, size);
  size_t wrong = 0;
  for (size_t i = 0; i < size; i++) wrong += b[i] != pattern(i);
  CHECK(j, wrong == 0);
  free(b);
}

static uint64_t word(int rank, int w) {
  return ((uint64_t)(rank + 1) << 40) ^ (uint64_t)(w * 2654435761u);
}

/* kl__ranks_gather of `words` words; rank `without` holds no table. */
static void gather(job *j, int words, int without) {
  const int count = j->ranks.count;
  uint64_t mine[MAX_VALUES];
  for (int w = 0; w < words; w++) mine[w] = word(j->f.rank, w);
  uint64_t *all = j->f.rank == without
                      ? NULL
                      : calloc((size_t)count * (size_t)words, sizeof *all);
  if (j->f.rank != without && !all) {
    j->bad++;
    return;
  }
  kl__ranks_gather(&j->plan, mine, words, all);
  if (all) {
    int wrong = 0;
    for (int r = 0; r < count; r++)
      for (int w = 0; w < words; w++)
        wrong += all[(size_t)r * (size_t)words + (size_t)w] != word(r, w);
    CHECK(j, wrong == 0);
  }
  free(all);
}

/* The devices of `count` ranks, as a rung's setup gathers them: each
 * rank's (host, bus id) of the table `ids`; the first pair alike. */
static void alike(job *j, const int *ids, int want_i, int want_j) {
  const int count = j->ranks.count;
  uint64_t mine[3] = {0xfeed, (uint64_t)ids[j->f.rank], 0};
  uint64_t all[3 * MAX_RANKS];
  kl__ranks_gather(&j->plan, mine, 3, all);
  int pair[2] = {-1, -1};
  const int found = kl__ranks_alike(all, count, 3, pair);
  if (want_i < 0) {
    CHECK(j, !found);
  } else {
    CHECK(j, found && pair[0] == want_i && pair[1] == want_j);
  }
}

static void *rank_main(void *arg) {
  job *j = arg;
  broadcast(j, 128); /* an NCCL id: NCCL_UNIQUE_ID_BYTES */
  broadcast(j, 131); /* not whole words */
  broadcast(j, 9000); /* several pieces */
  gather(j, 6, -1);
  gather(j, 200, -1); /* two ranks a piece: several pieces */
  gather(j, 6, 1);    /* rank 1 without a table */
  gather(j, 512, 2);
  if (j->ranks.count == 5) {
    alike(j, (const int[]){10, 11, 12, 13, 14}, -1, -1);
    alike(j, (const int[]){10, 11, 12, 11, 14}, 1, 3);
    alike(j, (const int[]){10, 11, 12, 11, 12}, 1, 3);
    alike(j, (const int[]){10, 11, 11, 12, 10}, 0, 4);
    alike(j, (const int[]){7, 7, 7, 7, 7}, 0, 1);
  }
  return NULL;
}

/* count ranks, each on a thread, each checking the above. */
static void ranks_of(int count) {
  static shared s;
  job jobs[MAX_RANKS];
  pthread_t threads[MAX_RANKS];
  memset(&s, 0, sizeof s);
  s.count = count;
  pthread_barrier_init(&s.barrier, NULL, (unsigned)count);
  for (int r = 0; r < count; r++) {
    job *j = &jobs[r];
    memset(j, 0, sizeof *j);
    j->f = (fake){&s, r, 0, 0};
    j->ranks.size = sizeof j->ranks;
    j->ranks.rank = r;
    j->ranks.count = count;
    j->ranks.context = &j->f;
    j->ranks.allreduce = allreduce;
    j->plan.ranks = &j->ranks;
  }
  for (int r = 0; r < count; r++)
    EXPECT(pthread_create(&threads[r], NULL, rank_main, &jobs[r]) == 0);
  for (int r = 0; r < count; r++) pthread_join(threads[r], NULL);
  pthread_barrier_destroy(&s.barrier);
  for (int r = 0; r < count; r++) {
    EXPECT(jobs[r].bad == 0);
    EXPECT(!jobs[r].f.refused);
    /* The same collectives on every rank, the one without a table too. */
    EXPECT(jobs[r].f.collectives == jobs[0].f.collectives);
  }
  printf("%d ranks: %d collectives each\n", count, jobs[0].f.collectives);
}

/* A range of up to 5 points a side inside a 7^3 grid, each point's
 * slabs counted. */
enum { G = 7 };
typedef struct cover {
  int hits[G][G][G];
  int empty;
} cover;

static void count_slab(void *ctx, const int64_t lo[3], const int64_t hi[3]) {
  cover *c = (cover *)ctx;
  if (hi[0] <= lo[0] || hi[1] <= lo[1] || hi[2] <= lo[2]) c->empty++;
  for (int64_t k = lo[2]; k < hi[2]; k++)
    for (int64_t j = lo[1]; j < hi[1]; j++)
      for (int64_t i = lo[0]; i < hi[0]; i++) c->hits[k][j][i]++;
}

static int inside(int64_t v, int64_t lo, int64_t hi) {
  return v >= lo && v < hi;
}

/* Every inner range of each axis, 0 or 1 point in from either end (the
 * sides with a neighbour or without), and ranges of 1 to 5 points. */
static void shells(void) {
  int cases = 0;
  for (int len = 1; len <= 5; len++)
    for (int sides = 0; sides < 64; sides++) {
      /* y's length (1 to 5 points) unlike x's and z's. */
      const int64_t lo[3] = {1, 1, 1},
                    hi[3] = {1 + len, 2 + (len + 1) % 5, 1 + len};
      int64_t in_lo[3], in_hi[3];
      for (int a = 0; a < 3; a++) {
        in_lo[a] = lo[a] + (sides >> (2 * a) & 1);
        in_hi[a] = hi[a] - (sides >> (2 * a + 1) & 1);
      }
      static cover c;
      memset(&c, 0, sizeof c);
      kl__box_around(lo, hi, in_lo, in_hi, count_slab, &c);
      EXPECT(c.empty == 0);
      int bad = 0;
      for (int64_t k = 0; k < G; k++)
        for (int64_t j = 0; j < G; j++)
          for (int64_t i = 0; i < G; i++) {
            const int in_range = inside(i, lo[0], hi[0]) &&
                                 inside(j, lo[1], hi[1]) &&
                                 inside(k, lo[2], hi[2]);
            const int in_inner = inside(i, in_lo[0], in_hi[0]) &&
                                 inside(j, in_lo[1], in_hi[1]) &&
                                 inside(k, in_lo[2], in_hi[2]);
            bad += c.hits[k][j][i] != (in_range && !in_inner);
          }
      EXPECT(bad == 0);
      cases++;
    }
  printf("shells: %d ranges\n", cases);
}

/* Memory the ranks share (kl__ranks_share and its pair), through a fake
 * whose parts are rows of one table: called where the kl_ranks has all
 * three functions and its size reaches them, never otherwise (the parts
 * then NULL, the handle NULL, nothing to give back). */
static char table[3][64];
static int made[3]; /* share, shared_sync, unshare calls */

static void *fake_share(void *context, size_t bytes, void **parts) {
  (void)context;
  made[0]++;
  for (int r = 0; r < 3 && bytes <= sizeof table[r]; r++)
    parts[r] = r == 1 ? NULL : table[r]; /* rank 1 on another host */
  return table;
}
static void fake_sync(void *context, void *handle) {
  (void)context;
  made[1] += handle == table;
}
static void fake_unshare(void *context, void *handle) {
  (void)context;
  made[2] += handle == table;
}

static void sharing(void) {
  kl_ranks r;
  memset(&r, 0, sizeof r);
  r.size = sizeof r;
  r.count = 3;
  kl_plan p;
  memset(&p, 0, sizeof p);
  p.ranks = &r;
  void *parts[3] = {table, table, table};
  /* No share: nothing shared, the parts NULL. */
  EXPECT(!kl__ranks_shares(&p));
  EXPECT(kl__ranks_share(&p, 64, parts) == NULL);
  EXPECT(!parts[0] && !parts[1] && !parts[2]);
  /* Shared, rank 1 elsewhere. */
  r.share = fake_share;
  r.shared_sync = fake_sync;
  r.unshare = fake_unshare;
  EXPECT(kl__ranks_shares(&p));
  void *h = kl__ranks_share(&p, 64, parts);
  EXPECT(h == table && parts[0] == table[0] && !parts[1] &&
         parts[2] == table[2]);
  kl__ranks_shared_sync(&p, h);
  kl__ranks_unshare(&p, h);
  EXPECT(made[0] == 1 && made[1] == 1 && made[2] == 1);
  /* A kl_ranks of a caller built before the three (its size stops before
   * them): never called. */
  r.size = offsetof(kl_ranks, share);
  EXPECT(!kl__ranks_shares(&p));
  EXPECT(kl__ranks_share(&p, 64, parts) == NULL && !parts[0] && !parts[2]);
  kl__ranks_shared_sync(&p, table);
  kl__ranks_unshare(&p, table);
  /* One rank (the plan's ranks NULL): nothing. */
  p.ranks = NULL;
  EXPECT(kl__ranks_share(&p, 64, parts) == NULL && !parts[0]);
  EXPECT(made[0] == 1 && made[1] == 1 && made[2] == 1);
  printf("shared memory: made where the ranks have it, else not\n");
}

/* The grid of count ranks over ext, per_rank or shared, is want. */
static int grid_is(int count, int64_t x, int64_t y, int64_t z, int per_rank,
                   int w0, int w1, int w2) {
  const int64_t ext[3] = {x, y, z};
  int d[3] = {0, 0, 0};
  if (kl__rank_grid(count, ext, per_rank, d) != KL_OK) return 0;
  if (d[0] == w0 && d[1] == w1 && d[2] == w2) return 1;
  printf("  %d ranks over %lldx%lldx%lld%s: %dx%dx%d\n", count, (long long)x,
         (long long)y, (long long)z, per_rank ? " each" : "", d[0], d[1],
         d[2]);
  return 0;
}

static void rank_grids(void) {
  /* Weak scaling (a box of ext each): slabs along z, two faces a rank at
   * most, where 2 x 2 x 2 would give three and 1 x 2 x 2 as many. */
  EXPECT(grid_is(1, 510, 510, 510, 1, 1, 1, 1));
  EXPECT(grid_is(2, 510, 510, 510, 1, 1, 1, 2));
  EXPECT(grid_is(4, 510, 510, 510, 1, 1, 1, 4));
  EXPECT(grid_is(8, 254, 254, 254, 1, 1, 1, 8));
  EXPECT(grid_is(7, 9, 9, 9, 1, 1, 1, 7));
  /* A box long in z: its z faces are the smallest; short in z: the y
   * faces are (x, z planes) and the ranks go along y. */
  EXPECT(grid_is(4, 64, 64, 8, 1, 1, 4, 1));
  /* Strong (the grid shared): the least exchanged by the largest box. */
  EXPECT(grid_is(4, 1022, 1022, 1022, 0, 1, 2, 2));
  EXPECT(grid_is(8, 1022, 1022, 1022, 0, 2, 2, 2));
  EXPECT(grid_is(2, 1022, 1022, 1022, 0, 1, 1, 2));
  EXPECT(grid_is(3, 31, 15, 7, 0, 3, 1, 1));
  EXPECT(grid_is(4, 4, 38, 19, 0, 1, 2, 2));
  /* Every rank a plane along each axis, or refused with a reason. */
  int d[3];
  const int64_t thin[3] = {3, 3, 1};
  EXPECT(kl__rank_grid(2, thin, 0, d) == KL_OK && d[2] == 1);
  EXPECT(kl__rank_grid(16, thin, 0, d) == KL_USAGE &&
         strstr(kl_last_error(), "cannot split"));
  printf("rank grids: slabs when weak, the least exchange when strong\n");
}

int main(void) {
  rank_grids();
  shells();
  sharing();
  /* One rank (the plan's ranks NULL): nothing moves, no collective. */
  kl_plan one;
  memset(&one, 0, sizeof one);
  unsigned char id[16] = {1, 2, 3};
  kl__ranks_broadcast(&one, id, sizeof id);
  EXPECT(id[0] == 1 && id[2] == 3 && id[3] == 0);
  const uint64_t mine[2] = {5, 6};
  uint64_t all[2] = {0, 0};
  kl__ranks_gather(&one, mine, 2, all);
  EXPECT(all[0] == 5 && all[1] == 6);
  int pair[2];
  EXPECT(!kl__ranks_alike(all, 1, 2, pair));

  ranks_of(2);
  ranks_of(5);
  printf("%d passed, %d failed\n", passes, failures);
  return failures != 0;
}
