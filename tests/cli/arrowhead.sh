# arrowhead N: on standard output, the arrowhead matrix of N rows in Matrix
# Market symmetric storage: its first row holds all N nonzeros (diagonal
# N, the first column and row 1), the rest of the diagonal 2; diagonally
# dominant, so SPD. Sourced by cg_long_row.sh and cg_sell_matrix.sh, whose
# rungs must take, or stand aside for, one row as long as the matrix.
arrowhead() {
  awk -v n="$1" 'BEGIN {
    print "%%MatrixMarket matrix coordinate real symmetric"
    print n, n, 2 * n - 1
    print 1, 1, n
    for (i = 2; i <= n; i++) { print i, 1, 1; print i, i, 2 }
  }'
}
