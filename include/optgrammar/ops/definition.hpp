// Op definitions: one declarative record per op (after MLIR's ODS), read by the verifier, the
// constant folder, CSE, the reference interpreter and the generated op reference (docs/ops.md).
//
// A record says what an op takes and gives (operand and result counts, dtype constraints), what
// it is (traits: pure, commutative, elementwise, ...), how its output definition follows from its
// inputs (infer), which elements of an operand an output element reads (indexing map), and how
// to compute it on constant data (eval). The graph itself stores no attributes besides the output
// definition, so an op's parameters are operands (a Transpose permutation is a `$Const`, a slice
// start a `$Shape`) or parts of the declared output definition (a Cast's target dtype).
#pragma once

#include "optgrammar/core/dtype.hpp"
#include "optgrammar/core/graph.hpp"
#include "optgrammar/core/output_def.hpp"
#include "optgrammar/core/registry.hpp"
#include "optgrammar/index/indexing_map.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace optgrammar::ops {

namespace detail {
inline void cat_piece(std::string& s, std::string_view v) { s.append(v); }
inline void cat_piece(std::string& s, const std::string& v) { s.append(v); }
inline void cat_piece(std::string& s, const char* v) { s.append(v); }
template <class I>
  requires std::is_integral_v<I>
void cat_piece(std::string& s, I v) { s.append(std::to_string(v)); }
}  // namespace detail

/// Joins strings and integers into one message: cat("rank ", 4, " exceeds ", 8). (Appending
/// piece by piece also keeps g++-12's -Wrestrict false positive on `"lit" + std::string` away.)
template <class... A>
std::string cat(const A&... a) {
  std::string s;
  (detail::cat_piece(s, a), ...);
  return s;
}

// ---- dtype sets ---------------------------------------------------------------------------

/// A set of element types, one bit per DType.
struct DTypeSet {
  std::uint32_t bits = 0;

  constexpr bool contains(DType t) const noexcept { return (bits >> static_cast<unsigned>(t)) & 1u; }
  constexpr bool empty() const noexcept { return bits == 0; }
  friend constexpr DTypeSet operator|(DTypeSet a, DTypeSet b) noexcept { return {a.bits | b.bits}; }
  friend constexpr bool operator==(DTypeSet, DTypeSet) noexcept = default;
};

/// of(DType::Float32, DType::Int32).
template <class... T>
constexpr DTypeSet of(T... t) noexcept {
  return DTypeSet{((1u << static_cast<unsigned>(t)) | ... | 0u)};
}

namespace dtypes {
inline constexpr DTypeSet any{(1u << dtype_count) - 1u};
inline constexpr DTypeSet f32 = of(DType::Float32);
inline constexpr DTypeSet i32 = of(DType::Int32);
/// The floating-point types.
inline constexpr DTypeSet floats = of(DType::Float32, DType::Float16, DType::Float64, DType::BFloat16);
inline constexpr DTypeSet numeric = of(DType::Float32, DType::Float16, DType::Int32);  ///< not quantized
/// Quantized types with 8- or 16-bit storage (what the quantized kernels take).
inline constexpr DTypeSet quant_storage = of(DType::QUInt8, DType::QInt8, DType::QUInt16, DType::QInt16);
inline constexpr DTypeSet quantized = quant_storage | of(DType::QInt32);
/// The plain integer types (values as stored, no zero offset or step).
inline constexpr DTypeSet integers = of(DType::Int8, DType::UInt8, DType::Int16, DType::UInt16, DType::Int32,
                                        DType::Int64, DType::UInt32, DType::UInt64);
inline constexpr DTypeSet i64 = of(DType::Int64);
inline constexpr DTypeSet boolean = of(DType::Bool);
}  // namespace dtypes

