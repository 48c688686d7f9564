// og-onnx-test DIR...: runs ONNX backend test folders (model.onnx + test_data_set_*/input_*.pb,
// output_*.pb) through the importer and the reference interpreter and compares with the
// expected outputs: integers exactly, floats within 1e-4 relative (plus 1e-5 absolute, for
// values near zero). A DIR without model.onnx is a folder of tests (its subfolders, by name).
// One line per test; the last line is `N passed, M failed, K skipped`, where skipped means the
// importer does not claim an op type or element type of the test. Exit status 1 when any failed.
#include "onnx_import.hpp"

#include <optgrammar/ops/builtin.hpp>
#include <optgrammar/ops/onnx_eval.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

namespace fs = std::filesystem;
namespace oi = optgrammar::onnx_import;
using optgrammar::DType;
using optgrammar::engine::Tensor;

namespace {

constexpr double rtol = 1e-4, atol = 1e-5;

using optgrammar::ops::infer::shape_string;

/// Empty when equal within tolerance, else what differs.
std::string compare(const Tensor& got, const Tensor& want_as_read) {
  Tensor want = want_as_read;
  // ONNX's test data of this version stores bfloat16 values as uint16 tensors of their bits.
  if (got.def.dtype == DType::BFloat16 && want.def.dtype == DType::UInt16) want.def.dtype = DType::BFloat16;
  if (got.def.dtype != want.def.dtype)
    return "dtype " + std::string(optgrammar::dtype_name(got.def.dtype)) + ", expected " + std::string(optgrammar::dtype_name(want.def.dtype));
  if (!got.def.same_shape(want.def)) return "shape " + shape_string(got.def) + ", expected " + shape_string(want.def);
  namespace ev = optgrammar::ops::onnx_eval;
  const bool fl = ev::is_float(want.def.dtype);
  for (std::size_t i = 0; i < want.def.element_count(); ++i) {
    const double a = ev::get(got.def.dtype, got.data.data(), i), b = ev::get(want.def.dtype, want.data.data(), i);
    bool ok;
    if (!fl) ok = ev::get_int(got.def.dtype, got.data.data(), i) == ev::get_int(want.def.dtype, want.data.data(), i);
    else if (std::isnan(b)) ok = std::isnan(a);
    else if (std::isinf(b)) ok = a == b;
    else ok = std::fabs(a - b) <= rtol * std::fabs(b) + atol;
    if (!ok) return "element " + std::to_string(i) + " is " + std::to_string(a) + ", expected " + std::to_string(b);
  }
  return {};
}

std::vector<fs::path> numbered(const fs::path& dir, const std::string& prefix, const std::string& suffix) {
  std::vector<fs::path> v;
  for (std::size_t k = 0;; ++k) {
    fs::path p = dir / (prefix + std::to_string(k) + suffix);
    if (!fs::exists(p)) break;
    v.push_back(p);
  }
  return v;
}

enum class Outcome { pass, fail, skip };

/// Tests whose expected values ONNX Runtime does not compute, so that the interpreter, which
/// follows ONNX Runtime, is not held to them: they are skipped with the reason.
struct Divergent {
  std::string_view test, why;
};
constexpr std::string_view bfloat16_truncated =
    "the expected values truncate float to bfloat16; ONNX Runtime, and the interpreter, round to nearest even";
constexpr Divergent divergent[] = {
    {"test_cast_FLOAT_to_BFLOAT16", bfloat16_truncated},
    {"test_castlike_FLOAT_to_BFLOAT16", bfloat16_truncated},
    {"test_castlike_FLOAT_to_BFLOAT16_expanded", bfloat16_truncated},
};

Outcome run_test_unguarded(const fs::path& dir, std::string& msg) {
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) {
    msg = "no test_data_set_* folder";
    return Outcome::fail;
  }
  oi::Imported m;
  try {
    // Named inputs of the first data set fix the model's symbolic input dims.
    oi::ImportOptions opt;
    for (const auto& p : numbered(sets[0], "input_", ".pb")) {
      std::string name;
      try {
        const Tensor t = oi::read_tensor_file(p.string(), &name);
        if (!name.empty()) opt.input_shapes[name].assign(t.def.dims.begin(), t.def.dims.begin() + t.def.rank);
      } catch (const oi::ImportError&) {
        // not a tensor of an imported type: the import below says what it does not take
      }
    }
    m = oi::import_file((dir / "model.onnx").string(), opt);
  } catch (const oi::ImportError& e) {
    msg = e.what();
    return e.kind == oi::ImportError::Kind::invalid ? Outcome::fail : Outcome::skip;
  }
  try {
    for (const auto& s : sets) {
      const std::string set = s.filename().string() + ": ";
      std::vector<Tensor> ins;
      for (const auto& p : numbered(s, "input_", ".pb")) ins.push_back(oi::read_tensor_file(p.string()));
      std::vector<Tensor> want;
      for (const auto& p : numbered(s, "output_", ".pb")) want.push_back(oi::read_tensor_file(p.string()));
      auto got = optgrammar::engine::interpret(m.graph, ins);
      if (got.size() != want.size()) {
        msg = set + std::to_string(got.size()) + " outputs, " + std::to_string(want.size()) + " expected";
        return Outcome::fail;
      }
      for (std::size_t k = 0; k < got.size(); ++k)
        if (auto d = compare(got[k], want[k]); !d.empty()) {
          msg = set + "output " + std::to_string(k) + " ('" + m.outputs[k] + "'): " + d;
          return Outcome::fail;
        }
    }
  } catch (const std::exception& e) {
    msg = e.what();
    return Outcome::fail;
  }
  msg = std::to_string(sets.size()) + (sets.size() == 1 ? " data set" : " data sets");
  return Outcome::pass;
}

Outcome run_test(const fs::path& dir, std::string& msg) {
  for (const Divergent& d : divergent)
    if (dir.filename() == d.test) {
      msg = d.why;
      return Outcome::skip;
    }
  try {
    return run_test_unguarded(dir, msg);
  } catch (const std::exception& e) {
    msg = e.what();
    return Outcome::fail;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: og-onnx-test DIR...   (an ONNX backend test folder, or a folder of them)\n";
    return 2;
  }
  std::vector<fs::path> tests;
  for (int i = 1; i < argc; ++i) {
    const fs::path d = argv[i];
    if (fs::exists(d / "model.onnx")) {
      tests.push_back(d);
      continue;
    }
    if (!fs::is_directory(d)) {
      std::cerr << "og-onnx-test: " << d.string() << " is neither a test folder nor a folder of tests\n";
      return 2;
    }
    std::vector<fs::path> sub;
    for (const auto& e : fs::directory_iterator(d))
      if (fs::exists(e.path() / "model.onnx")) sub.push_back(e.path());
    std::sort(sub.begin(), sub.end());
    tests.insert(tests.end(), sub.begin(), sub.end());
  }
  std::size_t passed = 0, failed = 0, skipped = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& t : tests) {
    std::string msg;
    switch (run_test(t, msg)) {
      case Outcome::pass: ++passed; std::cout << "PASS " << t.filename().string() << " (" << msg << ")\n"; break;
      case Outcome::fail: ++failed; std::cout << "FAIL " << t.filename().string() << ": " << msg << "\n"; break;
      case Outcome::skip: ++skipped; std::cout << "SKIP " << t.filename().string() << ": " << msg << "\n"; break;
    }
    std::cout.flush();
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::cerr << "og-onnx-test: " << tests.size() << " tests in " << static_cast<long>(ms) << " ms\n";
  std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
  return failed ? 1 : 0;
}
