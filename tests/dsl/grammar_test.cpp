// The construct records (dsl/grammar.hpp) against the C++ front end: every construct the C++
// front end builds a node for is a record of the grammar, under the same name, allowed where the
// C++ front end allows it.
#include "analyzed.hpp"

#include <optgrammar/dsl/grammar.hpp>

#include <catch2/catch.hpp>

namespace {
using namespace optgrammar::dsl;

constexpr bool internal(std::string_view name) {
  return name.find(' ') != std::string_view::npos;  // "operand tag", "int constant", "function name", ...
}

constexpr bool every_kind_is_a_record() {
  for (int k = 0; k < static_cast<int>(Kind::Count_); ++k) {
    const std::string_view name = kind_name(static_cast<Kind>(k));
    if (!internal(name) && find_construct(name) == nullptr) return false;
  }
  return true;
}
static_assert(every_kind_is_a_record(), "a node kind of the C++ front end is missing from dsl/grammar.hpp");

constexpr bool names_distinct() {
  for (const auto& a : constructs)
    if (find_construct(a.name) != &a) return false;
  return true;
}
static_assert(names_distinct());

static_assert(find_construct("SAME_SHAPE")->min_args == 2 && find_construct("SAME_SHAPE")->places == (in_constraint | in_replacement));
static_assert(find_construct("WITH_SPLIT_HISTORY")->max_args == 3);
static_assert(find_construct("AUTOSPLIT")->places == in_replacement);
static_assert(find_construct("LET")->places == in_match);
static_assert(find_construct("OpMultiOut")->max_args == any_count);

// Where the records say a construct may not appear, the C++ front end rejects it.
using namespace optgrammar::dsl::test;
OG_ANALYZED(let_in_constraint, EARLY, Op("A", "x"), NOT(LET("a", Op("B"))), "x")
static_assert(!info<let_in_constraint>().ok);
OG_ANALYZED(split_in_constraint, EARLY, Op("A", "x"), EQ(gen_ShapeOf("x"), 1), "x")
static_assert(info<split_in_constraint>().fault == Fault::replacement_only);
OG_ANALYZED(property_in_replacement, EARLY, Op("A", "x"), OK, Op("B", "x", gen_ConstScalar_i32(RANK_OF("x"))))
static_assert(info<property_in_replacement>().ok);

TEST_CASE("the construct records cover every name the C++ front end builds") {
  int n = 0;
  for (int k = 0; k < static_cast<int>(Kind::Count_); ++k) n += internal(kind_name(static_cast<Kind>(k))) ? 0 : 1;
  CHECK(n >= 80);
  CHECK(std::size(constructs) >= static_cast<std::size_t>(n));
}
}  // namespace
