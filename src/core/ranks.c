/* Ranks (kl_options.ranks): the collectives the harness makes when a run
 * spans several processes. Each is a no-op for one rank, so a run without
 * ranks makes no call at all. The rule that keeps ranks from waiting on
 * each other forever: every rank makes the same collectives in the same
 * order, so a rank that fails (a check, an allocation, a device error)
 * still makes the ones left in the step it failed in, and the step's
 * agreement carries the failure to the others. */
#include <math.h>
#include <string.h>

#include "harness.h"

static int several(const kl_ranks *r) { return r && r->count > 1; }

int kl__ranks_count(const kl_ranks *r) { return several(r) ? r->count : 1; }

void kl__ranks_barrier(const kl_ranks *r) {
  if (several(r)) r->barrier(r->context);
}

void kl__ranks_max(const kl_ranks *r, double *values, int n) {
  if (several(r) && n > 0) r->max(r->context, values, n);
}

/* Whether a message already names its rank ("rank 3: ..."): one agreed
 * before, which a later step agrees on again. */
static int names_rank(const char *m) {
  if (strncmp(m, "rank ", 5) != 0) return 0;
  m += 5;
  if (*m < '0' || *m > '9') return 0;
  while (*m >= '0' && *m <= '9') m++;
  return m[0] == ':' && m[1] == ' ';
}

kl_status kl__ranks_agree(const kl_ranks *r, kl_status st) {
  if (!several(r)) return st;
  char message[512];
  message[0] = '\0';
  const char *last = kl_last_error();
  if (st != KL_OK && names_rank(last))
    snprintf(message, sizeof message, "%s", last);
  else if (st != KL_OK)
    snprintf(message, sizeof message, "rank %d: %s", r->rank,
             last[0] ? last : kl_status_name(st));
  const int code = r->agree(r->context, (int)st, message, sizeof message);
  if (code == 0) return KL_OK;
  if (code < 0 || code >= KL_STATUS_COUNT)
    return KL_FAIL(KL_DEVICE, "ranks: an unknown status %d from another "
                   "rank", code);
  /* The lowest failing rank's message, on every rank (its own included:
   * it now names the rank). */
  return kl__usage((kl_status)code, "%s", message);
}

void kl__ranks_collect(const kl_ranks *r, const double *mine, int n,
                      double *all) {
  const int count = kl__ranks_count(r), rank = count > 1 ? r->rank : 0;
  for (int i = 0; i < count * n; i++) all[i] = -HUGE_VAL;
  memcpy(all + (size_t)rank * (size_t)n, mine, sizeof *all * (size_t)n);
  kl__ranks_max(r, all, count * n);
}

/* ---- a distributed workload's ranks ---------------------------------------
 * The plan's ranks are set only where there are several and every
 * collective is there (run.c refuses the others), so these test NULL
 * alone. */

int kl__rank(const kl_plan *p) { return p->ranks ? p->ranks->rank : 0; }

int kl__rank_count(const kl_plan *p) {
  return p->ranks ? p->ranks->count : 1;
}

void kl__share(int64_t n, int rank, int count, int64_t *start, int64_t *len) {
  const int64_t base = n / count, more = n % count;
  *len = base + (rank < more);
  *start = base * rank + (rank < more ? rank : more);
}

/* The points the busiest rank exchanges: along each split axis its two
 * faces (one where the axis has two ranks) of the largest box, per_rank
 * each box ext, else the whole grid ext shared, the first ext % d ranks
 * along an axis one plane more. */
static double exchanged(const int d[3], const int64_t ext[3], int per_rank) {
  double l[3], points = 0;
  for (int a = 0; a < 3; a++)
    l[a] = per_rank ? (double)ext[a] : (double)((ext[a] + d[a] - 1) / d[a]);
  for (int a = 0; a < 3; a++)
    if (d[a] > 1)
      points += (d[a] > 2 ? 2 : 1) * l[(a + 1) % 3] * l[(a + 2) % 3];
  return points;
}

