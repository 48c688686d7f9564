// The one file of each of the project's own programs that defines ops::definitions(), so that the
// folding kernels are compiled here once and not again in every test or tool file that verifies,
// folds or interprets (docs/embedding.md, "Compile the kernels once"). Built as the library
// og_op_definitions, which also defines OPTGRAMMAR_SEPARATE_OP_DEFINITIONS for whatever links it.
#include <optgrammar/ops/definitions_impl.hpp>