/// "f32, i32" style spelling of a set, in DType order ("any" for all of them).
inline std::string to_string(DTypeSet s) {
  if (s == dtypes::any) return "any";
  std::string out;
  for (int i = 0; i < dtype_count; ++i)
    if (s.contains(static_cast<DType>(i))) {
      if (!out.empty()) out += ", ";
      out += dtype_short_name(static_cast<DType>(i));
    }
  return out.empty() ? "none" : out;
}

// ---- operands and results -----------------------------------------------------------------

/// How many values an operand declaration stands for: exactly one, zero or one (only at the
/// end, after the single operands), or zero or more (only last; `min` of them required).
enum class Arity : std::uint8_t { single, optional, variadic };

/// Where an operand's or result's element type comes from.
enum class TypeRule : std::uint8_t {
  in_set,           ///< any type of `types`
  same_as_result,   ///< the dtype of the op's result
  same_as_operand,  ///< the dtype of operand `like` (OperandSpec::like, 0 unless set; a result: operand 0)
  same_as_first = same_as_operand,  ///< the dtype of operand 0 (`like` left at 0): another name, for clarity
};

/// One declared operand (or group of operands for Arity::variadic).
struct OperandSpec {
  std::string_view name;
  Arity arity = Arity::single;
  TypeRule rule = TypeRule::in_set;
  DTypeSet types = dtypes::any;
  std::string_view summary;  ///< what the operand is, one phrase
  std::uint16_t min = 0;     ///< Arity::variadic: at least this many
  /// The operand must be a `$Const` or `$Shape` (a parameter, not data): folding needs it.
  bool must_be_constant = false;
  std::uint16_t like = 0;  ///< TypeRule::same_as_operand: the operand whose dtype this one has
  /// Not 0: the operand holds indices into this many choices (an imported string attribute), so
  /// a constant's elements lie in [0, choices).
  std::uint16_t choices = 0;
  /// A scalar parameter (an imported integer, real or string attribute): a constant of at most
  /// one element (none: absent).
  bool scalar = false;
};

struct ResultSpec {
  std::string_view name = "out";
  TypeRule rule = TypeRule::in_set;
  DTypeSet types = dtypes::any;
  std::string_view summary;
};

// ---- traits -------------------------------------------------------------------------------

/// What an op is. Traits drive CSE (pure, commutative, side_effecting), folding (side_effecting
/// ops are never folded) and verification (same_operands_and_result_type).
struct Trait {
  enum Value : std::uint32_t {
    pure = 1u << 0,                            ///< no side effects; equal inputs give equal outputs (CSE may merge)
    commutative = 1u << 1,                     ///< the two data operands may be swapped (CSE matches either order)
    elementwise = 1u << 2,                     ///< output element i reads input element i (after broadcasting)
    broadcasting = 1u << 3,                    ///< operands broadcast numpy-style
    same_operands_and_result_type = 1u << 4,   ///< data operands and result share dtype and quantization
    same_operands_and_result_shape = 1u << 5,  ///< data operands and result share the shape
    side_effecting = 1u << 6,                  ///< observable beyond its value: never merged, never folded
    constant_like = 1u << 7,                   ///< holds its value itself ($Const, $Shape)
    graph_input = 1u << 8,                     ///< a value supplied from outside (Input)
    graph_output = 1u << 9,                    ///< a root of the graph (Output)
    quantized = 1u << 10,                      ///< computes on quantized values with their own quantizations
  };
};

/// The traits' names in bit order, for documentation and messages.
inline constexpr std::string_view trait_names[] = {"pure",
                                                   "commutative",
                                                   "elementwise",
                                                   "broadcasting",
                                                   "same-operands-and-result-type",
                                                   "same-operands-and-result-shape",
                                                   "side-effecting",
                                                   "constant-like",
                                                   "graph-input",
                                                   "graph-output",
                                                   "quantized"};

inline std::string traits_to_string(std::uint32_t traits) {
  std::string out;
  for (std::size_t i = 0; i < std::size(trait_names); ++i)
    if (traits & (1u << i)) {
      if (!out.empty()) out += ", ";
      out += trait_names[i];
    }
  return out;
}

