// The words of the rule language: Op, LET, AND, DIM_OF, WITH_SIZE, pass names, ...
//
// They are static members of `words`, not free functions or macros: DEF_PACKAGE_OPTIMIZATION
// evaluates a rule inside a class derived from `words`, so inside a rule these names win over any
// global of the same name, and outside rules user code keeps `Op`, `AND`, ... free.
#pragma once

#include "optgrammar/core/dtype.hpp"
#include "optgrammar/core/registry.hpp"
#include "optgrammar/dsl/external.hpp"
#include "optgrammar/dsl/node.hpp"
#include "optgrammar/dsl/passes.hpp"

#include <boost/hana/at.hpp>

#include <limits>
#include <type_traits>

namespace optgrammar::dsl {

/// A pass spec: `EARLY`, `EARLY + 1`.
struct Pass {
  Str name;
  int base = 0;
  int offset = 0;
  bool known = true;
  constexpr int priority() const { return base + offset; }
  friend constexpr Pass operator+(Pass p, int n) {
    p.offset += n;
    return p;
  }
  friend constexpr Pass operator-(Pass p, int n) {
    p.offset -= n;
    return p;
  }
};

/// The pass a spec names, read from the spec as written (`EARLY`, `EARLY + 1`, `LATE - 2`); a
/// spec of another form or an unknown name gives a Pass that is not `known` (analysis reports
/// it). The spec's tokens themselves are only evaluated where a bad rule raises its error.
constexpr Pass pass_of_text(std::string_view t) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  auto ident = [](char c, bool first) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || (!first && c >= '0' && c <= '9');
  };
  std::size_t i = 0;
  while (i < t.size() && space(t[i])) ++i;
  const std::size_t at = i;
  while (i < t.size() && ident(t[i], i == at)) ++i;
  Pass p{Str(), ::optgrammar::pass_priority(t.substr(at, i - at)), 0, false};
  for (const auto& n : ::optgrammar::pass_names)
    if (n.name == t.substr(at, i - at)) p.name.p = n.name.data(), p.name.len = n.name.size();
  while (i < t.size() && space(t[i])) ++i;
  int sign = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) sign = t[i++] == '+' ? 1 : -1;
  while (i < t.size() && space(t[i])) ++i;
  long long n = 0;
  std::size_t digits = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9' && digits < 9) n = n * 10 + (t[i++] - '0'), ++digits;
  while (i < t.size() && space(t[i])) ++i;
  if (p.base >= 0 && i == t.size() && (sign == 0) == (digits == 0)) {
    p.offset = static_cast<int>(sign * n);
    p.known = true;
  }
  return p;
}

namespace detail {
template <std::size_t N>
constexpr Str str_of(const char (&s)[N]) {
  return Str(s);
}

constexpr Leaf leaf_of(Str s) {
  Leaf l;
  l.str = s;
  return l;
}

constexpr Leaf tag_leaf(Str s) {
  Leaf l = leaf_of(s);
  l.may_star = s == std::string_view("*");
  return l;
}

/// The node a C++ value stands for inside a rule: "x" → operand tag, 3 → int, 3u → size,
/// 0.5f → float, true → bool, DType::QUInt8 → dtype constant; a node stays itself.
template <class T>
constexpr auto to_node(const T& v) {
  using U = std::remove_cvref_t<T>;
  if constexpr (is_node<U>::value) {
    return v;
  } else if constexpr (std::is_same_v<U, Str>) {
    return Node<Kind::Tag>{tag_leaf(v)};
  } else if constexpr (std::is_array_v<U> && std::is_same_v<std::remove_extent_t<U>, char>) {
    return Node<Kind::Tag>{tag_leaf(Str(v))};
  } else if constexpr (std::is_same_v<U, bool>) {
    Leaf l;
    l.i = v ? 1 : 0;
    return Node<Kind::Bool>{l};
  } else if constexpr (std::is_same_v<U, ::optgrammar::DType>) {
    Leaf l;
    l.i = static_cast<long long>(v);
    return Node<Kind::DTypeConst>{l};
  } else if constexpr (std::is_floating_point_v<U>) {
    Leaf l;
    l.f = static_cast<double>(static_cast<float>(v));
    return Node<Kind::Float>{l};
  } else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && !std::is_same_v<U, char>) {
    Leaf l;
    l.i = static_cast<long long>(v);
    return Node<Kind::Int>{l};
  } else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U>) {
    Leaf l;
    l.i = static_cast<long long>(v);
    return Node<Kind::Size>{l};
  } else {
    static_assert(std::is_same_v<U, void>,
                  "optgrammar: this C++ value cannot be used in a rule (use a string, a number, "
                  "a DType:: tag or a rule construct)");
  }
}

