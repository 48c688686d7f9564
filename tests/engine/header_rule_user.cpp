// The second translation unit that includes header_rule.hpp (see header_rule_test.cpp).
#include "header_rule.hpp"