// ---- inference, indexing maps and evaluation ----------------------------------------------

/// A value an op reads while being verified, folded or interpreted: its output definition and,
/// for constants and evaluated values, its bytes (empty for `$Shape` and for unknown values).
struct ValueView {
  const OutputDef* def = nullptr;
  std::span<const std::byte> data{};
  bool known = false;  ///< data holds the value ($Const, or computed); `$Shape` is known by its dims
  bool is_shape = false;
};

/// What infer and eval see of one op: its operands and the output definition it declares.
struct OpView {
  std::span<const ValueView> operands;
  const OutputDef* declared = nullptr;
};

namespace infer {
/// "[1,2,3]": a definition's dims, as messages about shapes print them.
inline std::string shape_string(const OutputDef& d) {
  std::string s = "[";
  for (std::uint32_t i = 0; i < d.rank; ++i) {
    if (i) s += ',';
    s += std::to_string(d.dims[i]);
  }
  s += ']';
  return s;
}
}  // namespace infer

/// The result of inferring an output definition: which parts inference could decide. Parts it
/// cannot decide (a Cast's target dtype, a Quantize's step) come from the declared definition.
struct Inferred {
  OutputDef def{};
  bool shape = false;
  bool dtype = false;
  bool quant = false;  ///< zero offset and step size (compared only for quantized dtypes)
  std::string error;   ///< non-empty: the operands are inconsistent (e.g. shapes do not broadcast)
};

using InferFn = Inferred (*)(const OpView&);
/// Output→operand indexing maps, one per operand that has one (entries may be nullopt).
using IndexingFn = std::vector<std::optional<index::IndexingMap>> (*)(const OpView&);

/// Which kernels eval runs: the scalar reference (the interpreter) or the fast backend
/// (fold::kernels: HVX on Hexagon, portable elsewhere). Both give the same bits.
enum class Backend : std::uint8_t { reference, fast };

/// Computes the op's value into `out` (declared->byte_size() bytes). Returns false when the
/// operand types or shapes are outside what the kernels take (nothing is then promised of out).
using EvalFn = bool (*)(const OpView&, std::span<std::byte> out, Backend);

/// The declarative record of one op.
struct OpDefinition {
  std::string_view name;
  std::string_view summary;      ///< one line
  std::string_view description;  ///< Markdown paragraph(s)
  std::vector<OperandSpec> operands;
  ResultSpec result;
  std::uint32_t traits = 0;
  InferFn infer = nullptr;
  /// infer only checks the operands (its Inferred decides nothing; the output is the declared one).
  bool infer_checks_only = false;
  IndexingFn indexing = nullptr;
  EvalFn eval = nullptr;
  /// eval runs a fold/ kernel (else it is a plain copy or reference loop of ops/).
  bool fold_kernel = false;
  /// The constant folder may replace the op by its value when its inputs are constants. False
  /// for an op whose constant inputs carry an encoding that rules read (ONNX's DequantizeLinear
  /// of quantized weights: folded, the integers and their scales would be lost); the
  /// interpreter evaluates it all the same.
  bool folds = true;
  std::string_view kernel;  ///< the fold/ kernel or ops/ routine eval uses, for the docs

