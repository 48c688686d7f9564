// A program built with OPTGRAMMAR_SEPARATE_OP_DEFINITIONS (docs/embedding.md, "Compile the
// kernels once"). Linked with og_op_definitions it finds a builtin op and folds with it (test
// ops.separate_definitions_link); compiled alone it must fail to link, the linker naming
// ops::definitions() (test ops.separate_definitions_without_impl).
#include <optgrammar/ops/definition_verify.hpp>

#include <array>
#include <cstdio>
#include <span>
#include <vector>

int main() {
  namespace og = optgrammar;
  og::Graph g;
  const og::OutputDef d = og::OutputDef::make(og::DType::Float32, {2});
  const og::OpRef sum = g.add_op("Add", {g.add_const(d, {1.5f, 2.0f}), g.add_const(d, {0.25f, -4.0f})}, d);
  const og::ops::OpDefinition* add = og::ops::find_definition(g.name_id(sum));
  if (!add || !add->eval) return 1;
  std::vector<og::ops::ValueView> views;
  std::array<float, 2> out{};
  if (!add->eval(og::ops::op_view(g, sum, views), std::as_writable_bytes(std::span(out)), og::ops::Backend::fast))
    return 2;
  std::printf("%g %g\n", static_cast<double>(out[0]), static_cast<double>(out[1]));
  return out[0] == 1.75f && out[1] == -2.0f ? 0 : 3;
}
