// Fixture of engine.layers_cycle_detected: a dsl/ header that includes engine/, which includes it back.
#pragma once
#include "optgrammar/engine/b.hpp"
