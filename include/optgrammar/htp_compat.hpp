// Op-package sources written for the original framework, compiled unchanged (opt-in).
//
// What such sources take from the framework's headers besides the rule language: the per-file
// brackets BEGIN_PKG_OP_DEFINITION(name) / END_PKG_OP_DEFINITION(name), THIS_PKG_NAME,
// API_EXPORT, PREPARE_DISABLED, the interface file's declarations, the rule macros made of others
// (optgrammar/htp_compat_macros.hpp), and the names external functions are written with
// (Replacement, OpRef, QuickShape, Split_Context, Constraint, OpDef), usable unqualified. The framework's include
// names (HTP/core/optimize.h, ...) are forwarding headers to this one, in the separate include
// folder include/compat (CMake target optgrammar::htp_compat). optgrammar/rules.hpp stays free of
// all of this. docs/htp-compat.md says what each name does here.
//
// PREPARE_DISABLED (defined before the first include, as the framework's builds for the device
// define it): the rule and tensor-property macros expand to nothing, so a package's rules and
// properties vanish while its op registrations (DEF_PACKAGE_OP...) and parameter orders stay.
#pragma once

#include "optgrammar/htp_compat_macros.hpp"  // DEF_AUTOSPLIT, ...: the macros og-parse knows too
#include "optgrammar/package/tensor_properties.hpp"
#include "optgrammar/rules.hpp"

#include <cassert>  // package kernels and shape functions use assert without including it
#include <charconv>
#include <cmath>  // and their math functions (expf, std::sqrt, ...), which rules.hpp does not bring
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

/// The package's name as the build gives it (-DTHIS_PKG_NAME=...); a fixed name otherwise.
#ifndef THIS_PKG_NAME
#define THIS_PKG_NAME optgrammar_package
#endif
#ifndef THIS_PKG_NAME_STR
#define THIS_PKG_NAME_STR OPTGRAMMAR_STRINGIFY(THIS_PKG_NAME)
#endif

/// Exported from the package's shared library.
#ifndef API_EXPORT
#define API_EXPORT __attribute__((visibility("default")))
#endif
#ifndef API_HIDDEN
#define API_HIDDEN __attribute__((visibility("hidden")))
#endif

/// A source file's brackets. Registrations here happen at static initialization, so they mark
/// nothing; each expands to a declaration with its own `;` (packages write them with and without
/// one after).
#define BEGIN_PKG_OP_DEFINITION(NAME) [[maybe_unused]] extern const int OPTGRAMMAR_CAT(optgrammar_pkg_begin_, NAME);
#define END_PKG_OP_DEFINITION(NAME) [[maybe_unused]] extern const int OPTGRAMMAR_CAT(optgrammar_pkg_end_, NAME);

// The package's interface file (the one with the package's entry points). The framework registers
// a package's ops, rules and parameter orders when its core calls the package's init function;
// here every registration runs at static initialization, so these declare or do nothing. Each
// carries its own `;` (a `;` written after one is harmless). At namespace scope:
#define INIT_PACKAGE_OP_DEF() static_assert(true, "INIT_PACKAGE_OP_DEF");
#define INIT_PACKAGE_OPTIMIZATION_DEF() static_assert(true, "INIT_PACKAGE_OPTIMIZATION_DEF");
#define INIT_PACKAGE_PARAM_ORDER_DEF() static_assert(true, "INIT_PACKAGE_PARAM_ORDER_DEF");
#define INIT_PKG_CORE_INIT_FUNC() static_assert(true, "INIT_PKG_CORE_INIT_FUNC");
// The declarations of what the three above define, for the package's other files.
#define DECLARE_PACKAGE_OP_DEF() static_assert(true, "DECLARE_PACKAGE_OP_DEF");
#define DECLARE_PACKAGE_OPTIMIZATION_DEF() static_assert(true, "DECLARE_PACKAGE_OPTIMIZATION_DEF");
#define DECLARE_PACKAGE_PARAM_ORDER_DEF() static_assert(true, "DECLARE_PACKAGE_PARAM_ORDER_DEF");
// The list that orders a package's source files (HTP/core/unique_types.h): each entry redeclares
// what BEGIN_PKG_OP_DEFINITION(NAME) declares, so a misspelt name is still only a declaration;
// the order of rules is the one docs/engine.md gives, whatever the list says.
#define DEFINE_UNIQ_TY() static_assert(true, "DEFINE_UNIQ_TY");
#define BEGIN_PKG_OPS_OPTS_LIST() static_assert(true, "BEGIN_PKG_OPS_OPTS_LIST");
#define DECLARE_PKG_OPS_OPTS_LIST(NAME) BEGIN_PKG_OP_DEFINITION(NAME)
#define END_PKG_OPS_OPTS_LIST() static_assert(true, "END_PKG_OPS_OPTS_LIST");
// Names of axis parameters and of per-channel quantized ops: recorded (compat::package_lists()),
// not used by the rewriter.
#define LIST_PACKAGE_AXIS_PARAMS(...)                                                                      \
  [[maybe_unused]] static const ::optgrammar::compat::ListedNames OPTGRAMMAR_CAT(og_listed_, __COUNTER__){ \
      ::optgrammar::compat::package_lists().axis_params, __VA_ARGS__};
#define LIST_PACKAGE_PER_CHANNEL_QUANTIZED_OPS(...)                                                        \
  [[maybe_unused]] static const ::optgrammar::compat::ListedNames OPTGRAMMAR_CAT(og_listed_, __COUNTER__){ \
      ::optgrammar::compat::package_lists().per_channel_quantized_ops, __VA_ARGS__};
