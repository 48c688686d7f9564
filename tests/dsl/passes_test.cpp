// The pass table (dsl/passes.hpp) and how a rule's pass spec is read from it (dsl/words.hpp's
// pass_of_text), as static_assert tables (compiling this file is the test).
#include <optgrammar/dsl/passes.hpp>
#include <optgrammar/dsl/words.hpp>

#include <string_view>

namespace {
using optgrammar::pass_names;
using optgrammar::pass_priority;
using optgrammar::dsl::pass_of_text;

constexpr bool names_distinct() {
  for (std::size_t i = 0; i < std::size(pass_names); ++i)
    for (std::size_t j = i + 1; j < std::size(pass_names); ++j)
      if (pass_names[i].name == pass_names[j].name) return false;
  return true;
}
static_assert(names_distinct(), "a pass name is listed once");

constexpr bool priorities_from_table() {
  for (const auto& p : pass_names)
    if (pass_priority(p.name) != p.priority || p.priority < 0) return false;
  return true;
}
static_assert(priorities_from_table());
static_assert(pass_priority("EARLY") == 3050 && pass_priority("GRAPH_CLEANUP") == pass_priority("PRE_OPTIMIZATION"));
static_assert(pass_priority("SOON") == -1 && pass_priority("") == -1 && pass_priority("early") == -1);

// A spec as written: NAME, NAME + N, NAME - N (spaces anywhere between), nothing else.
static_assert(pass_of_text("EARLY").known && pass_of_text("EARLY").priority() == 3050);
static_assert(pass_of_text("EARLY + 1").priority() == 3051 && pass_of_text("EARLY+1").known);
static_assert(pass_of_text(" LATE -  2 ").known && pass_of_text(" LATE -  2 ").priority() == 21048);
static_assert(pass_of_text("EARLY + 1").name == std::string_view("EARLY"));
static_assert(!pass_of_text("SOON").known, "an unknown name");
static_assert(!pass_of_text("3050").known, "a number without a name");
static_assert(!pass_of_text("EARLY +").known && !pass_of_text("EARLY 1").known,
              "an offset without its sign, or a sign without it");
static_assert(!pass_of_text("EARLY + 1 + 1").known && !pass_of_text("EARLY + x").known);
static_assert(!pass_of_text("EARLY + 1234567890").known, "at most nine digits");
}  // namespace
