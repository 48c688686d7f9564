// The semantic tests' main: Catch2's, with --graphs N and --first-seed S added (graph seeds
// S ... S + N - 1) and --verbose (the rule table) added, so that the same binary is the CTest test and the tool that
// checks more.
#define CATCH_CONFIG_RUNNER
#include "semantic_options.hpp"

#include <catch2/catch.hpp>

int main(int argc, char** argv) {
  Catch::Session session;
  using Catch::clara::Opt;
  auto cli = session.cli() |
             Opt(semantic::options().graphs, "n")["--graphs"]("how many random graphs per package (default 1000)") |
             Opt(semantic::options().first_seed, "seed")["--first-seed"]("seed of the first graph (default 1)") |
             Opt(semantic::options().verbose)["--verbose"]("print the table of rules fired also when the check passes");
  session.cli(cli);
  if (int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  return session.run();
}