template <class T>
using node_t = decltype(to_node(std::declval<const T&>()));

template <Kind K, class... A>
constexpr auto make(Leaf l, const A&... a) {
  Node<K, node_t<A>...> n{l, boost::hana::tuple<node_t<A>...>{to_node(a)...}};
  if constexpr (K == Kind::Select && sizeof...(A) == 3)
    n.leaf.may_star = boost::hana::at_c<1>(n.kids).leaf.may_star || boost::hana::at_c<2>(n.kids).leaf.may_star;
  return n;
}
template <Kind K, class... A>
constexpr auto make(const A&... a) {
  return make<K>(Leaf{}, a...);
}
}  // namespace detail


/// The vocabulary visible inside DEF_PACKAGE_OPTIMIZATION. Every member builds a rule node;
/// the grammar reference in docs/ says what each construct means.
struct words {
  using DType = ::optgrammar::DType;
  using Flags = ::optgrammar::Flags;

  // ---- constants ---------------------------------------------------------------------------
  static constexpr bool OK = true;
  static constexpr float INF = std::numeric_limits<float>::infinity();
  static constexpr float NEG_INF = -std::numeric_limits<float>::infinity();
  static constexpr int CHANNEL_SPLIT_SIZE = 256;
  static constexpr int MIN_CHANNEL_SPLIT_SIZE = 32;

  // ---- match -------------------------------------------------------------------------------
  /// Op("Relu", "x"): an op named Relu with exactly the listed inputs (also an Op construction
  /// in a replacement).
  template <class... A>
  static constexpr auto Op(Str name, const A&... in) { return detail::make<Kind::Op>(detail::leaf_of(name), in...); }
  /// OpVarIn("Concat", "a"): like Op, but the op may have more inputs after the listed ones.
  template <class... A>
  static constexpr auto OpVarIn(Str name, const A&... in) { return detail::make<Kind::OpVarIn>(detail::leaf_of(name), in...); }
  /// LET("inner", Op("Relu", "x")): binds the tag "inner" to the inner op's output.
  template <class A>
  static constexpr auto LET(Str tag, const A& op) { return detail::make<Kind::Let>(detail::leaf_of(tag), op); }
  /// Operand("x") is the same as "x".
  static constexpr auto Operand(Str tag) { return Node<Kind::Tag>{detail::tag_leaf(tag)}; }
  /// FROM_DEFAULT_PACKAGE("Add") names the framework's own op "Add".
  static constexpr Str FROM_DEFAULT_PACKAGE(Str name) { return name; }
  /// OPCONST("c") matches a constant and binds it to "c".
  static constexpr auto OPCONST(Str tag) { return LET(tag, Op("$Const")); }

  // ---- the words of regular form, one per family of dsl/grammar.hpp whose form column says so:
  // the options and split variables (one string), the operators, properties, constant readers,
  // shape and constant constructions and most modifiers (operands of any kind; analysis types them).
#define OPTGRAMMAR_WORD_(F, T, K, W, Y) OPTGRAMMAR_WORD_##W(F, Kind::OPTGRAMMAR_NODE_KIND_##K)
#define OPTGRAMMAR_WORD_own(F, K)
#define OPTGRAMMAR_WORD_named(F, K) \
  static constexpr auto F(Str name) { return Node<K>{detail::leaf_of(name)}; }
#define OPTGRAMMAR_WORD_unary(F, K) \
  template <class A> static constexpr auto F(const A& a) { return detail::make<K>(a); }
#define OPTGRAMMAR_WORD_binary(F, K) \
  template <class A, class B> static constexpr auto F(const A& a, const B& b) { return detail::make<K>(a, b); }
#define OPTGRAMMAR_WORD_fixed3(F, K) \
  template <class A, class B, class C> \
  static constexpr auto F(const A& a, const B& b, const C& c) { return detail::make<K>(a, b, c); }
#define OPTGRAMMAR_WORD_fixed4(F, K) \
  template <class A, class B, class C, class D> \
  static constexpr auto F(const A& a, const B& b, const C& c, const D& d) { return detail::make<K>(a, b, c, d); }
#define OPTGRAMMAR_WORD_nary(F, K) \
  template <class A, class... B> static constexpr auto F(const A& a, const B&... b) { return detail::make<K>(a, b...); }
#define OPTGRAMMAR_WORD_variadic(F, K) \
  template <class... A> static constexpr auto F(const A&... a) { return detail::make<K>(a...); }
  OPTGRAMMAR_CONSTRUCT_FAMILIES(OPTGRAMMAR_WORD_)
#undef OPTGRAMMAR_WORD_
#undef OPTGRAMMAR_WORD_own
#undef OPTGRAMMAR_WORD_named
#undef OPTGRAMMAR_WORD_unary
#undef OPTGRAMMAR_WORD_binary
#undef OPTGRAMMAR_WORD_fixed3
#undef OPTGRAMMAR_WORD_fixed4
#undef OPTGRAMMAR_WORD_nary
#undef OPTGRAMMAR_WORD_variadic

