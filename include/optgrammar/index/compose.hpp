// Composition of indexing maps.
//
// For a chain  A --op1--> B --op2--> C  the output→input maps are g: C -> B (op2) and
// f: B -> A (op1); the fused map C -> A is  x |-> f(g(x)):
//
//   compose(g, f)   // "first g, then f"
//
// The result has g's dimension variables, g's range variables followed by f's, g's constraints,
// f's constraints with f's d_i replaced by g's results, and one constraint per result of g that
// it lies inside the bounds of f's d_i (the element of B must exist). It is then simplified, so
// that a reshape followed by its inverse composes to the identity.
#pragma once

#include "optgrammar/index/simplify.hpp"

#include <stdexcept>

namespace optgrammar::index {

/// x |-> second(first(x)). Pass the consumer's output→input map first, the producer's second.
/// Throws std::invalid_argument when first's result count differs from second's dimension count.
inline IndexingMap compose(IndexingMap const& first, IndexingMap const& second, bool simplify_result = true) {
  if (first.num_results() != second.num_dims())
    throw std::invalid_argument("compose: the first map has " + std::to_string(first.num_results()) +
                                " results but the second map has " + std::to_string(second.num_dims()) +
                                " dimension variables");
  IndexingMap r;
  r.dims = first.dims;
  r.ranges = first.ranges;
  r.ranges.insert(r.ranges.end(), second.ranges.begin(), second.ranges.end());
  std::vector<AffineExpr> sym_shift;
  for (std::size_t j = 0; j < second.num_ranges(); ++j)
    sym_shift.push_back(sym(static_cast<int>(first.num_ranges() + j)));
  for (auto const& e : second.results) r.results.push_back(substitute(e, first.results, sym_shift));
  r.constraints = first.constraints;
  for (auto const& c : second.constraints)
    r.constraints.push_back({substitute(c.expr, first.results, sym_shift), c.range});
  for (std::size_t i = 0; i < first.num_results(); ++i) r.constraints.push_back({first.results[i], second.dims[i]});
  r.known_empty = first.known_empty || second.known_empty;
  return simplify_result ? simplify(std::move(r)) : r;
}

}  // namespace optgrammar::index
