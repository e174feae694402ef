/* Ranks (kl_options.ranks): the collectives the harness makes when a run
 * spans several processes. Each is a no-op for one rank, so a run without
 * ranks makes no call at all. The rule that keeps ranks from waiting on
 * each other forever: every rank makes the same collectives in the same
 * order, so a rank that fails (a check, an allocation, a device error)
 * still makes the ones left in the step it failed in, and the step's
 * agreement carries the failure to the others. */
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

kl_status kl__ranks_agree(const kl_ranks *r, kl_status st) {
  if (!several(r)) return st;
  char message[512];
  message[0] = '\0';
  if (st != KL_OK)
    snprintf(message, sizeof message, "rank %d: %s", r->rank,
             kl_last_error()[0] ? kl_last_error() : kl_status_name(st));
  const int code = r->agree(r->context, (int)st, message, sizeof message);
  if (code == 0) return KL_OK;
  if (code < 0 || code >= KL_STATUS_COUNT)
    return KL_FAIL(KL_DEVICE, "ranks: an unknown status %d from another "
                   "rank", code);
  /* The lowest failing rank's message, on every rank (its own included:
   * it now names the rank). */
  return kl__usage((kl_status)code, "%s", message);
}
