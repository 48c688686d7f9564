// The canonical text form (dsl/canonical.hpp, docs/canonical-form.md) of analyzed rules: each
// leaf and construct as the form's tables say. (og-parse's tests require the same text from
// og-parse on every rule of the repository.)
#include "analyzed.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace {
using namespace optgrammar::dsl;

template <class R>
std::string canonical(std::string_view flags = "") {
  return canonical_text(analyzed<R>::value, flags);
}

OG_ANALYZED(relu, EARLY + 1, Op("Relu", LET("r", Op("Relu", "x"))), OK, "r")
OG_ANALYZED(leaves, LATE - 2, Op("A", "x"), AND(EQ(DIM_OF("x", 0x10), 12u), LT(FLOAT(RANK_OF("x")), 1.f), NOT(false)),
            Op("B",
               "x"
               "y"))
OG_ANALYZED(floats, EARLY, Op("A", "x"), GT(CONSTVAL_FLOAT("x", 0), -1.331e-2), "x")
OG_ANALYZED(dtype, EARLY, Op("A", "x"), EQ(DTYPE_OF("x"), DType::QUInt8), "x")
OG_ANALYZED(expanded, EARLY, Op("A", "x", "y"), SAME_SHAPE("x", "y"), "x")
OG_ANALYZED(cast_const, EARLY, Op("A", "x"), EQ(DIM_OF("x", 3), size_t(256)), "x")
}  // namespace

TEST_CASE("canonical text: the pass, LET and Op as written, OK as true") {
  CHECK(canonical<relu>() == "DEF_PACKAGE_OPTIMIZATION(EARLY+1,Op(\"Relu\",LET(\"r\",Op(\"Relu\",\"x\"))),true,\"r\")");
}

TEST_CASE("canonical text: constants by value and type, adjacent strings joined") {
  CHECK(canonical<leaves>() ==
        "DEF_PACKAGE_OPTIMIZATION(LATE-2,Op(\"A\",\"x\"),AND(EQ(DIM_OF(\"x\",16),12U),LT(FLOAT(RANK_OF(\"x\")),1.0f),"
        "NOT(false)),Op(\"B\",\"xy\"))");
  CHECK(canonical<floats>().find("GT(CONSTVAL_FLOAT(\"x\",0),-0.0133100003f)") != std::string::npos);
  CHECK(canonical<dtype>().find("EQ(DTYPE_OF(\"x\"),DType::QUInt8)") != std::string::npos);
  CHECK(canonical<cast_const>().find("EQ(DIM_OF(\"x\",3),256U)") != std::string::npos);
}

TEST_CASE("canonical text: a name defined by others prints as what it stands for") {
  const std::string c = canonical<expanded>();
  CHECK(c ==
        "DEF_PACKAGE_OPTIMIZATION(EARLY,Op(\"A\",\"x\",\"y\"),AND(EQ(DIM_OF(\"x\",3),DIM_OF(\"y\",3)),"
        "EQ(DIM_OF(\"x\",2),DIM_OF(\"y\",2)),EQ(DIM_OF(\"x\",1),DIM_OF(\"y\",1)),EQ(DIM_OF(\"x\",0),DIM_OF(\"y\",0))),"
        "\"x\")");
}

TEST_CASE("canonical text: flags after the pass") {
  CHECK(canonical<relu>("relaxed_precision_flag") ==
        "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY+1,relaxed_precision_flag,Op(\"Relu\",LET(\"r\",Op(\"Relu\",\"x\"))),"
        "true,\"r\")");
}
