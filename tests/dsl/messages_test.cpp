// The message catalogue (dsl/messages.hpp) and the texts the constexpr analysis gives: most
// acceptance and rejection checks are static_assert tables here, so they cost one compile and no
// compiler-error parsing; tests/compile_fail keeps only what needs a compiler's diagnostics.
#include "analyzed.hpp"

#include <catch2/catch.hpp>

#include <string_view>

namespace {
using namespace optgrammar::dsl;

// ---- the catalogue ------------------------------------------------------------------------------
static_assert(fault_by_id("tag_not_bound") == Fault::tag_not_bound);
static_assert(fault_by_id("no_such_family") == Fault::none);
static_assert(fault_slots(Fault::tag_not_bound) == 2);
static_assert(fault_slots(Fault::star_replacement) == 1);
static_assert(fault_text(Fault::c_style_cast).id == "c_style_cast");

constexpr bool ids_distinct() {
  constexpr std::size_t n = sizeof(fault_texts) / sizeof(fault_texts[0]);
  for (std::size_t i = 1; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (fault_texts[i].id == fault_texts[j].id || fault_texts[i].text == fault_texts[j].text) return false;
  return true;
}
static_assert(ids_distinct(), "each family has its own name and its own text");

constexpr bool formats(Fault f, std::string_view a, std::string_view b, std::string_view want) {
  Message m;
  const MessageArg args[] = {a, b};
  format_message(m, fault_text(f).text, args, 2);
  return m.view() == want;
}
static_assert(formats(Fault::tag_not_bound, "y", "the constraint",
                      "tag \"y\" is used in the constraint but never bound by the match"));

// ---- the analysis, rule by rule ----------------------------------------------------------------
using namespace optgrammar::dsl::test;

OG_ANALYZED(ok_rule, EARLY + 1, Op("Relu", LET("r", Op("Relu", "x"))), OK, "r")
static_assert(info<ok_rule>().ok);
OG_ANALYZED(ok_minus, LATE - 2, Op("Relu", "x"), GT(DIM_OF("x", int32_t(3)), 1), "x")
static_assert(info<ok_minus>().ok && analyzed<ok_minus>::value.pass.priority() == 21048);

// A rule that splits, with rules.hpp alone.
OG_ANALYZED(splits, EARLY, Op("A", "x"), OK, AUTOSPLIT(1, "I", 4, Op("B", TYPICAL_SLICE("x", "I"))))
static_assert(info<splits>().ok && info<splits>().uses_autosplit);
static_assert(!info<ok_rule>().uses_autosplit);

// Whether a rule's outcome may depend on an op's readers: the driver then re-enqueues the op that
// replaces a root, whose readers changed (engine/rewriter.hpp, fill_queue's push_replacement).
static_assert(!info<ok_rule>().reads_uses && !info<ok_minus>().reads_uses);
// TYPICAL_SLICE applies shape functions (AUTOSPLIT_SHAPEFN_APPLY), which may read anything.
static_assert(info<splits>().reads_uses);
OG_ANALYZED(outputs_in_constraint, EARLY, Op("Identity", "x"), EQ(OUTPUTS_OF("x"), 2U), "x")
static_assert(info<outputs_in_constraint>().ok && info<outputs_in_constraint>().reads_uses);
OG_ANALYZED(output_in_replacement, EARLY, Op("Identity", "x"), OK, OUTPUT_OF("x", 1))
static_assert(info<output_in_replacement>().ok && info<output_in_replacement>().reads_uses);
OG_ANALYZED(output_under_select, EARLY, Op("Relu", "x"), OK, SELECT(IS_FLOAT32("x"), "x", OUTPUT_OF("x", 0)))
static_assert(info<output_under_select>().ok && info<output_under_select>().reads_uses);
// An external function may read anything, the uses included.
bool any_depth(optgrammar::Constraint&, optgrammar::OpRef, int) { return true; }
OG_ANALYZED(external_constraint, EARLY, Op("Softmax", "x"), EXTERNAL_CONSTRAINT(any_depth, "x", 32), "x")
static_assert(info<external_constraint>().ok && info<external_constraint>().reads_uses);

OG_ANALYZED(unbound, EARLY, Op("Relu", "x"), EQ(RANK_OF("y"), 4), "x")
static_assert(says<unbound>(Fault::tag_not_bound, "tag \"y\" is used in the constraint but never bound by the match"));
static_assert(info<unbound>().subject.view() == "y");
OG_ANALYZED(c_cast, EARLY, Op("Relu", "x"), GT(DIM_OF("x", (int)3), 1), "x")
static_assert(says<c_cast>(Fault::c_style_cast,
                           "C-style cast '(int)' is not allowed in a rule; write a functional "
                           "cast int(...) or INT(...)/UINT(...)/FLOAT(...)"));
OG_ANALYZED(c_cast_two_words, EARLY, Op("Relu", "x"), GT(DIM_OF("x", (unsigned int)3), 1), "x")
static_assert(info<c_cast_two_words>().fault == Fault::c_style_cast &&
              info<c_cast_two_words>().subject.view() == "unsigned int");
OG_ANALYZED(grouping, EARLY, Op("Relu", "x"), GT((RANK_OF("x")), 1), "x")
static_assert(info<grouping>().fault == Fault::stray_parenthesis);
OG_ANALYZED(pass_number, 3050, Op("Relu", "x"), OK, "x")
static_assert(says<pass_number>(Fault::pass_spec_form, "the pass spec must be a pass name or NAME + N, not \"3050\""));
OG_ANALYZED(pass_unknown, SOON, Op("Relu", "x"), OK, "x")
static_assert(says<pass_unknown>(Fault::unknown_pass, "unknown pass name \"SOON\""));
OG_ANALYZED(let_root, EARLY, LET("r", Op("Relu", "x")), OK, "x")
static_assert(info<let_root>().fault == Fault::let_at_root && info<let_root>().subject.view() == "r");
OG_ANALYZED(and_int, EARLY, Op("Relu", "x"), AND(OK, 1), "x")
static_assert(says<and_int>(Fault::needs_bool, "AND needs bool operands, but operand 2 is int"));
OG_ANALYZED(star, EARLY, Op("Relu", "x"), OK, "*")
static_assert(info<star>().fault == Fault::star_replacement && info<star>().subject.view() == "*");
OG_ANALYZED(modifier_first, EARLY, Op("Relu", "x"), OK, WITH_TYPE(Op("A"), Op("B", "x")))
static_assert(says<modifier_first>(Fault::operand_type,
                                   "WITH_TYPE's first operand must be an existing opref, not an Op construction"));
// a string with a parenthesis is not a cast
OG_ANALYZED(paren_in_string, EARLY, Op("Relu", "x"), OK, Op("f(int)", "x"))
static_assert(info<paren_in_string>().ok);

TEST_CASE("the analysis' message carries the rule's place and the catalogue's text") {
  CHECK(info<unbound>().msg.view() ==
        "rule at t.cpp:1: tag \"y\" is used in the constraint but never bound by the match");
  CHECK(fault_text(info<unbound>().fault).id == "tag_not_bound");
}
}  // namespace