kl_status kl__rank_grid(int count, const int64_t ext[3], int per_rank,
                        int dims[3]) {
  double best = -1;
  for (int a = 1; a <= count; a++) {
    if (count % a) continue;
    for (int b = 1; b <= count / a; b++) {
      if (count / a % b) continue;
      const int d[3] = {a, b, count / a / b};
      /* Each rank at least one plane of points along every axis. */
      if (!per_rank && (d[0] > ext[0] || d[1] > ext[1] || d[2] > ext[2]))
        continue;
      /* Among equals the first: the fewest ranks along x, then along y
       * (a, then b, ascending), so that the faces are planes of z, then
       * of y: rows of whole x lines, not single points. */
      const double points = exchanged(d, ext, per_rank);
      if (best < 0 || points < best) {
        best = points;
        memcpy(dims, d, sizeof d);
      }
    }
  }
  if (best >= 0) return KL_OK;
  return kl__usage(KL_USAGE, "%d ranks cannot split a %lldx%lldx%lld grid "
                   "(each needs a plane along every axis): fewer ranks or a "
                   "larger grid", count, (long long)ext[0], (long long)ext[1],
                   (long long)ext[2]);
}

void kl__rank_coords(int rank, const int dims[3], int coord[3]) {
  coord[0] = rank % dims[0];
  coord[1] = rank / dims[0] % dims[1];
  coord[2] = rank / dims[0] / dims[1];
}

int kl__rank_at(const int dims[3], const int coord[3]) {
  for (int a = 0; a < 3; a++)
    if (coord[a] < 0 || coord[a] >= dims[a]) return -1;
  return coord[0] + dims[0] * (coord[1] + dims[1] * coord[2]);
}

void kl__allreduce(const kl_plan *p, void *values, int n, kl_type type,
                   kl_ranks_op op) {
  if (p->ranks && n > 0)
    p->ranks->allreduce(p->ranks->context, values, n, type, op);
}

/* The non-blocking pair where the caller's kl_ranks has it (its size
 * reaches it and both are set), else the blocking allreduce at the
 * start. */
static int starts(const kl_ranks *r) {
  return KL__RANKS_HAS(r, allreduce_wait) &&
         r->allreduce_start && r->allreduce_wait;
}

void *kl__allreduce_start(const kl_plan *p, void *values, int n,
                          kl_type type, kl_ranks_op op) {
  if (!p->ranks || n < 1) return NULL;
  if (!starts(p->ranks)) {
    p->ranks->allreduce(p->ranks->context, values, n, type, op);
    return NULL;
  }
  return p->ranks->allreduce_start(p->ranks->context, values, n, type, op);
}

void kl__allreduce_wait(const kl_plan *p, void *pending) {
  if (p->ranks && pending && starts(p->ranks))
    p->ranks->allreduce_wait(p->ranks->context, pending);
}

void *kl__exchange_start(const kl_plan *p, const kl_message *m, int count) {
  if (!p->ranks || count < 1) return NULL;
  return p->ranks->exchange_start(p->ranks->context, m, count);
}

void kl__exchange_wait(const kl_plan *p, void *pending) {
  if (p->ranks && pending) p->ranks->exchange_wait(p->ranks->context, pending);
}

/* ---- rank 0's bytes, every rank's words -----------------------------------
 * Made of allreduce sums of 64-bit words (exact: every word but one is
 * zero), in pieces of at most PIECE words, so that a rank needs no memory
 * of its own for them and makes the same collectives whatever it holds:
 * how many follows from the sizes and the count alone. */
enum { PIECE = 512 };

void kl__ranks_broadcast(const kl_plan *p, void *bytes, size_t size) {
  if (!p->ranks) return;
  const int root = kl__rank(p) == 0;
  uint64_t words[PIECE];
  for (size_t at = 0; at < size; at += sizeof words) {
    const size_t n = size - at < sizeof words ? size - at : sizeof words;
    memset(words, 0, sizeof words);
    if (root) memcpy(words, (char *)bytes + at, n);
    kl__allreduce(p, words, (int)((n + 7) / 8), KL_U64, KL_RANKS_SUM);
    memcpy((char *)bytes + at, words, n);
  }
}

