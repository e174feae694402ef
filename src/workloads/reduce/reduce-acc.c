#include <math.h>
#include <openacc.h>

#include "reduce.h"

/* Two OpenACC reductions of every type and operation. The clause rung
 * leaves the partitioning to the runtime: GCC launches 8448 gangs of 32
 * lanes, reduces each gang's lanes with shuffles, and combines the gangs
 * with a compare-and-swap loop on one address, one gang after another:
 * 12 ms for a sum of doubles whatever its size, where the swaps keep
 * failing; min and max, whose swaps mostly write what is there, pass. The
 * gang rung splits the array into GANGS contiguous pieces, one gang each,
 * reduced across the gang's lanes into a partial of its own, and one gang
 * combines the partials. The result comes to the host as the
 * clause's scalar and is copied into the output buffer.
 *
 * Min and max note NaN in a flag of their own, an | reduction, as the
 * OpenMP rungs do: the clauses' compares drop a NaN. */

/* Gangs of one 32-lane vector, whose lanes GCC reduces with shuffles (a
 * longer vector reduces through a lock that every gang takes in turn:
 * 0.25 ms for 1024 gangs of 256 lanes); 4224 of them, 32 (the most an SM
 * holds) on each of the H100's 132 SMs. */
#define GANGS 4224
#define LANES 32

/* Both reductions of every case: reduce-acc-body.h once per case of
 * reduce-cases.h. */
#define REDUCE_BODY "reduce-acc-body.h"
#include "reduce-cases.h"
#undef REDUCE_BODY

kl_status kl__reduce_acc_clause(const kl_args *a) {
  static const kl__reduce_fn table[3][3] = REDUCE_TABLE(clause);
  return kl__reduce_dispatch(a, table);
}

/* The gangs' partials and NaN flags: 8 bytes and an int per gang. */
kl_status kl__reduce_acc_scratch(kl_plan *p) {
  return kl__plan_scratch(p, REDUCE_PARTIALS, "gang partials", KL_U8,
                          (int64_t)GANGS * (8 + sizeof(int)), KL_MEM_DEVICE,
                          0);
}

kl_status kl__reduce_acc_gangs(const kl_args *a) {
  static const kl__reduce_fn table[3][3] = REDUCE_TABLE(gangs);
  return kl__reduce_dispatch(a, table);
}