  /// The option the framework names TILE_HEIGHT.
  static constexpr auto TILE_HEIGHT = Node<Kind::OptionUint>{detail::leaf_of(Str("tile_height"))};

  // ---- cst_macro: the spec's expansions -----------------------------------------------------
#define OPTGRAMMAR_IS_TYPE(NAME, T) \
  template <class A> static constexpr auto NAME(const A& x) { return EQ(DTYPE_OF(x), DType::T); }
  OPTGRAMMAR_IS_TYPE(IS_QUINT8, QUInt8)
  OPTGRAMMAR_IS_TYPE(IS_QINT8, QInt8)
  OPTGRAMMAR_IS_TYPE(IS_QUINT16, QUInt16)
  OPTGRAMMAR_IS_TYPE(IS_QINT16, QInt16)
  OPTGRAMMAR_IS_TYPE(IS_QINT32, QInt32)
  OPTGRAMMAR_IS_TYPE(IS_INT32, Int32)
  OPTGRAMMAR_IS_TYPE(IS_FLOAT16, Float16)
  OPTGRAMMAR_IS_TYPE(IS_FLOAT32, Float32)
  OPTGRAMMAR_IS_TYPE(IS_FLOAT, Float32)
#define OPTGRAMMAR_DIM(NAME, D) \
  template <class A> static constexpr auto NAME(const A& x) { return DIM_OF(x, D); }
  OPTGRAMMAR_DIM(DIM_BATCHES, 0)
  OPTGRAMMAR_DIM(DIM_HEIGHT, 1)
  OPTGRAMMAR_DIM(DIM_WIDTH, 2)
  OPTGRAMMAR_DIM(DIM_DEPTH, 3)
  OPTGRAMMAR_DIM(DIM_FILTHEIGHT, 0)
  OPTGRAMMAR_DIM(DIM_FILTWIDTH, 1)
  OPTGRAMMAR_DIM(DIM_FILTDEPTH, 2)
  OPTGRAMMAR_DIM(DIM_NFILTS, 3)
  template <class A, class B>
  static constexpr auto SAME_SHAPE(const A& x, const B& y) {
    return AND(EQ(DIM_OF(x, 3), DIM_OF(y, 3)), EQ(DIM_OF(x, 2), DIM_OF(y, 2)), EQ(DIM_OF(x, 1), DIM_OF(y, 1)),
               EQ(DIM_OF(x, 0), DIM_OF(y, 0)));
  }
  // Compatibility names used by shipped op packages (docs/canonical-form.md).
  template <class A>
  static constexpr auto IS_SCALAR(const A& x) {
    return AND(EQ(DIM_OF(x, 0), 1), EQ(DIM_OF(x, 1), 1), EQ(DIM_OF(x, 2), 1), EQ(DIM_OF(x, 3), 1));
  }
  template <class A>
  static constexpr auto IS_QUANT_TYPE(const A& x) {
    return OR(IS_QUINT8(x), IS_QINT8(x), IS_QUINT16(x), IS_QINT16(x), IS_QINT32(x));
  }
  template <class A, class B>
  static constexpr auto SAME_QUANT(const A& a, const B& b) {
    return AND(EQ(ZERO_OFFSET_OF(a), ZERO_OFFSET_OF(b)), EQ(STEPSIZE_OF(a), STEPSIZE_OF(b)));
  }
  template <class A, class B>
  static constexpr auto CEILDIV(const A& a, const B& b) { return DIV(SUB(ADD(a, b), 1), b); }

