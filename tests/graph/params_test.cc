#include "graph/params.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rgfx::graph {
namespace {

using ::testing::HasSubstr;

std::vector<ParamSpec> Specs() {
  ParamSpec border{"border", ParamType::kEnum, "", ParamValue(std::string("clamp"))};
  border.enum_values = {"clamp", "mirror", "wrap", "zero"};
  return {{"radius", ParamType::kInt, "", ParamValue(int64_t{8}), 0, 4096},
          {"sigma", ParamType::kFloat, "", std::nullopt, 1e-3, 1e6},
          border,
          {"flip", ParamType::kBool, "", ParamValue(false), 0, 0}};
}

absl::Status Check(Params& params) { return ValidateAndFillParams("blur", Specs(), params); }

TEST(Params, FillsDefaultsAndLeavesOptionalAbsent) {
  Params params;
  ASSERT_TRUE(Check(params).ok());
  EXPECT_EQ(params.Int("radius"), 8);
  EXPECT_EQ(params.Enum("border"), "clamp");
  EXPECT_FALSE(params.Bool("flip"));
  EXPECT_FALSE(params.Has("sigma"));
  EXPECT_EQ(params.OptionalFloat("sigma"), std::nullopt);
}

TEST(Params, KeepsGivenValues) {
  Params params;
  params.Set("radius", int64_t{64});
  params.Set("sigma", 32.5);
  params.Set("border", std::string("wrap"));
  params.Set("flip", true);
  ASSERT_TRUE(Check(params).ok());
  EXPECT_EQ(params.Int("radius"), 64);
  EXPECT_EQ(params.Float("sigma"), 32.5);
  EXPECT_EQ(params.OptionalFloat("sigma"), 32.5);
  EXPECT_EQ(params.Enum("border"), "wrap");
  EXPECT_TRUE(params.Bool("flip"));
}

TEST(Params, RejectsUnknownParameterAndListsKnownOnes) {
  Params params;
  params.Set("radus", int64_t{3});
  absl::Status status = Check(params);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("pass 'blur': unknown parameter 'radus'"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("radius, sigma, border, flip"));
}

TEST(Params, IntGivenForFloatIsConverted) {
  Params params;
  params.Set("sigma", int64_t{3});
  ASSERT_TRUE(Check(params).ok());
  EXPECT_TRUE(std::holds_alternative<double>(*params.Find("sigma")));
  EXPECT_EQ(params.Float("sigma"), 3.0);
}

TEST(Params, IntegralFloatGivenForIntIsConverted) {
  Params params;
  params.Set("radius", 16.0);
  ASSERT_TRUE(Check(params).ok());
  EXPECT_EQ(params.Int("radius"), 16);
}

TEST(Params, RejectsNonIntegralFloatForInt) {
  Params params;
  params.Set("radius", 2.5);
  absl::Status status = Check(params);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("pass 'blur': parameter 'radius' must be an integer, got 2.5"));
}

TEST(Params, RejectsWrongTypes) {
  {
    Params params;
    params.Set("radius", std::string("big"));
    absl::Status status = Check(params);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(status.message()),
                HasSubstr("parameter 'radius' must be an int, got string big"));
  }
  {
    Params params;
    params.Set("sigma", true);
    EXPECT_THAT(std::string(Check(params).message()),
                HasSubstr("parameter 'sigma' must be a float, got bool true"));
  }
  {
    Params params;
    params.Set("flip", int64_t{1});
    EXPECT_THAT(std::string(Check(params).message()),
                HasSubstr("parameter 'flip' must be a bool, got int 1"));
  }
  {
    Params params;
    params.Set("border", int64_t{0});
    EXPECT_THAT(std::string(Check(params).message()),
                HasSubstr("parameter 'border' must be an enum, got int 0"));
  }
}

TEST(Params, RangeIsInclusive) {
  for (int64_t radius : {int64_t{0}, int64_t{4096}}) {
    Params params;
    params.Set("radius", radius);
    EXPECT_TRUE(Check(params).ok()) << radius;
  }
  Params params;
  params.Set("sigma", 1e-3);
  EXPECT_TRUE(Check(params).ok());
}

TEST(Params, RejectsOutOfRange) {
  Params params;
  params.Set("radius", int64_t{-1});
  absl::Status status = Check(params);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(status.message()),
            "pass 'blur': parameter 'radius' = -1 is out of range [0, 4096]");

  Params high;
  high.Set("sigma", 2e6);
  EXPECT_THAT(std::string(Check(high).message()),
              HasSubstr("parameter 'sigma' = 2000000 is out of range [0.001, 1000000]"));
}

TEST(Params, RejectsNanAndInfinity) {
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity()}) {
    Params params;
    params.Set("sigma", bad);
    absl::Status status = Check(params);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(status.message()), HasSubstr("is out of range")) << bad;
  }
  Params params;
  params.Set("radius", std::nan(""));
  EXPECT_THAT(std::string(Check(params).message()), HasSubstr("must be an integer, got nan"));
}

TEST(Params, RejectsUnknownEnumValueAndListsValidOnes) {
  Params params;
  params.Set("border", std::string("repeat"));
  absl::Status status = Check(params);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(status.message()),
            "pass 'blur': parameter 'border' = 'repeat' is not one of: clamp, mirror, wrap, zero");
}

TEST(Params, EnumMatchesIgnoringCaseAndIsNormalised) {
  Params params;
  params.Set("border", std::string("MIRROR"));
  ASSERT_TRUE(Check(params).ok());
  EXPECT_EQ(params.Enum("border"), "mirror");
}

TEST(Params, ToStringAndTypeNames) {
  EXPECT_EQ(ParamValueToString(ParamValue(true)), "true");
  EXPECT_EQ(ParamValueToString(ParamValue(int64_t{-3})), "-3");
  EXPECT_EQ(ParamValueToString(ParamValue(0.1)), "0.1");
  EXPECT_EQ(ParamValueToString(ParamValue(std::string("clamp"))), "clamp");
  EXPECT_EQ(ParamTypeName(ParamType::kBool), "bool");
  EXPECT_EQ(ParamTypeName(ParamType::kInt), "int");
  EXPECT_EQ(ParamTypeName(ParamType::kFloat), "float");
  EXPECT_EQ(ParamTypeName(ParamType::kEnum), "enum");
}

TEST(Params, FloatAccessorAcceptsInts) {
  Params params;
  params.Set("x", int64_t{7});
  EXPECT_EQ(params.Float("x"), 7.0);
  EXPECT_EQ(params.Find("missing"), nullptr);
}

}  // namespace
}  // namespace rgfx::graph
