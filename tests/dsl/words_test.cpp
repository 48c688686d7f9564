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

// Reading an expansion text: operands, integers, dtypes and names with their operands.
namespace ex = expansion_detail;
constexpr std::string_view dim_text = "DIM_OF($1,3)";
static_assert(ex::term_at(dim_text, 0).form == ex::Term::call && ex::term_at(dim_text, 0).n == 2 &&
              constructs[ex::term_at(dim_text, 0).value].name == "DIM_OF");
static_assert(ex::term_at(dim_text, 0).at[0] == 7 && ex::term_at(dim_text, 0).at[1] == 10);
static_assert(ex::term_at(dim_text, 7).form == ex::Term::operand && ex::term_at(dim_text, 7).value == 1);
static_assert(ex::term_at(dim_text, 10).form == ex::Term::integer && ex::term_at(dim_text, 10).value == 3);
constexpr std::string_view eq_text = "EQ(DTYPE_OF($1),DType::QInt8)";
static_assert(ex::term_at(eq_text, 0).n == 2 && ex::term_at(eq_text, 0).at[1] == 16);
static_assert(ex::term_at(eq_text, 16).form == ex::Term::dtype &&
              ex::term_at(eq_text, 16).value == static_cast<std::size_t>(DType::QInt8));
static_assert(constructs[ex::record_index("SAME_SHAPE")].expansion.substr(0, 4) == "AND(");

// The words built from the texts: the trees the texts say, with the written operands in place.
static_assert(std::is_same_v<decltype(W::IS_FLOAT16("x")),
                             Node<Kind::Eq, Node<Kind::DTypeOf, Node<Kind::Tag>>, Node<Kind::DTypeConst>>>);
static_assert(boost::hana::at_c<1>(W::IS_FLOAT16("x").kids).leaf.i == static_cast<long long>(DType::Float16));
static_assert(boost::hana::at_c<0>(boost::hana::at_c<0>(W::IS_FLOAT16("t").kids).kids).leaf.str == std::string_view("t"));
static_assert(std::is_same_v<decltype(W::DIM_WIDTH("x")), Node<Kind::DimOf, Node<Kind::Tag>, Node<Kind::Int>>>);
static_assert(boost::hana::at_c<1>(W::DIM_WIDTH("x").kids).leaf.i == 2);
static_assert(decltype(W::SAME_SHAPE("x", "y"))::kind == Kind::And && decltype(W::SAME_SHAPE("x", "y"))::arity == 4);
static_assert(decltype(W::CEILDIV(7, 2u))::kind == Kind::Div && decltype(W::CEILDIV(7, 2u))::vtype == VType::Size);
static_assert(decltype(W::IS_QUANT_TYPE("x"))::kind == Kind::Or && decltype(W::IS_QUANT_TYPE("x"))::arity == 5);

// Operands the family's typing rejects, or too many: a Misapplied node naming the record.
static_assert(decltype(W::IS_FLOAT32(3))::kind == Kind::Misapplied && decltype(W::IS_FLOAT32(3))::vtype == VType::Bad);
static_assert(W::IS_FLOAT32(3).leaf.str == std::string_view("IS_FLOAT32"));
static_assert(decltype(W::DIM_DEPTH("x", "y"))::kind == Kind::Misapplied);
static_assert(decltype(W::CEILDIV(true, 2))::kind == Kind::Misapplied);
// An operand that is ill-typed itself keeps the expansion (the fault is the operand's).
static_assert(decltype(W::IS_FLOAT32(W::DIM_OF(1, 2)))::kind == Kind::Eq);
}  // namespace
