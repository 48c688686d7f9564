// dsl/words.hpp: C++ values as rule nodes, the words of regular form, and the names defined by
// expansion, built at compile time from their records' texts (dsl/grammar.hpp).
#include <optgrammar/rules.hpp>

#include <string_view>
#include <type_traits>

namespace {
using namespace optgrammar::dsl;
using optgrammar::DType;
using W = words;

// C++ values inside a rule.
static_assert(std::is_same_v<detail::node_t<char[2]>, Node<Kind::Tag>>);
static_assert(std::is_same_v<detail::node_t<int>, Node<Kind::Int>>);
static_assert(std::is_same_v<detail::node_t<unsigned>, Node<Kind::Size>>);
static_assert(std::is_same_v<detail::node_t<float>, Node<Kind::Float>>);
static_assert(std::is_same_v<detail::node_t<bool>, Node<Kind::Bool>>);
static_assert(std::is_same_v<detail::node_t<DType>, Node<Kind::DTypeConst>>);
static_assert(detail::to_node(0.1).leaf.f == static_cast<double>(0.1f));  // rounded to float, as the engine reads it

// Words of regular form: `named` keeps its string, the others their operands in order.
static_assert(W::OPTION_INT("n").leaf.str == std::string_view("n"));
static_assert(std::is_same_v<decltype(W::AND(true, false, true)),
                             Node<Kind::And, Node<Kind::Bool>, Node<Kind::Bool>, Node<Kind::Bool>>>);

// Reading an expansion text (dsl/grammar.hpp's reader, which og-parse uses too): operands,
// integers, floats, strings, dtypes and names with their operands.
constexpr std::string_view dim_text = "DIM_OF($1,3)";
static_assert(expansion_term(dim_text, 0).form == ExpansionTerm::call && expansion_term(dim_text, 0).n == 2 &&
              constructs[expansion_term(dim_text, 0).value].name == "DIM_OF");
static_assert(expansion_term(dim_text, 0).at[0] == 7 && expansion_term(dim_text, 0).at[1] == 10);
static_assert(expansion_term(dim_text, 7).form == ExpansionTerm::operand && expansion_term(dim_text, 7).value == 1);
static_assert(expansion_term(dim_text, 10).form == ExpansionTerm::integer && expansion_term(dim_text, 10).value == 3);
constexpr std::string_view eq_text = "EQ(DTYPE_OF($1),DType::QInt8)";
static_assert(expansion_term(eq_text, 0).n == 2 && expansion_term(eq_text, 0).at[1] == 16);
static_assert(expansion_term(eq_text, 16).form == ExpansionTerm::dtype &&
              expansion_term(eq_text, 16).value == static_cast<std::size_t>(DType::QInt8));
constexpr std::string_view cast_text = "WITH_OUTPUT_TYPE($2,0,2.25f,Op(\"Q\",$1))";
static_assert(expansion_term(cast_text, 0).n == 4 && expansion_term(cast_text, 22).form == ExpansionTerm::floating &&
              expansion_term(cast_text, 22).real == 2.25);
static_assert(expansion_term(cast_text, 31).form == ExpansionTerm::string && expansion_term(cast_text, 31).value == 1);
static_assert(grammar_detail::expansion("X", Family::EXPANDED, in_replacement, cast_text).min_args == 2);
// `$k...` (the k-th operand and all after it) and a function's name.
constexpr std::string_view rest_text = "Op($2,F,$1,$3...)";
static_assert(expansion_term(rest_text, 11).form == ExpansionTerm::rest && expansion_term(rest_text, 11).value == 3);
static_assert(expansion_term(rest_text, 6).form == ExpansionTerm::function && expansion_term(rest_text, 6).value == 1);
static_assert(grammar_detail::expansion("X", Family::OpMultiOut, in_replacement, rest_text).min_args == 2);
static_assert(grammar_detail::expansion("X", Family::OpMultiOut, in_replacement, rest_text).max_args == any_count);
// The operands that reach a string place (Op's name, LET's tag, AUTOSPLIT_SHAPEFN_APPLY's split tag).
static_assert(expansion_detail::string_operands(rest_text) == 1u << 2);
static_assert(expansion_detail::string_operands(constructs[record_index("TYPICAL_SLICE")].expansion) == 1u << 2);
static_assert(expansion_detail::string_operands(constructs[record_index("OPCONST")].expansion) == 1u << 1);
static_assert(expansion_detail::string_operands(constructs[record_index("SAME_SHAPE")].expansion) == 0);

// The words built from the texts: the trees the texts say, with the written operands in place.
static_assert(std::is_same_v<decltype(W::IS_FLOAT16("x")),
                             Node<Kind::Eq, Node<Kind::DTypeOf, Node<Kind::Tag>>, Node<Kind::DTypeConst>>>);
static_assert(boost::hana::at_c<1>(W::IS_FLOAT16("x").kids).leaf.i == static_cast<long long>(DType::Float16));
static_assert(boost::hana::at_c<0>(boost::hana::at_c<0>(W::IS_FLOAT16("t").kids).kids).leaf.str ==
              std::string_view("t"));
static_assert(std::is_same_v<decltype(W::DIM_WIDTH("x")), Node<Kind::DimOf, Node<Kind::Tag>, Node<Kind::Int>>>);
static_assert(boost::hana::at_c<1>(W::DIM_WIDTH("x").kids).leaf.i == 2);
static_assert(decltype(W::SAME_SHAPE("x", "y"))::kind == Kind::And && decltype(W::SAME_SHAPE("x", "y"))::arity == 4);
static_assert(decltype(W::CEILDIV(7, 2u))::kind == Kind::Div && decltype(W::CEILDIV(7, 2u))::vtype == VType::Size);
static_assert(decltype(W::IS_QUANT_TYPE("x"))::kind == Kind::Or && decltype(W::IS_QUANT_TYPE("x"))::arity == 5);

// Names of families typed by code: OPCONST, the *_SLICE names and OpMultiOut.
static_assert(std::is_same_v<decltype(W::OPCONST("c")), Node<Kind::Let, Node<Kind::Op>>>);
static_assert(W::OPCONST("c").leaf.str == std::string_view("c"));
static_assert(boost::hana::at_c<0>(W::OPCONST("c").kids).leaf.str == std::string_view("$Const"));
static_assert(W::FROM_DEFAULT_PACKAGE("Add") == std::string_view("Add"));
using Typical = decltype(W::TYPICAL_SLICE("x", "I"));
// (the top node of OPCONST's, a *_SLICE name's or OpMultiOut's expansion keeps the name written)
static_assert(Typical::kind == Kind::WithSize &&
              W::TYPICAL_SLICE("x", "I").leaf.record == static_cast<int>(record_index("TYPICAL_SLICE")) + 1);
static_assert(W::OPCONST("c").leaf.record == static_cast<int>(record_index("OPCONST")) + 1);
static_assert(W::OpMultiOut(2, 1, "S").leaf.record == static_cast<int>(record_index("OpMultiOut")) + 1);
static_assert(W::Op("S").leaf.record == 0 && W::LET("c", W::Op("S")).leaf.record == 0);
static_assert(boost::mp11::mp_front<Typical::children>::kind == Kind::AutosplitShapefnApply);
static_assert(boost::hana::at_c<0>(W::TYPICAL_SLICE("x", "I").kids).leaf.str == std::string_view("I"));
static_assert(boost::hana::at_c<0>(boost::hana::at_c<0>(W::TYPICAL_SLICE("x", "I").kids).kids).fn ==
              &optgrammar::simple_split_size);
using Multi = decltype(W::OpMultiOut(2, 1, "Split", "a", "b", "c"));
static_assert(Multi::kind == Kind::Op && Multi::arity == 2);
static_assert(boost::mp11::mp_at_c<boost::mp11::mp_front<Multi::children>::children, 1>::arity ==
              3);  // Op("Split", a, b, c)
static_assert(decltype(W::OpMultiOut(2, 1, "Split"))::kind == Kind::Op);
// A string literal where the expansion takes a string, or the word is not a candidate at all.
template <class... A>
constexpr bool typical_slice_of = requires(const A&... a) {
  W::TYPICAL_SLICE(a...);
};
static_assert(typical_slice_of<char[2], char[2]> && !typical_slice_of<char[2], int>);
static_assert(decltype(W::TYPICAL_SLICE("x"))::kind == Kind::Misapplied);  // the count: analysis words it

// Operands the family's typing rejects, or too many: a Misapplied node naming the record.
static_assert(decltype(W::IS_FLOAT32(3))::kind == Kind::Misapplied && decltype(W::IS_FLOAT32(3))::vtype == VType::Bad);
static_assert(W::IS_FLOAT32(3).leaf.str == std::string_view("IS_FLOAT32"));
static_assert(decltype(W::DIM_DEPTH("x", "y"))::kind == Kind::Misapplied);
static_assert(decltype(W::CEILDIV(true, 2))::kind == Kind::Misapplied);
// An operand that is ill-typed itself keeps the expansion (the fault is the operand's).
static_assert(decltype(W::IS_FLOAT32(W::DIM_OF(1, 2)))::kind == Kind::Eq);
}  // namespace
