// The op registry: which ops a package implements, at what cost, with which flags.
//
// DEF_PACKAGE_OP(impl, "Op") (the framework's defaults: cost GLACIAL, flag RESOURCE_HVX),
// DEF_PACKAGE_OP_AND_COST_AND_FLAGS(impl, "Op", SNAIL, Flags::RESOURCE_HVX, ...) (the cost also
// in quotes, "SNAIL", as the framework's older headers took it) and
// DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(impl, "Op", cost_function, flags...) register an
// implementation at static initialization. The registry is queried by name id; an op without a
// registration has the defaults (cost FAST, IS_CONST).
#pragma once

#include "optgrammar/core/op_names.hpp"
#include "optgrammar/core/preprocessor.hpp"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace optgrammar {

/// Relative cost of an op: FREE < FAST < SNAIL < GLACIAL.
enum class Cost : std::uint8_t { FREE, FAST, SNAIL, GLACIAL };

/// The costs' names as packages write them (bare, `Cost::SNAIL` or in quotes), by Cost value.
inline constexpr std::string_view cost_names[] = {"FREE", "FAST", "SNAIL", "GLACIAL"};
static_assert(std::size(cost_names) == static_cast<std::size_t>(Cost::GLACIAL) + 1);

constexpr std::string_view cost_name(Cost c) noexcept {
  const auto i = static_cast<std::size_t>(c);
  return i < std::size(cost_names) ? cost_names[i] : "?";
}

/// Op flags. IS_CONST (the default) allows constant propagation; INHIBIT_CONST_PROP forbids it.
struct Flags {
  enum Value : std::uint32_t {
    NONE = 0,
    IS_CONST = 1u << 0,
    INHIBIT_CONST_PROP = 1u << 1,
    RESOURCE_HVX = 1u << 2,
    RESOURCE_HMX = 1u << 3,
  };
};
/// The flags' names as packages write them (bare or `Flags::`): entry i names bit i of Flags.
inline constexpr std::string_view flag_names[] = {"IS_CONST", "INHIBIT_CONST_PROP", "RESOURCE_HVX", "RESOURCE_HMX"};
static_assert(Flags::RESOURCE_HMX == 1u << (std::size(flag_names) - 1));

/// What DEF_PACKAGE_OP records, the framework's defaults (og-parse reports them too).
inline constexpr Cost def_package_op_cost = Cost::GLACIAL;
inline constexpr std::uint32_t def_package_op_flags = Flags::RESOURCE_HVX;

/// What the registry knows of one implementation of an op.
struct OpImplInfo {
  OpNameId name = 0;
  std::string impl_name;       ///< the implementation's spelling in the source
  const void* impl = nullptr;  ///< address of the implementation function
  std::size_t arity = 0;       ///< its parameter count
  Cost cost = Cost::FAST;
  std::string cost_function;  ///< DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS' cost function as written (not called here)
  std::uint32_t flags = Flags::IS_CONST;
  const char* file = "";
  int line = 0;
};

class OpRegistry {
 public:
  static OpRegistry& instance() {
    static OpRegistry r;
    return r;
  }
  void add(OpImplInfo info) {
    if (info.name >= by_name_.size()) by_name_.resize(info.name + 1, no_entry);
    by_name_[info.name] = static_cast<std::uint32_t>(entries_.size());
    entries_.push_back(std::move(info));
  }
  /// The latest registration for an op name, or nullptr.
  const OpImplInfo* find(OpNameId name) const noexcept {
    if (name >= by_name_.size() || by_name_[name] == no_entry) return nullptr;
    return &entries_[by_name_[name]];
  }
  const OpImplInfo* find(std::string_view name) const {
    auto id = OpNames::instance().find(name);
    return id ? find(*id) : nullptr;
  }
  std::uint32_t flags(OpNameId name) const noexcept {
    const OpImplInfo* e = find(name);
    return e ? e->flags : static_cast<std::uint32_t>(Flags::IS_CONST);
  }
  const std::vector<OpImplInfo>& entries() const noexcept { return entries_; }
  /// Names the cost function of the latest registration for an op name.
  void set_cost_function(OpNameId name, std::string fn) {
    if (name < by_name_.size() && by_name_[name] != no_entry) entries_[by_name_[name]].cost_function = std::move(fn);
  }

 private:
  static constexpr std::uint32_t no_entry = 0xFFFFFFFFu;
  std::vector<OpImplInfo> entries_;
  std::vector<std::uint32_t> by_name_;
};

