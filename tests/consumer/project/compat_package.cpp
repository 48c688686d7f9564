// A source in the original framework's style against the installed compatibility headers
// (optgrammar::htp_compat): its include lines work as written.
#include "HTP/core/op_register_ext.h"
#include "HTP/core/optimize.h"

BEGIN_PKG_OP_DEFINITION(PKG_ConsumerCompat);

static int consumer_impl() { return 0; }
DEF_PACKAGE_OP(consumer_impl, "ConsumerCompatOp")
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY, relaxed_precision_flag, Op("ConsumerCompatOp", "x"), OK,
                                    MAKE_OP_FP16_AND_INSERT_CAST(Op("ConsumerCompatOp.fp16", CAST_TO_FP16("x"))))

END_PKG_OP_DEFINITION(PKG_ConsumerCompat);
