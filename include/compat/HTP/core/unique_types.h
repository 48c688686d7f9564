// The original framework's include name HTP/core/unique_types.h, for op-package sources compiled
// unchanged: forwards to optgrammar/htp_compat.hpp (target optgrammar::htp_compat).
#pragma once

#include <optgrammar/htp_compat.hpp>