  // ---- replacement -------------------------------------------------------------------------
  template <class A>
  static constexpr auto WrapOp(Str name, const A& a) { return detail::make<Kind::WrapOp>(detail::leaf_of(name), a); }
  template <class A>
  static constexpr auto WrapOpAlways(Str name, const A& a) { return detail::make<Kind::WrapOpAlways>(detail::leaf_of(name), a); }
  template <class A, class B>
  static constexpr auto WITH_SPLIT_HISTORY(const A& a, const B& b) { return detail::make<Kind::WithSplitHistory>(a, b); }
  template <class A, class B, class C>
  static constexpr auto WITH_SPLIT_HISTORY(const A& a, const B& b, const C& c) { return detail::make<Kind::WithSplitHistory>(a, b, c); }
  template <class D, class C, class E>
  static constexpr auto AUTOSPLIT(const D& dim, Str tag, const C& chunk, const E& e) {
    return detail::make<Kind::Autosplit>(detail::leaf_of(tag), dim, Node<Kind::Tag>{detail::leaf_of(tag)}, chunk, e);
  }
  template <class B, class L, class H, class E>
  static constexpr auto OP_ITER(const B& base, Str tag, const L& lo, const H& hi, const E& e) {
    return detail::make<Kind::OpIter>(detail::leaf_of(tag), base, Node<Kind::Tag>{detail::leaf_of(tag)}, lo, hi, e);
  }
  template <class A>
  static constexpr auto ITER_INPUT_OF(const A& a, Str tag) { return detail::make<Kind::IterInputOf>(detail::leaf_of(tag), a); }
  /// OpMultiOut(n_out, outno, "op", in...) → Op("$Out", WITH_MULTI_OUT(n_out, Op("op", in...)),
  /// gen_Shape(0, 0, n_out, outno)).
  template <class N, class K, class... A>
  static constexpr auto OpMultiOut(const N& n, const K& k, Str name, const A&... in) {
    return Op("$Out", WITH_MULTI_OUT(n, Op(name, in...)), gen_Shape(0, 0, n, k));
  }
  template <class I, class S, class Z>
  static constexpr auto AUTOSPLIT_SLICE(const I& in, const S& start, const Z& size) {
    return slice_of("AUTOSPLIT_SLICE", in, start, size);
  }
  /// The expansion of AUTOSPLIT_SLICE; `origin` (kept in the WITH_SIZE node) names the construct
  /// the rule wrote, for messages.
  template <class I, class S, class Z>
  static constexpr auto slice_of(Str origin, const I& in, const S& start, const Z& size) {
    auto r = WITH_SIZE(size, WITH_TYPE(in, Op("Slice_shape", in, start, size)));
    r.leaf.str = origin;
    return r;
  }
  /// TYPICAL_SLICE(in, tag): the slice of `in` for the current part of split `tag`, along the
  /// split dimension (the spec's expansion through AUTOSPLIT_SLICE and simple_split_*).
  template <class I>
  static constexpr auto TYPICAL_SLICE(const I& in, Str tag) {
    return slice_of("TYPICAL_SLICE", in, AUTOSPLIT_SHAPEFN_APPLY_("simple_split_start", &::optgrammar::simple_split_start, tag, in),
                           AUTOSPLIT_SHAPEFN_APPLY_("simple_split_size", &::optgrammar::simple_split_size, tag, in));
  }
  /// CHANGEDIM_SLICE(in, tag, new_dim): the same along `new_dim` of `in`.
  template <class I, class D>
  static constexpr auto CHANGEDIM_SLICE(const I& in, Str tag, const D& new_dim) {
    return slice_of(
        "CHANGEDIM_SLICE", in, AUTOSPLIT_SHAPEFN_APPLY_("simpledim_split_start", &::optgrammar::simpledim_split_start, tag, in, new_dim),
        AUTOSPLIT_SHAPEFN_APPLY_("simpledim_split_size", &::optgrammar::simpledim_split_size, tag, in, new_dim));
  }
  /// TYPICAL_CONV_SLICE(in, tag, stride, window[, pad_before]): the rows of `in` a convolution-like
  /// op needs for the current part of split `tag` (docs/replacement.md).
  template <class I, class... A>
  static constexpr auto TYPICAL_CONV_SLICE(const I& in, Str tag, const A&... a) {
    return detail::make<Kind::TypicalConvSlice>(detail::leaf_of(tag), in, a...);
  }

