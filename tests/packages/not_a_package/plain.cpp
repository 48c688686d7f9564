// A shared library that is not an op package (no entry point).
extern "C" int og_test_plain_function() { return 42; }
