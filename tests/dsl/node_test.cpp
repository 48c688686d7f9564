// dsl/node.hpp: the node kinds generated from the family table, and the static facts a node
// type computes from its children (value type, the sizes of its flat form, "*").
#include <optgrammar/rules.hpp>

#include <string_view>
#include <type_traits>

namespace {
using namespace optgrammar::dsl;
using W = words;

// The kinds: the leaves first, then one per family that makes nodes, named as the family.
static_assert(static_cast<std::size_t>(Kind::Misapplied) < first_construct_kind);
static_assert(kind_name(Kind::Lcm) == "LCM" && kind_name(Kind::DimOf) == "DIM_OF" &&
              kind_name(Kind::GenConstScalarI32) == "gen_ConstScalar_i32");
static_assert(kind_families[static_cast<std::size_t>(Kind::Op) - first_construct_kind] == Family::Op);
static_assert(typing_of(Kind::Tag).result == ResultRule::code);  // a leaf has no typing column
static_assert(typing_of(Kind::Add).result == ResultRule::common);
static_assert(reads_outdef(Kind::DimOf) && !reads_outdef(Kind::ConstvalInt) && reads_constval(Kind::ConstvalInt));

template <class T>
using node_of = std::remove_cvref_t<T>;

// Value types from the children's, at the node's type.
using Sum = node_of<decltype(W::ADD(1, 2.5f))>;
static_assert(Sum::vtype == VType::Float && Sum::arity == 2 && Sum::tree_size == 3 && Sum::fn_count == 0);
using SizeSum = node_of<decltype(W::ADD(1, W::DIM_OF("x", 0)))>;
static_assert(SizeSum::vtype == VType::Size);  // size wins over int, as in C
using Dim = node_of<decltype(W::DIM_OF("x", 3))>;
static_assert(Dim::vtype == VType::Size);
// An ill-typed operand makes the node Bad (the checker reports the operand's fault, dsl/check.hpp).
using BadKid = node_of<decltype(W::ADD(W::DIM_OF(1, 2), 3))>;
static_assert(BadKid::vtype == VType::Bad && BadKid::tree_size == 5);
using BadSelf = node_of<decltype(W::ADD(true, 3))>;
static_assert(BadSelf::vtype == VType::Bad);

// Op is a construction while its operands are replacement values, a pattern with a LET inside.
static_assert(node_of<decltype(W::Op("A", "x"))>::vtype == VType::OpBuild);
static_assert(node_of<decltype(W::Op("A", W::LET("l", W::Op("B", "y"))))>::vtype == VType::Match);
static_assert(node_of<decltype(W::Op("A", 3))>::vtype == VType::Bad);

// SELECT: numbers mix as in C, a bool only with a bool, replacement values with each other.
static_assert(node_of<decltype(W::SELECT(true, 1, 2.0f))>::vtype == VType::Float);
static_assert(node_of<decltype(W::SELECT(true, 1, false))>::vtype == VType::Bad);
static_assert(node_of<decltype(W::SELECT(true, "x", W::gen_Shape(1, 2)))>::vtype == VType::Repl);
static_assert(node_of<decltype(W::SELECT(1, "x", "y"))>::vtype == VType::Bad);

// The regular constructions type through their typing column.
static_assert(node_of<decltype(W::gen_ConstArr_f32(0.5f, 4))>::vtype == VType::NewConst);
static_assert(node_of<decltype(W::gen_ConstArr_f32(0.5f, 4.0f))>::vtype == VType::Bad);
static_assert(node_of<decltype(W::gen_Shape(1, 2, 3, 4))>::vtype == VType::Shape);

// "*" as a value: a tag, or a SELECT with such a branch.
static_assert(W::Operand("*").leaf.may_star && !W::Operand("x").leaf.may_star);
static_assert(W::SELECT(true, "x", "*").leaf.may_star && !W::SELECT(true, "x", "y").leaf.may_star);
}  // namespace
