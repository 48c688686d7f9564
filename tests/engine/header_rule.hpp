// A rule defined in a header: header_rule_test.cpp and header_rule_user.cpp both include it, so
// each of the two translation units registers it.
#pragma once
#include <optgrammar/rules.hpp>

DEF_PACKAGE_OPTIMIZATION(EARLY, Op("H_Twice", "x"), OK, Op("H_Once", "x"))