  bool has(Trait::Value t) const noexcept { return (traits & t) != 0; }
  /// Fewest operands the op may have.
  std::size_t min_operands() const noexcept {
    std::size_t n = 0;
    for (const auto& o : operands) n += o.arity == Arity::single ? 1 : o.arity == Arity::variadic ? o.min : 0;
    return n;
  }
  /// Most operands (SIZE_MAX when variadic).
  std::size_t max_operands() const noexcept {
    std::size_t n = 0;
    for (const auto& o : operands) {
      if (o.arity == Arity::variadic) return static_cast<std::size_t>(-1);
      ++n;
    }
    return n;
  }
  /// What the definition allows, in words, for messages about operand counts: "2 or 3 operands
  /// (x, lo, hi?)", "9 operands (the attributes first: auto_pad, ..., strides; then X, W, B)"
  /// (an attribute operand is one whose summary starts with "attribute": the imported ONNX ops').
  std::string allowed_operands() const {
    const std::size_t lo = min_operands(), hi = max_operands();
    std::string s = hi == static_cast<std::size_t>(-1) ? cat("at least ", lo)
                    : lo == hi                         ? cat(lo)
                    : hi == lo + 1                     ? cat(lo, " or ", hi)
                                                       : cat(lo, " to ", hi);
    s += lo == 1 && (hi == 1 || hi == static_cast<std::size_t>(-1)) ? " operand" : " operands";
    if (operands.empty()) return s;
    s += " (";
    std::size_t attrs = 0;
    while (attrs < operands.size() && operands[attrs].summary.starts_with("attribute")) ++attrs;
    for (std::size_t k = 0; k < operands.size(); ++k) {
      if (attrs > 0 && k == 0)
        s += "the attributes first: ";
      else if (attrs > 0 && k == attrs)
        s += "; then ";
      else if (k > 0)
        s += ", ";
      s.append(operands[k].name);
      if (operands[k].arity == Arity::optional) s += '?';
      if (operands[k].arity == Arity::variadic) s += "...";
    }
    return s += ')';
  }
  /// The declaration that operand slot k falls under (nullptr when past the last).
  const OperandSpec* operand_spec(std::size_t k) const noexcept {
    for (const auto& o : operands) {
      if (o.arity == Arity::variadic) return &o;
      if (k == 0) return &o;
      --k;
    }
    return nullptr;
  }
};

// ---- the table ------------------------------------------------------------------------------

/// Every op definition known to the program, by op name id. builtin.hpp fills in the project's
/// ops; a package may add its own (add() replaces an existing definition of the same name).
class Definitions {
 public:
  static Definitions& instance() {
    static Definitions d;
    return d;
  }
  void add(OpDefinition def) {
    OpNameId id = intern_op_name(def.name);
    if (id >= by_name_.size()) by_name_.resize(id + 1, nullptr);
    if (id < builtin_.size()) builtin_[id] = false;
    owned_.push_back(std::make_unique<OpDefinition>(std::move(def)));
    if (by_name_[id] == nullptr)
      order_.push_back(owned_.back().get());
    else
      for (auto*& p : order_)
        if (p == by_name_[id]) p = owned_.back().get();
    by_name_[id] = owned_.back().get();
  }
  const OpDefinition* find(OpNameId id) const noexcept { return id < by_name_.size() ? by_name_[id] : nullptr; }
  const OpDefinition* find(std::string_view name) const {
    auto id = OpNames::instance().find(name);
    return id ? find(*id) : nullptr;
  }
  /// In the order they were added.
  const std::vector<const OpDefinition*>& all() const noexcept { return order_; }
  /// How many definitions were added so far (mark_builtin's `from`).
  std::size_t added() const noexcept { return owned_.size(); }
  /// Marks the definitions added since `from` (added()) that are still current as the project's
  /// own (all_definitions.hpp, once it has added them); a later add() of a name clears its mark.
  /// A package's definition added before (a package's static initialization may run before the
  /// program first asks for the table) stays the package's.
  void mark_builtin(std::size_t from) {
    builtin_.assign(by_name_.size(), false);
    for (std::size_t k = from; k < owned_.size(); ++k) {
      const OpNameId id = intern_op_name(owned_[k]->name);
      builtin_[id] = by_name_[id] == owned_[k].get();
    }
  }
  /// Whether the definition of `id` is the project's own rather than one a package added.
  bool is_builtin(OpNameId id) const noexcept { return id < builtin_.size() && builtin_[id]; }

 private:
  std::vector<bool> builtin_;
  std::vector<std::unique_ptr<OpDefinition>> owned_;
  std::vector<const OpDefinition*> by_name_;
  std::vector<const OpDefinition*> order_;
};

}  // namespace optgrammar::ops