// Inside the package's init function (statements):
#define REGISTER_PACKAGE_OPS() static_cast<void>(0);
#define REGISTER_PACKAGE_OPTIMIZATIONS() static_cast<void>(0);
#define REGISTER_PACKAGE_PARAM_ORDERS() static_cast<void>(0);
#define REGISTER_PACKAGE_AXIS_PARAMS() static_cast<void>(0);
#define REGISTER_PACKAGE_PER_CHANNEL_QUANTIZED_OPS() static_cast<void>(0);

// Constructor hooks (code the framework runs when it builds an op of an implementation on the
// device). Nothing here runs kernels, so a hook is only checked to be a complete type.
#define CTOR_OPHOOK(IMPL, HOOK) static_assert(sizeof(HOOK) > 0, "CTOR_OPHOOK: " #HOOK);
#define CTOR_HOOK(IMPL, VAR, ...) static_assert(true, "CTOR_HOOK");
// An implementation's compile step for the device (its executable form): nothing here runs
// kernels, so nothing of it is used.
#define COMPILER_FOR(IMPL, FUNCTION, PARAMETERS) static_assert(true, "COMPILER_FOR");

// Logging in kernels, cost functions and hooks, printf-style, to stderr with file:line. A message prints when
// its level is at most OPTGRAMMAR_LOG_LEVEL (environment; default 1: errors and warnings);
// compat::log_file() redirects them.
#define errlog(...) ::optgrammar::compat::log_message(0, __FILE__, __LINE__, __VA_ARGS__)
#define warnlog(...) ::optgrammar::compat::log_message(1, __FILE__, __LINE__, __VA_ARGS__)
#define infolog(...) ::optgrammar::compat::log_message(2, __FILE__, __LINE__, __VA_ARGS__)
#define debuglog(...) ::optgrammar::compat::log_message(3, __FILE__, __LINE__, __VA_ARGS__)
#define logmsg(LEVEL, ...) ::optgrammar::compat::log_message((LEVEL), __FILE__, __LINE__, __VA_ARGS__)

namespace optgrammar::compat {
/// The names a package listed with LIST_PACKAGE_AXIS_PARAMS and LIST_PACKAGE_PER_CHANNEL_QUANTIZED_OPS.
struct PackageLists {
  std::vector<std::string> axis_params, per_channel_quantized_ops;
};
inline PackageLists& package_lists() {
  static PackageLists l;
  return l;
}
/// Appends a LIST_PACKAGE_* macro's names to their list at static initialization.
struct ListedNames {
  template <class... Names>
  ListedNames(std::vector<std::string>& to, const Names&... names) {
    (to.emplace_back(std::string_view(names)), ...);
  }
};

/// The level up to which messages print: OPTGRAMMAR_LOG_LEVEL, read once (1 when unset or not a number).
inline int log_level() {
  static const int level = [] {
    const char* v = std::getenv("OPTGRAMMAR_LOG_LEVEL");
    int n = 1;
    if (v && *v) {
      const auto [end, ec] = std::from_chars(v, v + std::strlen(v), n);
      if (ec != std::errc{} || *end != '\0') n = 1;
    }
    return n;
  }();
  return level;
}

/// Where messages go (stderr unless set).
inline std::FILE*& log_file() {
  static std::FILE* f = stderr;
  return f;
}

/// Not declared printf-like: package code passes size_t to %d freely, and a package that builds
/// quietly with the framework's headers should build quietly here too.
inline void log_message(int level, const char* file, int line, const char* format, ...) {
  if (level > log_level()) return;
  static constexpr const char* kinds[] = {"error", "warning", "info", "debug"};
  std::FILE* to = log_file();
  std::fprintf(to, "%s:%d: %s: ", file, line, kinds[level < 0 ? 0 : level > 3 ? 3 : level]);
  std::va_list args;
  va_start(args, format);
  std::vfprintf(to, format, args);
  va_end(args);
  std::fputc('\n', to);
}
}  // namespace optgrammar::compat

// The framework's short names of the two rule macros, with the same operands (its own ops'
// sources and some packages write them). Under PREPARE_DISABLED they expand to nothing, as the
// macros they stand for do.
#ifndef DEF_OPT
#define DEF_OPT(PRIORITY, MATCH, CONSTRAINT, REPLACEMENT) \
  DEF_PACKAGE_OPTIMIZATION(PRIORITY, MATCH, CONSTRAINT, REPLACEMENT)
#endif
#ifndef DEF_OPTIM
#define DEF_OPTIM(PRIORITY, FLAGS, MATCH, CONSTRAINT, REPLACEMENT) \
  DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(PRIORITY, FLAGS, MATCH, CONSTRAINT, REPLACEMENT)
#endif

#ifdef PREPARE_DISABLED
#undef DEF_PACKAGE_OPTIMIZATION
#undef DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS
#undef DEF_TENSOR_PROPERTIES
#define DEF_PACKAGE_OPTIMIZATION(...)
#define DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(...)
#define DEF_TENSOR_PROPERTIES(...)
#endif

// The names of external functions' signatures, unqualified as package sources write them.
using optgrammar::Constraint;
using optgrammar::OpDef;
using optgrammar::OpRef;
using optgrammar::QuickShape;
using optgrammar::Replacement;
using optgrammar::Split_Context;