void kl__ranks_gather(const kl_plan *p, const uint64_t *mine, int words,
                      uint64_t *all) {
  if (words < 1 || words > PIECE) return;
  if (!p->ranks) {
    if (all) memcpy(all, mine, sizeof *all * (size_t)words);
    return;
  }
  const int count = kl__rank_count(p), rank = kl__rank(p);
  const int per_piece = PIECE / words;
  uint64_t slots[PIECE];
  for (int first = 0; first < count; first += per_piece) {
    const int ranks = count - first < per_piece ? count - first : per_piece;
    memset(slots, 0, sizeof slots);
    if (rank >= first && rank < first + ranks)
      memcpy(slots + (size_t)(rank - first) * (size_t)words, mine,
             sizeof *slots * (size_t)words);
    kl__allreduce(p, slots, ranks * words, KL_U64, KL_RANKS_SUM);
    if (all)
      memcpy(all + (size_t)first * (size_t)words, slots,
             sizeof *slots * (size_t)ranks * (size_t)words);
  }
}

int kl__ranks_alike(const uint64_t *all, int count, int words, int pair[2]) {
  const size_t bytes = sizeof *all * (size_t)words;
  for (int i = 0; i < count; i++)
    for (int j = i + 1; j < count; j++)
      if (memcmp(all + (size_t)i * (size_t)words,
                 all + (size_t)j * (size_t)words, bytes) == 0) {
        pair[0] = i;
        pair[1] = j;
        return 1;
      }
  return 0;
}

void kl__phase(const kl_args *a, int k, double seconds) {
  if (a->phase_seconds && k >= 0 && k < KL_MAX_PHASES)
    a->phase_seconds[k] += seconds;
}

/* Whether a kl_ranks has what the distributed workloads call. */
int kl__ranks_distributes(const kl_ranks *r) {
  return r && KL__RANKS_HAS(r, exchange_wait) &&
         r->allreduce && r->exchange_start && r->exchange_wait;
}

void kl__ranks_sum(const kl_ranks *r, double *values, int n) {
  if (!several(r) || n < 1) return;
  if (kl__ranks_distributes(r)) {
    r->allreduce(r->context, values, n, KL_F64, KL_RANKS_SUM);
    return;
  }
  r->max(r->context, values, n);
  for (int i = 0; i < n; i++) values[i] *= r->count;
}

int kl__ranks_device_memory(const kl_plan *p) {
  const kl_ranks *r = p->ranks;
  return r && KL__RANKS_HAS(r, device_memory) &&
         r->device_memory;
}

/* Shared memory, where the kl_ranks has all three of its functions. */
int kl__ranks_shares(const kl_plan *p) {
  const kl_ranks *r = p->ranks;
  return r && KL__RANKS_HAS(r, unshare) && r->share && r->shared_sync &&
         r->unshare;
}

kl_status kl__ranks_agreed(const kl_plan *p, kl_status st) {
  return kl__ranks_agree(p->ranks, st);
}

void *kl__ranks_share(const kl_plan *p, size_t bytes, void **parts) {
  const int count = kl__rank_count(p);
  for (int i = 0; parts && i < count; i++) parts[i] = NULL;
  if (!kl__ranks_shares(p)) return NULL;
  return p->ranks->share(p->ranks->context, bytes, parts);
}

void kl__ranks_shared_sync(const kl_plan *p, void *handle) {
  if (handle && kl__ranks_shares(p))
    p->ranks->shared_sync(p->ranks->context, handle);
}

void kl__ranks_unshare(const kl_plan *p, void *handle) {
  if (handle && kl__ranks_shares(p))
    p->ranks->unshare(p->ranks->context, handle);
}
