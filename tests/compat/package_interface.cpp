// A package's interface file written the way the original framework's packages write theirs: the
// package-wide declarations, the list of its source files, the axis and per-channel lists and an
// init function calling the REGISTER_PACKAGE_* statements. The QNN API parts of such a file
// (QnnOpPackage.h and the interface provider) are not this library's and are left out.
#include "HTP/core/op_package_feature_support.h"
#include "HTP/core/op_register_ext.h"
#include "HTP/core/optimize.h"
#include "HTP/core/simple_reg.h"
#include "HTP/core/unique_types.h"

DEFINE_UNIQ_TY()
BEGIN_PKG_OPS_OPTS_LIST()
DECLARE_PKG_OPS_OPTS_LIST(PKG_CompatRelu)
END_PKG_OPS_OPTS_LIST()

namespace {
const char* const compat_axis_param = "axis";
bool compat_initialized = false;
}  // namespace

INIT_PACKAGE_OP_DEF()
INIT_PACKAGE_OPTIMIZATION_DEF()
INIT_PACKAGE_PARAM_ORDER_DEF()
INIT_PKG_CORE_INIT_FUNC()

LIST_PACKAGE_AXIS_PARAMS(compat_axis_param, "Axis")
LIST_PACKAGE_PER_CHANNEL_QUANTIZED_OPS("CompatRelu")

/// The package's init function as interface files write it (some with a `;` after each call).
int compatPackageInit() {
  if (compat_initialized) return 1;
  REGISTER_PACKAGE_OPS()
  REGISTER_PACKAGE_OPTIMIZATIONS()
  REGISTER_PACKAGE_PARAM_ORDERS();
  REGISTER_PACKAGE_AXIS_PARAMS()
  REGISTER_PACKAGE_PER_CHANNEL_QUANTIZED_OPS()
  compat_initialized = true;
  infolog("package %s initialized", THIS_PKG_NAME_STR);
  return 0;
}
