// Fixture of engine.layers_cycle_detected: the other half of the cycle.
#pragma once
#include "optgrammar/dsl/a.hpp"
