// og-opt --check N: the reference interpreter runs the graph on N random inputs before and after
// rewriting; the outputs are compared element by element. An element agrees when
// |after - before| <= tolerance * |before| + atol (atol 1e-5 by default: it only matters near
// zero; a quantized model's outputs are compared within a quantization step, --check-atol; an
// infinity agrees only with the same infinity);
// per output the largest absolute and relative (over elements with before != 0) differences are
// reported, and an output with an element that does not agree is an error.
#pragma once

#include <optgrammar/engine/interpret.hpp>
#include <optgrammar/ops/onnx_eval.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace og_opt {

struct CheckRun {
  std::vector<std::vector<optgrammar::engine::Tensor>> inputs, before;
};

/// Interprets g on n random inputs (seeds 1..n). Throws engine::InterpretError.
inline CheckRun check_before(const optgrammar::Graph& g, std::size_t n) {
  CheckRun c;
  for (std::size_t s = 1; s <= n; ++s) {
    c.inputs.push_back(optgrammar::engine::random_inputs(g, s));
    c.before.push_back(optgrammar::engine::interpret(g, c.inputs.back()));
  }
  return c;
}

struct OutputDiff {
  double max_abs = 0, max_rel = 0;
  bool ok = true;
  std::string problem;  ///< a changed shape or dtype, or the first NaN that appeared or disappeared
};

/// Interprets the rewritten g on the same inputs; one entry per output.
inline std::vector<OutputDiff> check_after(const optgrammar::Graph& g, const CheckRun& c, double tolerance,
                                           double atol = 1e-5) {
  namespace ev = optgrammar::ops::onnx_eval;
  std::vector<OutputDiff> d;
  for (std::size_t s = 0; s < c.inputs.size(); ++s) {
    const auto after = optgrammar::engine::interpret(g, c.inputs[s]);
    d.resize(std::max(d.size(), after.size()));
    for (std::size_t k = 0; k < after.size() && k < c.before[s].size(); ++k) {
      const auto &a = after[k], &b = c.before[s][k];
      if (!a.def.same_shape(b.def) || a.def.dtype != b.def.dtype) {
        d[k].ok = false;
        d[k].problem = "its shape or dtype changed";
        continue;
      }
      for (std::size_t i = 0; i < b.def.element_count(); ++i) {
        const double x = ev::get(a.def.dtype, a.data.data(), i), y = ev::get(b.def.dtype, b.data.data(), i);
        if (std::isnan(x) || std::isnan(y)) {
          if (std::isnan(x) != std::isnan(y)) {
            d[k].ok = false;
            // NaNs take no part in the differences: said here, else the diffs read 0.
            if (d[k].problem.empty())
              d[k].problem =
                  fmt::format("element {} of input set {} is {} after the rewrite, {} before", i, s + 1, x, y);
          }
          continue;
        }
        const double abs = x == y ? 0.0 : std::fabs(x - y);
        d[k].max_abs = std::max(d[k].max_abs, abs);
        if (y != 0 && std::isfinite(y)) d[k].max_rel = std::max(d[k].max_rel, abs / std::fabs(y));
        // An infinity agrees only with itself (the relative bound of an infinite `before` holds
        // for any value).
        if (!(abs <= tolerance * std::fabs(y) + atol) || (std::isinf(y) && x != y)) d[k].ok = false;
      }
    }
    if (after.size() != c.before[s].size()) {
      d.resize(std::max(after.size(), c.before[s].size()));
      d.back().ok = false;
      d.back().problem = "the number of outputs changed";
    }
  }
  return d;
}

/// --check N, before the run: interprets the input graph on N random inputs. False (with the
/// message printed) when the interpreter cannot run it; the message names the integer inputs,
/// since random values suit data, not indices, axes or sizes.
inline bool start_check(const optgrammar::Graph& g, std::size_t n, CheckRun& check) {
  try {
    check = check_before(g, n);
    return true;
  } catch (const std::exception& e) {
    std::cerr << "og-opt: --check: the interpreter cannot run the input graph: " << e.what() << "\n";
    std::string ints;
    for (optgrammar::OpRef r : g.live_ops())
      if (g.name_id(r) == optgrammar::op_names::input &&
          (optgrammar::dtype_info(g.output(r).dtype).kind == optgrammar::DTypeKind::integer ||
           g.output(r).dtype == optgrammar::DType::QInt32))
        ints += (ints.empty() ? "%" : ", %") + std::to_string(r.index);
    if (!ints.empty())
      std::cerr << "og-opt: note: --check fills the graph inputs with random values; the integer input(s) " << ints
                << " may hold indices, axes or sizes, which random values put out of range\n";
    return false;
  }
}

/// --check N, after the run: interprets the result on the same inputs and prints the differences
/// per output to `report`. Returns 0, 1 when the interpreter cannot run the result, 4 when an
/// output changed beyond `tolerance`.
inline int finish_check(const optgrammar::Graph& g, const CheckRun& check, double tolerance, double atol,
                        std::FILE* report, std::vector<OutputDiff>& diffs) {
  try {
    diffs = check_after(g, check, tolerance, atol);
  } catch (const std::exception& e) {
    std::cerr << "og-opt: --check: the interpreter cannot run the result graph: " << e.what() << "\n";
    return 1;
  }
  bool ok = true;
  for (std::size_t k = 0; k < diffs.size(); ++k) {
    fmt::print(report, "check: output {}: max abs diff {:.3g}, max rel diff {:.3g} over {} inputs{}\n", k,
               diffs[k].max_abs, diffs[k].max_rel, check.inputs.size(), diffs[k].ok ? "" : " (beyond tolerance)");
    if (!diffs[k].ok) {
      std::cerr << "og-opt: --check: output " << k << " changed beyond the tolerance " << tolerance;
      if (!diffs[k].problem.empty()) std::cerr << ": " << diffs[k].problem;
      std::cerr << "\n";
      ok = false;
    }
  }
  return ok ? 0 : 4;
}

}  // namespace og_opt
