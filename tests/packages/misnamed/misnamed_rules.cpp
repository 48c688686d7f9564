// Test package "misnamed": rules that can never match, which og-opt warns of when it loads them
// (and og-parse when it reads this file): a misspelt op name, an Op with fewer operands than the
// imported op has (its attributes come first), an OpVarIn asking more operands than the op takes.
// The last rule matches what the rule before it makes: an op a replacement makes is known.
#include <optgrammar/rules.hpp>

DEF_PACKAGE_OPTIMIZATION(EARLY, Op("onnx.relu", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("onnx.Conv", "x", "*", "*"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, OpVarIn("Relu", "x", "*"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", "x"), OK, Op("misnamed.Made", "x"))
DEF_PACKAGE_OPTIMIZATION(LATE, Op("misnamed.Made", "x"), OK, Op("Neg", "x"))
