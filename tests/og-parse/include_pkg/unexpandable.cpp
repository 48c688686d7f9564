// Rules og-parse cannot expand: it says so, naming the macro, instead of skipping them.
#include "sdk/not_here.h"

SDK_WHOLE_RULE(EARLY, Op("A", "x"), OK, "x")

DEF_PACKAGE_OPTIMIZATION(EARLY, Op("B", "x"), SDK_CONSTRAINT("x"), "x")

DEF_PACKAGE_OPTIMIZATION(EARLY, Op("D", "x"), IS_SHAPE_2x2xd("x"), "x")

DEF_PACKAGE_OPTIMIZATION(EARLY, Op("C", "x"), OK, "x")
