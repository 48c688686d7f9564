// The library's two preprocessor helpers: pasting and stringizing after expansion.
#pragma once

/// `a` and `b` pasted into one token, after both are expanded (unique names: og_rule_ __COUNTER__).
#define OPTGRAMMAR_CAT_(a, b) a##b
#define OPTGRAMMAR_CAT(a, b) OPTGRAMMAR_CAT_(a, b)
/// The tokens as a string literal, after they are expanded (a macro's value: 65536 -> "65536").
#define OPTGRAMMAR_STRINGIFY_(...) #__VA_ARGS__
#define OPTGRAMMAR_STRINGIFY(...) OPTGRAMMAR_STRINGIFY_(__VA_ARGS__)
