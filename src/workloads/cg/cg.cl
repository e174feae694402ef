/* cg's OpenCL rung (cg-cl.c): the seed's three kernels, in double. w may
 * be x or y in waxpby: no restrict there. */
__kernel void cg_matvec(__global const long *restrict offsets,
                        __global const int *restrict columns,
                        __global const double *restrict values,
                        __global const double *restrict v,
                        __global double *restrict out, const ulong rows) {
  const size_t row = get_global_id(0);
  if (row >= rows) return;
  double sum = 0;
  for (long e = offsets[row]; e < offsets[row + 1]; e++)
    sum += values[e] * v[columns[e]];
  out[row] = sum;
}

__kernel void cg_waxpby(const double alpha, __global const double *x,
                        const double beta, __global const double *y,
                        __global double *w, const ulong n) {
  const size_t i = get_global_id(0);
  if (i < n) w[i] = alpha * x[i] + beta * y[i];
}

/* The dot: each group's partial (a tree in local memory), then one group
 * over the partials into partials[count]; the host reads that one. */
static double group_sum(double mine, __local double *scratch) {
  const size_t l = get_local_id(0);
  scratch[l] = mine;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) scratch[l] += scratch[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return scratch[0];
}

__kernel void cg_dot_partials(__global const double *x,
                              __global const double *y, const ulong n,
                              __global double *restrict partials,
                              __local double *scratch) {
  double acc = 0;
  ITEMS(i, n) acc += x[i] * y[i];
  const double total = group_sum(acc, scratch);
  if (get_local_id(0) == 0) partials[get_group_id(0)] = total;
}

__kernel void cg_dot_final(__global double *partials, const uint count,
                           __local double *scratch) {
  double acc = 0;
  for (size_t i = get_local_id(0); i < count; i += get_local_size(0))
    acc += partials[i];
  const double total = group_sum(acc, scratch);
  if (get_local_id(0) == 0) partials[count] = total;
}

/* opencl-fused (cuda-fused's kernels): Ap = A p with each group's part of
 * p.Ap, and x += alpha p, r -= alpha Ap with each group's part of the new
 * r.r, over the rows in the device type's shape (ITEMS); the host sums
 * the groups' partials. */
__kernel void cg_matvec_dot(__global const long *restrict offsets,
                            __global const int *restrict columns,
                            __global const double *restrict values,
                            __global const double *restrict v,
                            __global double *restrict out, const ulong rows,
                            __global double *restrict partials,
                            __local double *scratch) {
  double acc = 0;
  ITEMS(row, rows) {
    double sum = 0;
    for (long e = offsets[row]; e < offsets[row + 1]; e++)
      sum += values[e] * v[columns[e]];
    out[row] = sum;
    acc += v[row] * sum;
  }
  const double total = group_sum(acc, scratch);
  if (get_local_id(0) == 0) partials[get_group_id(0)] = total;
}

__kernel void cg_update_dot(const double alpha, __global double *restrict x,
                            __global double *restrict r,
                            __global const double *restrict p,
                            __global const double *restrict ap,
                            const ulong n, __global double *restrict partials,
                            __local double *scratch) {
  double acc = 0;
  ITEMS(i, n) {
    x[i] += alpha * p[i];
    const double ri = r[i] - alpha * ap[i];
    r[i] = ri;
    acc += ri * ri;
  }
  const double total = group_sum(acc, scratch);
  if (get_local_id(0) == 0) partials[get_group_id(0)] = total;
}

/* opencl-stream (cuda-csr-stream's SpMV, with p.Ap): a group takes as many
 * rows as it has items at a time and streams their nonzeros through local
 * memory in chunks of STREAM_CHUNK (a -D option), every item loading
 * neighbouring elements, so the matrix is read coalesced whatever the row
 * lengths; then each item adds its row's products from local memory, in
 * the row's order (the same sums as cg_matvec). Every item of a group
 * reaches every barrier: the loops' bounds are the group's. */
__kernel void cg_stream_dot(__global const long *restrict offsets,
                            __global const int *restrict columns,
                            __global const double *restrict values,
                            __global const double *restrict v,
                            __global double *restrict out, const ulong rows,
                            __global double *restrict partials,
                            __local double *scratch,
                            __local double *products) {
  const size_t item = get_local_id(0), size = get_local_size(0);
  double acc = 0;
  for (size_t first = get_group_id(0) * size; first < rows;
       first += get_num_groups(0) * size) {
    const size_t last = min(first + size, (size_t)rows), row = first + item;
    const long begin = offsets[first], end = offsets[last];
    long row_begin = 0, row_end = 0;
    if (row < last) {
      row_begin = offsets[row];
      row_end = offsets[row + 1];
    }
    double sum = 0;
    for (long chunk = begin; chunk < end; chunk += STREAM_CHUNK) {
      const long chunk_end = min(chunk + STREAM_CHUNK, end);
      for (long j = chunk + (long)item; j < chunk_end; j += (long)size)
        products[j - chunk] = values[j] * v[columns[j]];
      barrier(CLK_LOCAL_MEM_FENCE);
      const long lo = max(row_begin, chunk), hi = min(row_end, chunk_end);
      for (long j = lo; j < hi; j++) sum += products[j - chunk];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < last) {
      out[row] = sum;
      acc += v[row] * sum;
    }
  }
  const double total = group_sum(acc, scratch);
  if (item == 0) partials[get_group_id(0)] = total;
}