namespace detail {
template <class R, class... A>
constexpr std::size_t arity_of(R (*)(A...)) noexcept {
  return sizeof...(A);
}
template <class F>
const void* address_of(F* f) noexcept {
  return reinterpret_cast<const void*>(f);
}

/// Collects the trailing `Flags::X, Flags::Y` of DEF_PACKAGE_OP_AND_COST_AND_FLAGS.
template <class... F>
constexpr std::uint32_t combine_flags(F... f) noexcept {
  if constexpr (sizeof...(F) == 0)
    return Flags::IS_CONST;
  else
    return (static_cast<std::uint32_t>(f) | ...);
}

struct OpRegistrar {
  template <class Fn>
  OpRegistrar(Fn* fn, const char* impl_name, std::string_view op, Cost cost, std::uint32_t flags, const char* file,
              int line) {
    OpImplInfo info;
    info.name = intern_op_name(op);
    info.impl_name = impl_name;
    info.impl = address_of(fn);
    info.arity = arity_of(fn);
    info.cost = cost;
    info.flags = flags;
    info.file = file;
    info.line = line;
    OpRegistry::instance().add(std::move(info));
  }
  /// With a cost function: named (and required to exist), its cost recorded as GLACIAL.
  template <class Fn, class CostFn>
  OpRegistrar(Fn* fn, const char* impl_name, std::string_view op, const CostFn&, const char* cost_fn_name,
              std::uint32_t flags, const char* file, int line)
      : OpRegistrar(fn, impl_name, op, Cost::GLACIAL, flags, file, line) {
    OpRegistry::instance().set_cost_function(intern_op_name(op), cost_fn_name);
  }
};

/// Names usable bare inside DEF_PACKAGE_OP_AND_COST_AND_FLAGS.
namespace op_words {
inline constexpr Cost FREE = Cost::FREE, FAST = Cost::FAST, SNAIL = Cost::SNAIL, GLACIAL = Cost::GLACIAL;
inline constexpr Flags::Value IS_CONST = Flags::IS_CONST, INHIBIT_CONST_PROP = Flags::INHIBIT_CONST_PROP,
                              RESOURCE_HVX = Flags::RESOURCE_HVX, RESOURCE_HMX = Flags::RESOURCE_HMX;
using ::optgrammar::Flags;
}  // namespace op_words
}  // namespace detail
}  // namespace optgrammar

// A macro because it must create a uniquely named registration object at namespace scope and
// spell the implementation's name. `(impl<T>)` works: the parentheses make one macro argument.
// A template-id without parentheses works as long as its arguments hold no comma
// (`impl<Tensor>`, `impl<true>`); `(impl<T, U>)` needs them.
#define DEF_PACKAGE_OP(IMPL, OPNAME)                                                            \
  static const ::optgrammar::detail::OpRegistrar OPTGRAMMAR_CAT(og_op_registrar_, __COUNTER__){ \
      IMPL, #IMPL, OPNAME, ::optgrammar::def_package_op_cost, ::optgrammar::def_package_op_flags, __FILE__, __LINE__};

// Cost and flags are evaluated where FREE/FAST/SNAIL/GLACIAL and IS_CONST/Flags::... are visible.
#define DEF_PACKAGE_OP_AND_COST_AND_FLAGS(IMPL, OPNAME, ...)                                    \
  static const ::optgrammar::detail::OpRegistrar OPTGRAMMAR_CAT(og_op_registrar_, __COUNTER__){ \
      IMPL,                                                                                     \
      #IMPL,                                                                                    \
      OPNAME,                                                                                   \
      [] {                                                                                      \
        using namespace ::optgrammar::detail::op_words;                                         \
        return ::optgrammar::detail::cost_and_flags(__VA_ARGS__).cost;                          \
      }(),                                                                                      \
      [] {                                                                                      \
        using namespace ::optgrammar::detail::op_words;                                         \
        return ::optgrammar::detail::cost_and_flags(__VA_ARGS__).flags;                         \
      }(),                                                                                      \
      __FILE__,                                                                                 \
      __LINE__};

// The cost is a function of the op (float(const Op*) in the framework's packages); recorded by
// name, not called: this library does not choose implementations by cost.
#define DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS(IMPL, OPNAME, COST_F, ...)                          \
  static const ::optgrammar::detail::OpRegistrar OPTGRAMMAR_CAT(og_op_registrar_, __COUNTER__){ \
      IMPL,                                                                                     \
      #IMPL,                                                                                    \
      OPNAME,                                                                                   \
      COST_F,                                                                                   \
      #COST_F,                                                                                  \
      [] {                                                                                      \
        using namespace ::optgrammar::detail::op_words;                                         \
        return ::optgrammar::detail::combine_flags(__VA_ARGS__);                                \
      }(),                                                                                      \
      __FILE__,                                                                                 \
      __LINE__};

namespace optgrammar::detail {
struct CostAndFlags {
  Cost cost;
  std::uint32_t flags;
};
template <class... F>
constexpr CostAndFlags cost_and_flags(Cost c, F... f) noexcept {
  return {c, combine_flags(f...)};
}
/// Not constexpr: a cost named in quotes that is no cost stops the compilation here, by name.
inline Cost cost_name_must_be_GLACIAL_SNAIL_FAST_or_FREE() { return Cost::GLACIAL; }
/// The cost named in quotes, as the framework's older headers took it (`"SNAIL"`).
consteval Cost cost_named(std::string_view name) {
  for (std::size_t i = 0; i < std::size(cost_names); ++i)
    if (cost_names[i] == name) return static_cast<Cost>(i);
  return cost_name_must_be_GLACIAL_SNAIL_FAST_or_FREE();
}
template <std::size_t N, class... F>
consteval CostAndFlags cost_and_flags(const char (&name)[N], F... f) {
  return {cost_named(std::string_view(name, N - 1)), combine_flags(f...)};
}
}  // namespace optgrammar::detail
