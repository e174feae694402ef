/* The entry-point user's program: kladder.h and one entry header. */
#include <kladder.h>
#include <kladder-reduce.h>
#include <stdio.h>
int main(void) {
  double x[4] = {1, 2, 3, 4}, sum = 0;
  kl_status st = kl_reduce(NULL, "sum", KL_F64, x, 4, 0, &sum);
  printf("%s %g\n", kl_status_name(st), sum);
  return st == KL_OK && sum == 10 ? 0 : 1;
}