  // Casts packages write for relaxed precision; dsl/grammar.hpp holds their expansions and
  // tests/dsl/grammar_test.cpp checks these against them.
  template <class X, class T>
  static constexpr auto CAST_TO_DTYPE(const X& x, const T& dtype) { return WITH_OUTPUT_TYPE(dtype, 0, 1.0f, Op("QNN_Cast", x)); }
  template <class X>
  static constexpr auto CAST_TO_FP16(const X& x) { return WITH_SIZE(x, CAST_TO_DTYPE(x, DType::Float16)); }
  template <class X>
  static constexpr auto CAST_TO_FP32(const X& x) { return CAST_TO_DTYPE(x, DType::Float32); }
  /// The fp16 sandwich: `op` computed in fp16 with the replaced op's size, cast back to fp32.
  template <class O>
  static constexpr auto MAKE_OP_FP16_AND_INSERT_CAST(const O& op) {
    return CAST_TO_FP32(WITH_SIZE("*", WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f, op)));
  }

  // The framework's shape functions, usable by name in AUTOSPLIT_SHAPEFN_APPLY / SHAPEFN_APPLY.
  static constexpr auto simple_split_start = &::optgrammar::simple_split_start;
  static constexpr auto simple_split_size = &::optgrammar::simple_split_size;
  static constexpr auto simpledim_split_start = &::optgrammar::simpledim_split_start;
  static constexpr auto simpledim_split_size = &::optgrammar::simpledim_split_size;
  static constexpr auto pad_total_for_qnn = &::optgrammar::pad_total_for_qnn;
  static constexpr auto pad_before_for_qnn = &::optgrammar::pad_before_for_qnn;
  static constexpr auto reshape_hw_to_4d = &::optgrammar::reshape_hw_to_4d;

  // ---- external functions (named through the macros of define.hpp) ----------------------------
  template <class F, class T, class... A>
  static constexpr auto EXTERNAL_CONSTRAINT_(Str name, F fn, const T& tag, const A&... a) {
    return detail::make<Kind::ExternalConstraint>(Leaf{}, fn_node(name, fn), tag, a...);
  }
  template <class F>
  static constexpr auto EXTERNAL_REPLACE_(Str name, F fn) {
    return detail::make<Kind::ExternalReplace>(Leaf{}, fn_node(name, fn));
  }
  template <class F, class... A>
  static constexpr auto SHAPEFN_APPLY_(Str name, F fn, const A&... a) {
    return detail::make<Kind::ShapefnApply>(Leaf{}, fn_node(name, fn), a...);
  }
  template <class F, class... A>
  static constexpr auto AUTOSPLIT_SHAPEFN_APPLY_(Str name, F fn, Str tag, const A&... a) {
    return detail::make<Kind::AutosplitShapefnApply>(detail::leaf_of(tag), fn_node(name, fn), a...);
  }
  /// LAYOUT_CHUNKSIZE(TensorClass, dim): size; the class is looked up by name at run time.
  template <class D>
  static constexpr auto LAYOUT_CHUNKSIZE_(Str cls, const D& dim) {
    return detail::make<Kind::LayoutChunksize>(detail::leaf_of(cls), dim);
  }
  /// MESSAGE("text", args...): true; writes the text and the arguments to the trace.
  template <std::size_t N, class... A>
  static constexpr auto MESSAGE(const char (&text)[N], const A&... a) {
    TextNode t;
    t.text = text;
    t.len = N - 1;
    return detail::make<Kind::Message>(Leaf{}, t, a...);
  }

 private:
  template <class F>
  static constexpr auto fn_node(Str name, F fn) {
    FnNode<F> n;
    n.leaf.str = name;
    n.fn = fn;
    return n;
  }

 public:
#undef OPTGRAMMAR_IS_TYPE
#undef OPTGRAMMAR_DIM
};


}  // namespace optgrammar::dsl
