#include <math.h>
#include <stdlib.h>

#include "reduce.h"

/* One loop per type and operation, the operator a compile-time constant:
 * reduce-omp-body.h once per case of reduce-cases.h. The simd reduction
 * clauses matter: they let the compiler keep several vector accumulators,
 * without which a floating sum is one dependent chain, far slower than
 * memory. */
#define REDUCE_BODY "reduce-omp-body.h"
#include "reduce-cases.h"
#undef REDUCE_BODY

kl_status kl__reduce_omp_clause(const kl_args *a) {
  static const kl__reduce_fn table[3][3] = REDUCE_TABLE(by_clause);
  return kl__reduce_dispatch(a, table);
}

/* One cache line per thread, as scratch of the plan. */
kl_status kl__reduce_omp_scratch(kl_plan *p) {
  return kl__plan_scratch(p, REDUCE_PARTIALS, "thread partials", KL_U8,
                          64 * (int64_t)kl__omp_threads(), KL_MEM_PAGEABLE, 0);
}

kl_status kl__reduce_omp_partials(const kl_args *a) {
  static const kl__reduce_fn table[3][3] = REDUCE_TABLE(by_partials);
  return kl__reduce_dispatch(a, table);
}
