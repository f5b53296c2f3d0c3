// The partition method for long systems, on the host: each system of n rows cut into `pieces`
// contiguous pieces (comm::even_slab), as ranks would hold them. Each piece is reduced alone
// (the modified Thomas algorithm of Laszlo et al., PaScaL_TDMA's): every row i of a piece becomes
// x[i] + a'[i] x[before] + c'[i] x[after] = d'[i], where for its first and last rows `before` and
// `after` are the neighbouring pieces' last and first unknowns, and for the rows between them the
// piece's own first and last. The first and last rows of all pieces form a tridiagonal interface
// system of 2 x pieces rows, solved by the Thomas algorithm; each piece then substitutes its
// first and last unknowns into its other rows. The reference a solve across ranks is judged by
// (bit for bit on the same cut), itself judged by the gold (tests/tridiag_kinds_test.cpp).
// Host-only API.
#pragma once

#include <cstdint>
#include <vector>

#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

// One piece reduced: a', c', d' of each of its rows.
struct ReducedPiece {
  std::vector<double> a, c, d;
};

// Reduces rows [0, m) of one piece (a[0] couples the row before the piece, c[m-1] the row after
// it), m >= 2, in double. Throws NumericalError (system 0) on a zero pivot or a non-finite value.
ReducedPiece reduce_piece(const double* a, const double* b, const double* c, const double* d,
                          std::int64_t m);

// The interface of one system: rows 2p and 2p + 1 are piece p's first and last rows (a', c',
// d'), their diagonal 1, ia[0] and ic[last] outside the system (unread). Solved by the Thomas
// algorithm in double: the values of every piece's first and last unknowns, in the same order.
// NumericalError (system 0) on a zero pivot.
std::vector<double> solve_interface(const std::vector<double>& ia, const std::vector<double>& ic,
                                    const std::vector<double>& id);

// The same for a ring (periodic systems): ia[0] couples the last interface row's unknown and
// ic[last] the first's (with one piece, two rows, each then couples the other twice). By
// Sherman-Morrison on two Thomas solves, as the periodic gold (kinds.cpp) with gamma = -1.
std::vector<double> solve_periodic_interface(const std::vector<double>& ia,
                                             const std::vector<double>& ic,
                                             const std::vector<double>& id);

// Piece `r`'s unknowns from its first and last ones (the interface's values), into x[0, rows).
// NumericalError (system 0) naming row first_row + j for a non-finite value.
void substitute_piece(const ReducedPiece& r, double first, double last, std::int64_t first_row,
                      double* x);

// Every system of the batch (contiguous) by the partition method on `pieces` pieces, in double.
// InputError naming "pieces" when a piece would hold fewer than two rows; NumericalError as
// solve_gold.
template <class T>
std::vector<double> solve_partitioned(const Batch<T>& batch, int pieces);

// The same on any cut: rows[p] rows in piece p, in order, summing to n, each at least 2 (an
// InputError naming "pieces" otherwise). The reference of a cut among ranks and, on the device,
// of each rank's rows cut again (long.hpp). `periodic`: each system is a ring (kinds.hpp's
// periodic kind, in a Batch's arrays): a[0] couples x[n-1] and c[n-1] couples x[0], so piece 0
// and the last piece couple each other and the interface is a ring (solve_periodic_interface).
template <class T>
std::vector<double> solve_partitioned(const Batch<T>& batch, const std::vector<std::int64_t>& rows,
                                      bool periodic = false);

}  // namespace parasol::tridiag