/* opencl-sell (cuda-sell's SpMV, with p.Ap): the matrix in sliced
 * ELLPACK (cg.h), slices of SELL_HEIGHT rows (a -D option) stored column
 * by column. A work-item takes a row, so the items of a slice read
 * neighbouring elements of each of its columns: the loads coalesce with
 * no local memory and no barrier but group_sum's. A group takes a run of
 * whole tiles of its size in rows, in address order, and each item
 * SELL_UNROLL entries of its row at a time, in two chains of additions.
 * A padded entry is 0 at the row's own column. */
#define SELL_UNROLL 9
__kernel void cg_sell_dot(__global const long *restrict slices,
                          __global const int *restrict columns,
                          __global const double *restrict values,
                          __global const double *restrict v,
                          __global double *restrict out, const ulong rows,
                          __global double *restrict partials,
                          __local double *scratch) {
  const size_t size = get_local_size(0), groups = get_num_groups(0);
  const ulong tiles = (rows + size - 1) / size;
  const ulong per = (tiles + groups - 1) / groups;
  const ulong first = get_group_id(0) * per * size;
  const ulong last = min(first + per * size, (ulong)rows);
  double acc = 0;
  for (ulong row = first + get_local_id(0); row < last; row += size) {
    const ulong slice = row / SELL_HEIGHT;
    const long end = slices[slice + 1];
    double even = 0, odd = 0;
    for (long j = slices[slice] + (long)(row % SELL_HEIGHT); j < end;
         j += SELL_UNROLL * SELL_HEIGHT) {
      double value[SELL_UNROLL];
      int column[SELL_UNROLL];
#pragma unroll
      for (int u = 0; u < SELL_UNROLL; u++) {
        const long e = j + u * SELL_HEIGHT;
        value[u] = e < end ? values[e] : 0;
        column[u] = e < end ? columns[e] : 0;
      }
#pragma unroll
      for (int u = 0; u < SELL_UNROLL; u++)
        if (j + u * SELL_HEIGHT < end) {
          if (u % 2) odd += value[u] * v[column[u]];
          else even += value[u] * v[column[u]];
        }
    }
    const double sum = even + odd;
    out[row] = sum;
    acc += v[row] * sum;
  }
  const double total = group_sum(acc, scratch);
  if (get_local_id(0) == 0) partials[get_group_id(0)] = total;
}

/* opencl-sell's setup, once a problem: slice s's entries (its longest
 * row's length times SELL_HEIGHT) into widths[s] (the host sums them into
 * the slice offsets), an item a slice; then row `row` of the CSR matrix
 * into its slice's columns, the rest of the slice's width padded with 0
 * at the row's own column, an item a row. */
__kernel void cg_sell_width(__global const long *restrict offsets,
                            const ulong rows, __global long *restrict widths) {
  const ulong s = get_global_id(0), first = s * SELL_HEIGHT;
  if (first >= rows) return;
  const ulong end = min(first + SELL_HEIGHT, (ulong)rows);
  long width = 0;
  for (ulong row = first; row < end; row++)
    width = max(width, offsets[row + 1] - offsets[row]);
  widths[s] = width * SELL_HEIGHT;
}

__kernel void cg_sell_fill(__global const long *restrict offsets,
                           __global const int *restrict columns,
                           __global const double *restrict values,
                           const ulong rows,
                           __global const long *restrict slices,
                           __global int *restrict sliced_columns,
                           __global double *restrict sliced_values) {
  const ulong row = get_global_id(0);
  if (row >= rows) return;
  const ulong slice = row / SELL_HEIGHT;
  const long end = slices[slice + 1];
  long j = slices[slice] + (long)(row % SELL_HEIGHT);
  for (long e = offsets[row]; e < offsets[row + 1]; e++, j += SELL_HEIGHT) {
    sliced_columns[j] = columns[e];
    sliced_values[j] = values[e];
  }
  for (; j < end; j += SELL_HEIGHT) {
    sliced_columns[j] = (int)row;
    sliced_values[j] = 0;
  }
}
