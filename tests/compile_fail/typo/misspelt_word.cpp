// A rule with a name that is no word of the language (a misspelling): the compiler's own error
// says so, with its suggestion, and no other error about the rule follows (before, the pass word
// EARLY, `accept` and the rule's guards were reported too). Compiled by
// tests/compile_fail/check_no_cascade.cmake.
#include <optgrammar/rules.hpp>
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("Relu", "x"), IS_FLAOT16("x"), Op("Relu.fp16", "x"))
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Neg", "x"), OK, Op("Nop", AUTOTHREAD_HXV(1, "I", "x")))
