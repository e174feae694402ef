#include "map.h"

kl_status kl__map_acc(const kl_args *args) {
  const float *restrict x = args->buffers[MAP_X];
  float *restrict y = args->buffers[MAP_Y];
  const float a = (float)args->plan->constants[MAP_A],
              b = (float)args->plan->constants[MAP_B],
              c = (float)args->plan->constants[MAP_C];
  const int64_t n = args->plan->n;
#pragma acc parallel loop deviceptr(x, y)
  for (int64_t i = 0; i < n; i++) y[i] = a * x[i] * x[i] + b * x[i] + c;
  return KL_OK;
}
