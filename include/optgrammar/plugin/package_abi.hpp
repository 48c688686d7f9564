// What an op package built as a plugin (optgrammar_add_op_package, docs/packages.md) and the
// program that loads it (og-opt --package) agree on.
//
// The registries are header-only singletons (function-local statics of inline functions). A
// package's static registrations reach the loader's registries because the loader exports its
// symbols (CMake ENABLE_EXPORTS) and the package keeps default visibility: the dynamic linker then
// binds the package's references to the singletons to the loader's copies. The entry point below,
// which the CMake function adds to every package, lets the loader check that this happened
// instead of trusting it: it returns the addresses of the registries as the package sees them,
// which must be the loader's own.
#pragma once

#include "optgrammar/core/declarations.hpp"
#include "optgrammar/core/op_names.hpp"
#include "optgrammar/core/registry.hpp"
#include "optgrammar/engine/rule_set.hpp"
#include "optgrammar/ops/definition.hpp"

#include <cstdint>

namespace optgrammar::plugin {

/// Bumped when a registry's layout, a layout that a package's inline code reads (the Graph's) or the
/// meaning of this struct changes.
/// 2: RuleInfo's TermGuard (was DimGuard). 3: the Graph's record storage has a head block.
/// 4: RuleInfo::term_guards (was one term_guard). 5: the Rewriter rewrites in place
/// (Rewriter::replace_by_new). 6: the Graph's records in plain vectors, which move as they grow.
/// 7: OpNames interns without a lock for names it has (a table published atomically); RuleSet
/// builds its tables once under a lock. 8: RuleInfo::flat. 9: PassDispatch::rules(); the rule
/// nodes' Leaf::record; RuleInfo::explain holds the evaluators of the rule's constraint nodes
/// (engine/explain_nodes.hpp), the walk is the loader's. 10: ops::TypeRule's values
/// (same_as_first is same_as_operand with operand 0); OpNames keeps its tables and segments in
/// vectors and a deque. 11: ops::OperandSpec::choices and ::scalar.
inline constexpr std::uint32_t abi_version = 11;

/// The registries as one module (the loader or a package) sees them.
struct PackageAbi {
  std::uint32_t version = 0;
  std::uint32_t rule_info_size = 0;         ///< sizeof(RuleInfo): a package built against other headers
  std::uint32_t op_impl_size = 0;           ///< sizeof(OpImplInfo)
  const char* name = "";                    ///< the package's name (the CMake target's)
  const void* rules = nullptr;              ///< &RuleSet::global()
  const void* op_registry = nullptr;        ///< &OpRegistry::instance()
  const void* op_names = nullptr;           ///< &OpNames::instance()
  const void* definitions = nullptr;        ///< &ops::Definitions::instance()
  const void* tensor_properties = nullptr;  ///< &TensorPropertyRegistry::instance()
  const void* param_orders = nullptr;       ///< &ParamOrderRegistry::instance()
  const void* tensor_classes = nullptr;     ///< &TensorClasses::instance()

  /// Whether both see the same registries.
  bool same_registries(const PackageAbi& o) const noexcept {
    return rules == o.rules && op_registry == o.op_registry && op_names == o.op_names && definitions == o.definitions &&
           tensor_properties == o.tensor_properties && param_orders == o.param_orders &&
           tensor_classes == o.tensor_classes;
  }
};

/// The registries of the module that calls it.
inline PackageAbi module_abi(const char* name) {
  PackageAbi a;
  a.version = abi_version;
  a.rule_info_size = sizeof(RuleInfo);
  a.op_impl_size = sizeof(OpImplInfo);
  a.name = name;
  a.rules = &RuleSet::global();
  a.op_registry = &OpRegistry::instance();
  a.op_names = &OpNames::instance();
  a.definitions = &ops::Definitions::instance();
  a.tensor_properties = &TensorPropertyRegistry::instance();
  a.param_orders = &ParamOrderRegistry::instance();
  a.tensor_classes = &TensorClasses::instance();
  return a;
}

/// The symbol the loader looks up in a package.
inline constexpr const char* entry_symbol = "optgrammar_package_abi";

}  // namespace optgrammar::plugin

/// Defines the package's entry point; optgrammar_add_op_package generates one use per package.
#define OPTGRAMMAR_PACKAGE_ENTRY(NAME)                                                                                 \
  extern "C" __attribute__((visibility("default"))) const ::optgrammar::plugin::PackageAbi* optgrammar_package_abi() { \
    static const ::optgrammar::plugin::PackageAbi abi = ::optgrammar::plugin::module_abi(NAME);                        \
    return &abi;                                                                                                       \
  }
