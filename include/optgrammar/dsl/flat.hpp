// The flat form of a rule: what both front ends lower a rule to, and what the one checker
// (dsl/check.hpp) and the canonical printer (dsl/canonical.hpp) read.
//
// A rule is its three parts' nodes in one array, each part in preorder (a node, then its operands'
// subtrees in the order written). A node is plain data: its construct (a node kind of
// dsl/node.hpp), its operand count, where its subtree ends, the values written (a string, a
// number), the record of the name defined by expansion whose text made it, and where it was
// written. The C++ front end flattens the nodes its words build (dsl/analyze.hpp), og-parse the
// trees it parses and expands (tools/og-parse/src/lower.cpp); the checker fills in what it learns
// (each node's type, tag slots, op-name indices). Plain data on the standard library.
#pragma once

#include "optgrammar/dsl/node.hpp"
#include "optgrammar/dsl/str.hpp"
#include "optgrammar/dsl/typing.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace optgrammar::dsl {

/// What a parameter of an external function takes from a rule argument, or the framework
/// parameter it is (Constraint&, Replacement&, Split_Context const&: passed by the engine).
enum class ParamKind : unsigned char {
  OpRef,
  OpDef,
  Bool,
  Integral,
  Floating,
  DType,
  Other,
  Constraint,
  Replacement,
  SplitContext
};

/// What an external function returns, as a rule sees it (not_a_function: the name is no function).
enum class Returns : unsigned char { not_a_function, Bool, Int, Size, Float, OpRef, QuickShape, Other };

/// The words of a parameter kind in messages.
constexpr std::string_view param_kind_name(ParamKind k) { return param_kind_words[static_cast<std::size_t>(k)]; }
static_assert(sizeof(param_kind_words) / sizeof(param_kind_words[0]) ==
              static_cast<std::size_t>(ParamKind::SplitContext) + 1);

/// Whether an argument of value type `t` may be passed to a parameter of kind `p`.
constexpr bool accepts(ParamKind p, VType t) {
  switch (p) {
    case ParamKind::OpRef:
    case ParamKind::OpDef: return is_repl(t);
    case ParamKind::Bool: return t == VType::Bool;
    case ParamKind::Integral: return is_integral(t);
    case ParamKind::Floating: return is_integral(t) || t == VType::Float;
    case ParamKind::DType: return t == VType::DType;
    default: return false;  // Other, and the framework parameters: no rule argument fits them
  }
}

/// The value type of a function's result in a rule: a scalar for EXTERNAL_CONSTRAINT, a shape
/// construction for an OpRef or a QuickShape; a string for anything else (the checker says why).
constexpr VType result_vtype(Returns r) {
  switch (r) {
    case Returns::Bool: return VType::Bool;
    case Returns::Int: return VType::Int;
    case Returns::Size: return VType::Size;
    case Returns::Float: return VType::Float;
    case Returns::OpRef:
    case Returns::QuickShape: return VType::Shape;
    default: return VType::Text;
  }
}

inline constexpr std::size_t max_params = 16;

/// An external function's signature: its result and its parameters' kinds, in order.
struct Signature {
  bool known = true;  ///< false: the front end cannot see the function (og-parse without its
                      ///< declaration): nothing is checked, `result` is what its construct takes
  Returns result = Returns::not_a_function;
  unsigned char n_params = 0;
  ParamKind params[max_params] = {};
};

/// Where a node was written: og-parse's file index and byte offset; nothing in the C++ front end.
struct Span {
  std::uint32_t file = 0;
  std::uint32_t offset = 0;
};

/// One node of the flat form (where it was written is kept beside it: FlatRule::spans).
struct FlatNode {
  Kind kind = Kind::Tag;
  std::uint32_t n = 0;    ///< operand count
  std::uint32_t end = 0;  ///< the index after its subtree: its operands are at i + 1, then at each one's end
  Str str;                ///< op name, operand tag, option name, split tag, function or tensor-class name, MESSAGE text
  long long value = 0;    ///< Bool, Int, Size, DTypeConst: the constant; Misapplied without a record: the Kind of
                          ///< the Op or OpVarIn whose name is no string; FnName: its signature's index
  double real = 0;        ///< Float: the constant, rounded to float
  int record = 0;         ///< the record (dsl/grammar.hpp) + 1 of the name written whose expansion made the node
                          ///< (Misapplied: of the name misapplied), else 0
  VType type = VType::Bad;  ///< its type, from its operands' by dsl/node.hpp's type_of (the C++ node type's vtype)
  bool may_star = false;    ///< the value may be the tag "*": a "*" tag, or a SELECT with such a branch
  // what the checker fills in
  bool first = false;     ///< match tags and LETs: the occurrence that binds the slot
  bool wildcard = false;  ///< match tags: "*" as an operand, binds nothing
  int slot = -1;          ///< tags: binding slot (0 is "*"); split constructs and variables: split index
  int index = -1;         ///< Op and WrapOp nodes: index of the op name in the rule's name table
};

/// The index of operand j of node i in a preorder array of nodes that each know where their subtree
/// ends (FlatNode, og-parse's lint facts): operand 0 is at i + 1, each next one at the previous one's end.
template <class Node>
constexpr std::uint32_t operand_at(const Node* nodes, std::uint32_t i, std::uint32_t j) {
  std::uint32_t k = i + 1;
  while (j-- > 0) k = nodes[k].end;
  return k;
}

/// A rule in flat form: the nodes of its match, constraint and replacement, in that order, each
/// part from its root; the signatures its FnName nodes refer to.
struct FlatRule {
  FlatNode* nodes = nullptr;
  std::uint32_t size = 0;
  std::uint32_t match = 0, constraint = 0, replacement = 0;  ///< the parts' roots
  const Signature* fns = nullptr;
  std::uint32_t n_fns = 0;
  VType* scratch = nullptr;     ///< room for `size` types, which the checker uses
  const Span* spans = nullptr;  ///< where each node was written (og-parse), or none
};

/// A rule's flat form held by value: what a program reads of a registered rule's structure after
/// compile time (engine::RuleInfo::flat; the check of dsl/op_check.hpp). view() is valid while
/// the copy lives and is not changed.
struct FlatCopy {
  std::vector<FlatNode> nodes;
  std::vector<Signature> fns;
  std::uint32_t match = 0, constraint = 0, replacement = 0;
  std::uint32_t n_fns = 0;
  FlatRule view() {
    return FlatRule{nodes.data(), static_cast<std::uint32_t>(nodes.size()),
                    match,        constraint,
                    replacement,  fns.data(),
                    n_fns,        nullptr,
                    nullptr};
  }
};

}  // namespace optgrammar::dsl
