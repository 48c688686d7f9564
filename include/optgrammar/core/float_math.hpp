// The few <cmath> functions that the headers of a rule translation unit call, without <cmath>:
// that header, with its special functions, costs every rule translation unit a tenth of g++'s
// memory (docs/performance.md, "Compile time"). Each is the compiler builtin that libstdc++'s
// own std:: function calls, so the results are the same; g++ and clang++ have them all.
#pragma once

namespace optgrammar::fmath {

inline bool isinf(double v) noexcept { return __builtin_isinf(v); }
inline bool isnan(double v) noexcept { return __builtin_isnan(v); }
inline float fabs(float v) noexcept { return __builtin_fabsf(v); }
inline double fabs(double v) noexcept { return __builtin_fabs(v); }
inline float fmod(float a, float b) noexcept { return __builtin_fmodf(a, b); }
inline double fmod(double a, double b) noexcept { return __builtin_fmod(a, b); }
inline double floor(double v) noexcept { return __builtin_floor(v); }
/// v times 2 to the power e.
inline float ldexp(float v, int e) noexcept { return __builtin_ldexpf(v, e); }
/// Rounds to an integer in the current rounding mode (to nearest even by default).
inline float nearbyint(float v) noexcept { return __builtin_nearbyintf(v); }

}  // namespace optgrammar::fmath
