// One Hexagon test program: the HVX backend against the scalar reference for one group of
// kernels (FOLD_GROUP_*), printing every failure and a summary line that CTest matches.
#include "fold_cases.hpp"
#include "runtime.hpp"

#if !OPTGRAMMAR_FOLD_HAS_HVX
#error "the Hexagon tests must be built with 128-byte HVX (cmake/hexagon-clang14.cmake)"
#endif

namespace {

struct PrintSink final : fold_test::Sink {
  int64_t passed = 0, failed = 0;
  void check(const char* kernel, const char* type, bool ok, int64_t index, int64_t got, int64_t want) override {
    if (ok) {
      ++passed;
      return;
    }
    ++failed;
    hexrt::write_str("FAIL ");
    hexrt::write_str(kernel);
    hexrt::write_str("<");
    hexrt::write_str(type);
    hexrt::write_str("> at ");
    hexrt::write_int(index);
    hexrt::write_str(": got ");
    hexrt::write_int(got);
    hexrt::write_str(", want ");
    hexrt::write_int(want);
    hexrt::write_str("\n");
  }
};

using H = optgrammar::fold::hvx::backend;

}  // namespace

int fold_main() {
  hexrt::write_str("fold-hvx " FOLD_GROUP_NAME ": __HVX_ARCH__=");
  hexrt::write_int(__HVX_ARCH__);
  hexrt::write_str(" __HVX_LENGTH__=");
  hexrt::write_int(__HVX_LENGTH__);
  hexrt::write_str("\n");
  PrintSink sink;
#if defined(FOLD_GROUP_elementwise)
  fold_test::check_all_elementwise<H>(sink);
  fold_test::check_all_casts<H>(sink);
#elif defined(FOLD_GROUP_quantized)
  fold_test::check_all_quantized<H>(sink);
#elif defined(FOLD_GROUP_layout)
  fold_test::check_all_layout<H>(sink);
#else
#error "define one FOLD_GROUP_*"
#endif
  hexrt::write_str("fold-hvx: ");
  hexrt::write_int(sink.passed);
  hexrt::write_str(" checks passed, ");
  hexrt::write_int(sink.failed);
  hexrt::write_str(" failed\n");
  return sink.failed == 0 && sink.passed > 0 ? 0 : 1;
}
