// Op-package sources written for the original framework, compiled unchanged (opt-in).
//
// What such sources take from the framework's headers besides the rule language: the per-file
// brackets BEGIN_PKG_OP_DEFINITION(name) / END_PKG_OP_DEFINITION(name), THIS_PKG_NAME,
// API_EXPORT, PREPARE_DISABLED, and the names external functions are written with (Replacement,
// OpRef, QuickShape, Split_Context, Constraint, OpDef), usable unqualified. The framework's include
// names (HTP/core/optimize.h, ...) are forwarding headers to this one, in the separate include
// folder include/compat (CMake target optgrammar::htp_compat). optgrammar/rules.hpp stays free of
// all of this. docs/htp-compat.md says what each name does here.
//
// PREPARE_DISABLED (defined before the first include, as the framework's builds for the device
// define it): the rule and tensor-property macros expand to nothing, so a package's rules and
// properties vanish while its op registrations (DEF_PACKAGE_OP...) and parameter orders stay.
#pragma once

#include "optgrammar/core/properties.hpp"
#include "optgrammar/autosplit.hpp"  // package sources split with AUTOSPLIT freely

/// The package's name as the build gives it (-DTHIS_PKG_NAME=...); a fixed name otherwise.
#ifndef THIS_PKG_NAME
#define THIS_PKG_NAME optgrammar_package
#endif
#define OPTGRAMMAR_HTP_STR_(x) #x
#define OPTGRAMMAR_HTP_STR(x) OPTGRAMMAR_HTP_STR_(x)
#ifndef THIS_PKG_NAME_STR
#define THIS_PKG_NAME_STR OPTGRAMMAR_HTP_STR(THIS_PKG_NAME)
#endif

/// Exported from the package's shared library.
#ifndef API_EXPORT
#define API_EXPORT __attribute__((visibility("default")))
#endif
#ifndef API_HIDDEN
#define API_HIDDEN __attribute__((visibility("hidden")))
#endif

/// A source file's brackets. Registrations here happen at static initialization, so they mark
/// nothing; each expands to a declaration that takes the `;` written after it.
#define BEGIN_PKG_OP_DEFINITION(NAME) \
  [[maybe_unused]] extern const int OPTGRAMMAR_CAT(optgrammar_pkg_begin_, NAME)
#define END_PKG_OP_DEFINITION(NAME) \
  [[maybe_unused]] extern const int OPTGRAMMAR_CAT(optgrammar_pkg_end_, NAME)

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
