/* Matrix Market files (matrix-market.c), for any workload that takes one:
 * a strict reader of coordinate files (a sparse matrix, into CSR) and of
 * array files of one column (a vector), and a writer of the latter. It
 * refuses every file it cannot take with KL_USAGE and one line naming the
 * file (by the caller's kind: "matrix file 'A.mtx', line 7: ..."), the
 * line and the fault. One value parser reads every number of either
 * format: decimal only, finite (NaN, Inf and a value past a double's
 * range are refused), an 'integer' field's values integers, a 'pattern'
 * entry's value 1. Comments and blank lines are taken anywhere after the
 * header; a data line may not pass 4 MiB. Numbers are read in the C
 * locale whatever the program's.
 *
 * scan reads and checks the whole file, and keeps its verdict (the
 * counts, or the refusal) for the last file scanned on the thread, per
 * format: its path, size, modification time and inode, the rules (by
 * address) and a vector's rows. load reads the file again into the
 * caller's arrays, KL_IO where it changed since its scan; nothing of a
 * file's size outlives a call. */
#ifndef KL_MATRIX_MARKET_H
#define KL_MATRIX_MARKET_H

#include <stdint.h>
#include <stdio.h>

#include "kladder.h"

/* What a caller takes beyond the format (kl_mm_rules.checks). */
enum {
  KL_MM_VALUES = 1, /* values: a 'pattern' file is refused */
  /* What a reader can see of a symmetric positive definite matrix: square,
   * symmetric (stored so, or general with A(i,j) = A(j,i) bitwise), every
   * diagonal entry given and positive, every 2x2 principal minor
   * positive. */
  KL_MM_SPD = 2
};

/* A caller's rules, one constant per kind of file it reads. */
typedef struct kl_mm_rules {
  const char *kind; /* what messages call the file: "matrix" */
  const char *who;  /* who reads it, named where a header is refused */
  unsigned checks;  /* KL_MM_VALUES | KL_MM_SPD */
} kl_mm_rules;

enum { KL_MM_REAL, KL_MM_INTEGER, KL_MM_PATTERN };

/* A coordinate file as scanned. */
typedef struct kl_mm_info {
  int64_t rows, columns;
  int64_t nnz;   /* the CSR's: both triangles of symmetric storage */
  int symmetric; /* 'symmetric' storage, else 'general' */
  int field;     /* KL_MM_REAL, KL_MM_INTEGER or KL_MM_PATTERN */
} kl_mm_info;

/* '%%MatrixMarket matrix coordinate real|integer|pattern
 * general|symmetric', the size line 'rows columns entries', then an entry
 * a line, 'i j value' (1-based; 'i j' in a pattern file). No entry given
 * twice; explicit zeros are kept and counted; symmetric storage is square
 * and gives either triangle, each pair once; rows and columns at most
 * INT32_MAX. load fills CSR arrays of exactly scan's counts (offsets rows
 * + 1, columns and values nnz), each row sorted by column. */
kl_status kl__mm_scan(const kl_mm_rules *rules, const char *path,
                      kl_mm_info *info);
kl_status kl__mm_load(const kl_mm_rules *rules, const char *path,
                      const kl_mm_info *info, int64_t *offsets,
                      int32_t *columns, double *values);

/* A vector: '%%MatrixMarket matrix array real|integer general', the size
 * line 'rows 1' (rows as asked: "5 rows, but the matrix has 3"), then the
 * values in order, one a line. scan checks the file, load reads the
 * values into out. write writes x so, with 17 significant digits (each
 * value reads back the same), each line of `comment` (or none, NULL) a
 * comment line; a write error is the caller's to find (ferror). */
kl_status kl__mm_vector_scan(const kl_mm_rules *rules, const char *path,
                             int64_t rows);
kl_status kl__mm_vector_load(const kl_mm_rules *rules, const char *path,
                             int64_t rows, double *out);
void kl__mm_vector_write(FILE *f, const double *x, int64_t rows,
                         const char *comment);

#endif
