// A program built with OPTGRAMMAR_SEPARATE_OP_DEFINITIONS (docs/embedding.md, "Compile the
// kernels once"). Linked with og_op_definitions it finds a builtin op and folds with it (test
// ops.separate_definitions_link); compiled alone it must fail to link, the linker naming
// ops::definitions() (test ops.separate_definitions_without_impl).
#include <optgrammar/ops/builtin.hpp>

#include <array>
#include <cstdio>
#include <cstring>

int main() {
  namespace og = optgrammar;
  const og::ops::OpDefinition* add = og::ops::find_definition("Add");
  if (!add || !add->eval) return 1;
  og::OutputDef d;
  d.dtype = og::DType::Float32;
  d.rank = 1;
  d.dims[0] = 2;
  const std::array<float, 2> a{1.5f, 2.0f}, b{0.25f, -4.0f};
  std::array<og::ops::ValueView, 2> in{};
  in[0].def = in[1].def = &d;
  in[0].known = in[1].known = true;
  in[0].data = std::as_bytes(std::span(a));
  in[1].data = std::as_bytes(std::span(b));
  og::ops::OpView v;
  v.operands = in;
  v.declared = &d;
  std::array<float, 2> out{};
  if (!add->eval(v, std::as_writable_bytes(std::span(out)), og::ops::Backend::fast)) return 2;
  std::printf("%g %g\n", static_cast<double>(out[0]), static_cast<double>(out[1]));
  return out[0] == 1.75f && out[1] == -2.0f ? 0 : 3;
}
