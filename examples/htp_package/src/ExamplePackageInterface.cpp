// The package's interface file, as the original framework's packages have one: the package-wide
// declarations, the list of the package's op sources, the names of its axis parameters and the
// init function the framework calls. Here registrations happen at static initialization, so these
// are declarations and empty statements (docs/htp-compat.md). The QNN API half of a real interface
// file (the package's info and interface provider) belongs to that API, not to this library.
#include "HTP/core/op_package_feature_support.h"
#include "HTP/core/op_register_ext.h"
#include "HTP/core/optimize.h"
#include "HTP/core/simple_reg.h"
#include "HTP/core/unique_types.h"

DEFINE_UNIQ_TY()
BEGIN_PKG_OPS_OPTS_LIST()
DECLARE_PKG_OPS_OPTS_LIST(PKG_ExampleActivations)
DECLARE_PKG_OPS_OPTS_LIST(PKG_ExampleConv)
DECLARE_PKG_OPS_OPTS_LIST(PKG_ExamplePad)
DECLARE_PKG_OPS_OPTS_LIST(PKG_ExamplePool)
END_PKG_OPS_OPTS_LIST()

INIT_PACKAGE_OP_DEF()
INIT_PACKAGE_OPTIMIZATION_DEF()
INIT_PACKAGE_PARAM_ORDER_DEF()
INIT_PKG_CORE_INIT_FUNC()

LIST_PACKAGE_AXIS_PARAMS("axis")

namespace {
bool example_initialized = false;
}  // namespace

/// What the framework calls once when it loads the package.
API_EXPORT int examplePackageInit() {
  if (example_initialized) return 1;
  REGISTER_PACKAGE_PARAM_ORDERS()
  REGISTER_PACKAGE_AXIS_PARAMS()
  REGISTER_PACKAGE_PER_CHANNEL_QUANTIZED_OPS()
  example_initialized = true;
  return 0;
}
