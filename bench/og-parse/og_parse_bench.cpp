// Throughput of og-parse (scan, parse, check, lint) over a generated op-package file of 10k rules
// in the style of shipped packages: comments, helper macros, compatibility names, AUTOSPLIT; each
// rule has a constraint of its own, so the file gives no diagnostic, lint on (the benchmark checks).
//
//   og_parse_bench [Google Benchmark options]
//   og_parse_bench --write-input FILE      writes the generated file (for og-parse as a process:
//                                          bench/og-parse/process.sh) and runs nothing
#include "common/host_context.hpp"

#include <og_parse/og_parse.hpp>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace {

std::string generate(int rules) {
  std::string s =
      "// generated op package for og_parse_bench\n"
      "#include \"HTP/core/optimize.h\"\n"
      "#define MIN_DEPTH 32\n"
      "#define IS_BIG(X) GT(DIM_DEPTH(X), MIN_DEPTH)\n"
      "// :::EXTERNAL_SHAPEFN::: { QuickShape pad_shape(Replacement &, OpRef const &, int); }\n\n";
  for (int i = 0; i < rules; ++i) {
    const std::string op = "Op" + std::to_string(i % 997);
    const std::string n = std::to_string(i);
    switch (i % 5) {
      case 0:
        s += "DEF_PACKAGE_OPTIMIZATION(EARLY + " + std::to_string(i % 7) + ",\n    Op(\"" + op +
             "\", \"In\", LET(\"w\", Op(\"$Const\"))),  // fold weights\n    AND(IS_QUINT8(\"In\"), EQ(DIM_OF(\"w\", "
             "3), " +
             n + "), SAME_SHAPE(\"In\", \"*\")),\n    Op(\"" + op + ".opt\", \"In\", \"w\"))\n\n";
        break;
      case 1:
        s += "DEF_PACKAGE_OPTIMIZATION(TILING,\n    Op(\"" + op +
             "\", \"Act\", \"W\", \"S\"),\n    AND(GT(DIM_DEPTH(\"*\"), CHANNEL_SPLIT_SIZE), IS_BIG(\"Act\"), "
             "NE(DIM_WIDTH(\"Act\"), " +
             n +
             ")),\n"
             "    AUTOSPLIT(3, \"I\", CHANNEL_SPLIT_SIZE, Op(\"" +
             op + "\", TYPICAL_SLICE(\"Act\", \"I\"), \"W\", \"S\")))\n\n";
        break;
      case 2:
        s += "/* requantize */\nDEF_PACKAGE_OPTIMIZATION(LATE + 10,\n    Op(\"" + op +
             "\", \"In\", \"W\", \"S\"),\n    OR(LT(DIV(STEPSIZE_OF(\"In\"), STEPSIZE_OF(\"*\")), 0.00390625f), "
             "GT(MUL(RANK_OF(\"W\"), 2u), " +
             n +
             "u)),\n    Op(FROM_DEFAULT_PACKAGE(\"Requantize\"), WITH_SIZE(gen_ShapeOf(\"*\"), "
             "WITH_TYPE(\"In\", Op(\"" +
             op + "\", \"In\", \"W\", \"S\")))))\n\n";
        break;
      case 3:
        s += "DEF_PACKAGE_OPTIMIZATION(HARD_OPS, Op(\"" + op +
             "\", \"x\", \"y\"), AND(NOT(SAME_OP(\"x\", \"y\")), LT(RANK_OF(\"x\"), " + n +
             ")),\n    SELECT(EQ(DTYPE_OF(\"x\"), DType::Float32), "
             "WITH_OUTPUT_TYPE(DType::QUInt8, 0, 1.0f, Op(\"" +
             op +
             "_q\", \"x\", \"y\")), "
             "Op(\"" +
             op + "_f\", SHAPEFN_APPLY(pad_shape, \"x\", " + n + "), \"y\")))\n\n";
        break;
      default:
        s += "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"" + op +
             "\", OpVarIn(\"Concat\", \"a\")), "
             "EXTERNAL_CONSTRAINT(can_fold, \"a\", " +
             n + ", 1.5f), gen_ConstArr_vals_i32(1, 2, " + n + "))\n\n";
    }
  }
  return s;
}

/// The rule count of every benchmark over a generated file, and of --write-input.
constexpr int generated_rules = 10000;

void BM_og_parse_10k_rules(benchmark::State& state) {
  const std::string text = generate(generated_rules);
  std::size_t rules = 0;
  for (auto _ : state) {
    og_parse::Session s;
    s.add_source("generated.cpp", text);
    s.run();
    if (!s.diagnostics().empty()) {
      state.SkipWithError("the generated file has diagnostics");
      break;
    }
    rules = s.rules().size();
    benchmark::DoNotOptimize(rules);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(text.size()));
  state.counters["rules"] = static_cast<double>(rules);
  state.counters["file_MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_og_parse_10k_rules)->Unit(benchmark::kMillisecond)->MinTime(1.0);

void BM_og_parse_10k_rules_no_lint(benchmark::State& state) {
  const std::string text = generate(generated_rules);
  for (auto _ : state) {
    og_parse::Session s({.strict = false, .lint = false});
    s.add_source("generated.cpp", text);
    s.run();
    benchmark::DoNotOptimize(s.rules().size());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(text.size()));
}
BENCHMARK(BM_og_parse_10k_rules_no_lint)->Unit(benchmark::kMillisecond)->MinTime(1.0);

/// C++ that is no rule text, at the scanner's worst: calls nested without end (each name followed
/// by '(' is looked at as a possible function declaration), and many declarations in a row. The
/// scanner must stay linear in the file's size here too (a bounded look at each candidate).
void BM_og_parse_hostile_calls(benchmark::State& state) {
  std::string text;
  for (int i = 0; i < 30000; ++i) text += "a(";
  text += "\n";
  for (int i = 0; i < 3000; ++i) text += "OpRef f" + std::to_string(i) + "(Replacement &r, OpRef x, int n) ";
  for (auto _ : state) {
    og_parse::Session s;
    s.add_source("hostile.cpp", text);
    s.run();
    benchmark::DoNotOptimize(s.diagnostics().size());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(text.size()));
}
BENCHMARK(BM_og_parse_hostile_calls)->Unit(benchmark::kMillisecond)->MinTime(0.5);

/// --write-input FILE: writes what BM_og_parse_10k_rules reads to FILE. Returns the exit status.
int write_input(const char* path) {
  const std::string text = generate(generated_rules);
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "og_parse_bench: cannot write '%s'\n", path);
    return 1;
  }
  std::fprintf(stderr, "og_parse_bench: wrote %zu bytes (%d rules) to %s\n", text.size(), generated_rules, path);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--write-input") == 0) {
    if (argc != 3) {
      std::fprintf(stderr, "usage: og_parse_bench --write-input FILE\n");
      return 2;
    }
    return write_input(argv[2]);
  }
  return bench::run_benchmarks(argc, argv);
}
