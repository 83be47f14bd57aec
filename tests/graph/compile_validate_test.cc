// Every error Compile() reports, with its code and the name it points at.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/compile.h"
#include "gtest/gtest.h"
#include "tests/graph/fake_passes.h"

namespace rgfx::graph::testing {
namespace {

using ::testing::HasSubstr;

absl::Status CompileStatus(const GraphDesc& desc, const CompileLimits& limits = {},
                           const gpu::DeviceCaps& caps = gpu::LavapipeLikeCaps()) {
  static const auto* registry = MakeFakeRegistry().release();
  return Compile(desc, *registry, caps, limits).status();
}

#define EXPECT_INVALID(desc, text)                                            \
  do {                                                                        \
    const absl::Status status_ = CompileStatus(desc);                         \
    EXPECT_EQ(status_.code(), absl::StatusCode::kInvalidArgument) << status_; \
    EXPECT_THAT(std::string(status_.message()), HasSubstr(text));             \
  } while (0)

GraphDesc OneBlur() {
  GraphDesc desc;
  desc.inputs = {In("photo")};
  desc.passes = {P("blur", "blur", {"photo"}, {"soft"})};
  desc.outputs = {Out("soft")};
  return desc;
}

TEST(GraphValidate, AcceptsValidGraph) { EXPECT_TRUE(CompileStatus(OneBlur()).ok()); }

TEST(GraphValidate, RejectsEmptyGraph) { EXPECT_INVALID(GraphDesc{}, "graph has no outputs"); }

TEST(GraphValidate, RejectsGraphWithoutOutputs) {
  GraphDesc desc = OneBlur();
  desc.outputs.clear();
  EXPECT_INVALID(desc, "graph has no outputs");
}

TEST(GraphValidate, RejectsNonFloatWorkingFormat) {
  GraphDesc desc = OneBlur();
  desc.working_format = PixelFormat::kRgba8;
  EXPECT_INVALID(desc, "working format RGBA8 is not supported (use RGBA16F or RGBA32F)");
  desc.working_format = PixelFormat::kRgba32F;
  EXPECT_TRUE(CompileStatus(desc).ok());
}

TEST(GraphValidate, RejectsTooManyPasses) {
  CompileLimits limits;
  limits.max_passes = 3;
  EXPECT_TRUE(CompileStatus(BlurChain(3), limits).ok());
  const absl::Status status = CompileStatus(BlurChain(4), limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("graph has 4 passes, more than the limit of 3 (max_passes)"));
}

TEST(GraphValidate, RejectsBadInputs) {
  GraphDesc desc = OneBlur();
  desc.inputs[0].name = "";
  EXPECT_INVALID(desc, "input #0 has an empty name");

  desc = OneBlur();
  desc.inputs.push_back(In("photo"));
  EXPECT_INVALID(desc, "input 'photo' is listed twice");

  desc = OneBlur();
  desc.inputs[0].extent = {0, 32};
  EXPECT_INVALID(desc, "input 'photo' has zero size (0×32)");

  desc = OneBlur();
  desc.inputs[0].name = "pho@to";
  EXPECT_INVALID(desc, "input 'pho@to': names may not contain ':', '@' or '#'");
}

TEST(GraphValidate, RejectsInputOverPixelLimit) {
  CompileLimits limits;
  limits.max_pixels = 1000;
  GraphDesc desc = OneBlur();
  desc.inputs[0].extent = {100, 11};
  const absl::Status status = CompileStatus(desc, limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("input 'photo' (100×11 = 1100 pixels) exceeds the limit of 1000 pixels"));
}

TEST(GraphValidate, RejectsEmptyPassName) {
  GraphDesc desc = OneBlur();
  desc.passes[0].name = "";
  EXPECT_INVALID(desc, "pass #0 has an empty name");
}

TEST(GraphValidate, RejectsReservedCharactersInPassNames) {
  for (const char* name : {"a:b", "a@b", "a#b"}) {
    GraphDesc desc = OneBlur();
    desc.passes[0].name = name;
    EXPECT_INVALID(desc, absl::StrCat("pass '", name, "': names may not contain"));
  }
}

TEST(GraphValidate, RejectsDuplicatePassName) {
  GraphDesc desc = OneBlur();
  desc.passes.push_back(P("blur", "blur", {"soft"}, {"softer"}));
  EXPECT_INVALID(desc, "duplicate pass name 'blur'");
}

TEST(GraphValidate, RejectsUnknownPassTypeAndListsKnownOnes) {
  GraphDesc desc = OneBlur();
  desc.passes[0].type = "gausian_blur";
  EXPECT_INVALID(desc, "pass 'blur': unknown pass type 'gausian_blur'");
  EXPECT_INVALID(desc, "(known: blur, composite, downsample, split, upsample)");
}

TEST(GraphValidate, ClientsCannotUseInternalPassTypes) {
  for (const char* type : {"import", "export"}) {
    GraphDesc desc = OneBlur();
    desc.passes[0].type = type;
    EXPECT_INVALID(desc, absl::StrCat("pass 'blur': unknown pass type '", type, "'"));
  }
}

TEST(GraphValidate, RejectsWrongNumberOfInputs) {
  GraphDesc desc = OneBlur();
  desc.passes[0].inputs = {"photo", "photo"};
  EXPECT_INVALID(desc, "pass 'blur' (type 'blur') takes 1 input (source), got 2");

  desc = OneBlur();
  desc.passes = {P("mix", "composite", {"photo"}, {"soft"})};
  EXPECT_INVALID(desc,
                 "pass 'mix' (type 'composite') takes 2 to 3 inputs (base, overlay, mask), got 1");
}

TEST(GraphValidate, AcceptsOptionalInputs) {
  GraphDesc desc = OneBlur();
  desc.passes = {P("mix", "composite", {"photo", "photo", "photo"}, {"soft"})};
  EXPECT_TRUE(CompileStatus(desc).ok());
}

TEST(GraphValidate, RejectsWrongNumberOfOutputs) {
  GraphDesc desc = OneBlur();
  desc.passes[0].outputs = {"soft", "softer"};
  EXPECT_INVALID(desc, "pass 'blur' (type 'blur') writes 1 output (result), got 2");
  desc.passes = {P("s", "split", {"photo"}, {"soft"})};
  EXPECT_INVALID(desc, "pass 's' (type 'split') writes 2 outputs (low, high), got 1");
}

TEST(GraphValidate, RejectsBadParams) {
  GraphDesc desc = OneBlur();
  desc.passes[0].params.Set("radius", int64_t{101});
  EXPECT_INVALID(desc, "pass 'blur': parameter 'radius' = 101 is out of range [0, 100]");

  desc = OneBlur();
  desc.passes[0].params.Set("sigma", std::nan(""));
  EXPECT_INVALID(desc, "pass 'blur': parameter 'sigma' = nan is out of range");

  desc = OneBlur();
  desc.passes[0].params.Set("size", int64_t{3});
  EXPECT_INVALID(desc, "pass 'blur': unknown parameter 'size'");

  desc = OneBlur();
  desc.passes[0].params.Set("border", std::string("repeat"));
  EXPECT_INVALID(desc, "parameter 'border' = 'repeat' is not one of: clamp, mirror, wrap, zero");
}

TEST(GraphValidate, RejectsUnknownInputResource) {
  GraphDesc desc = OneBlur();
  desc.passes.push_back(P("blur2", "blur", {"foo"}, {"x"}));
  EXPECT_INVALID(desc, "pass 'blur2': unknown input resource 'foo'");
}

TEST(GraphValidate, RejectsBadOutputResourceNames) {
  GraphDesc desc = OneBlur();
  desc.passes[0].outputs = {""};
  EXPECT_INVALID(desc, "pass 'blur': output has an empty name");
  desc.passes[0].outputs = {"soft@out"};
  EXPECT_INVALID(desc, "pass 'blur': output 'soft@out': names may not contain");
}

TEST(GraphValidate, RejectsResourceWrittenTwice) {
  GraphDesc desc = OneBlur();
  desc.passes.push_back(P("blur2", "blur", {"photo"}, {"soft"}));
  EXPECT_INVALID(desc, "resource 'soft' is written twice: by pass 'blur' and by pass 'blur2'");

  desc = OneBlur();
  desc.passes = {P("s", "split", {"photo"}, {"soft", "soft"})};
  EXPECT_INVALID(desc, "resource 'soft' is written twice: by pass 's' and by pass 's'");
}

TEST(GraphValidate, RejectsPassWritingAnInput) {
  GraphDesc desc = OneBlur();
  desc.passes[0].outputs = {"photo"};
  EXPECT_INVALID(desc, "pass 'blur' writes 'photo', which is an input image");
}

TEST(GraphValidate, RejectsCycleAndNamesItsPasses) {
  GraphDesc desc;
  desc.inputs = {In("photo")};
  desc.passes = {P("entry", "composite", {"photo", "c"}, {"a"}), P("b", "blur", {"a"}, {"b_out"}),
                 P("c", "blur", {"b_out"}, {"c"}), P("tail", "blur", {"c"}, {"out"})};
  desc.outputs = {Out("out")};
  EXPECT_INVALID(desc, "graph has a cycle: entry -> b -> c -> entry");
}

TEST(GraphValidate, RejectsPassReadingItsOwnOutput) {
  GraphDesc desc;
  desc.inputs = {In("photo")};
  desc.passes = {P("loop", "composite", {"photo", "x"}, {"x"})};
  desc.outputs = {Out("x")};
  EXPECT_INVALID(desc, "graph has a cycle: loop -> loop");
}

TEST(GraphValidate, RejectsOutputNotProduced) {
  GraphDesc desc = OneBlur();
  desc.outputs.push_back(Out("sharp"));
  EXPECT_INVALID(desc, "output 'sharp' is not produced by any pass or input");
}

TEST(GraphValidate, RejectsBadOutputList) {
  GraphDesc desc = OneBlur();
  desc.outputs.push_back(Out("soft"));
  EXPECT_INVALID(desc, "output 'soft' is listed twice");
  desc = OneBlur();
  desc.outputs[0].name = "";
  EXPECT_INVALID(desc, "output #0 has an empty name");
}

TEST(GraphValidate, ValidatesCulledPassesToo) {
  GraphDesc desc = OneBlur();
  desc.passes.push_back(P("unused", "blur", {"photo"}, {"u"}));
  ASSERT_TRUE(CompileStatus(desc).ok());
  desc.passes.back().params.Set("raduis", int64_t{3});
  EXPECT_INVALID(desc, "pass 'unused': unknown parameter 'raduis'");
  desc.passes.back().params = {};
  desc.passes.back().inputs = {"typo"};
  EXPECT_INVALID(desc, "pass 'unused': unknown input resource 'typo'");
}

TEST(GraphValidate, PassesPlanErrorsThrough) {
  GraphDesc desc;
  desc.inputs = {In("a", 64, 32), In("b", 32, 32)};
  desc.passes = {P("mix", "composite", {"a", "b"}, {"out"})};
  desc.outputs = {Out("out")};
  EXPECT_INVALID(desc, "pass 'mix': inputs differ in size (64x32 and 32x32)");
}

TEST(GraphValidate, RejectsPlannedResourceOverPixelLimit) {
  CompileLimits limits;
  limits.max_pixels = 64 * 32 * 3;
  GraphDesc desc = OneBlur();
  desc.passes = {P("up", "upsample", {"photo"}, {"big"})};
  desc.outputs = {Out("big")};
  const absl::Status status = CompileStatus(desc, limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("pass 'up': resource 'big' (128×64 = 8192 pixels) "
                        "exceeds the limit of 6144 pixels per image"));
}

TEST(GraphValidate, RejectsZeroSizedPlannedResource) {
  GraphDesc desc;
  desc.inputs = {In("photo", 1, 1)};
  desc.passes = {P("down", "downsample", {"photo"}, {"small"})};
  desc.outputs = {Out("small")};
  EXPECT_INVALID(desc, "pass 'down': resource 'small' would have zero size (0×0)");
}

TEST(GraphValidate, RejectsResourceOverStorageBufferRange) {
  gpu::DeviceCaps caps = gpu::LavapipeLikeCaps();
  caps.max_storage_buffer_range = 64 * 32 * 8 - 1;  // one byte short of a 64×32 RGBA16F image
  const absl::Status status = CompileStatus(OneBlur(), {}, caps);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("resource 'photo' (64×32 RGBA16F, 16384 bytes) exceeds the device's "
                        "maxStorageBufferRange of 16383 bytes"));

  // The raw image is checked too: RGBA32F is larger than the working format.
  caps.max_storage_buffer_range = 64 * 32 * 8;
  GraphDesc desc = OneBlur();
  desc.inputs[0].format = PixelFormat::kRgba32F;
  EXPECT_THAT(std::string(CompileStatus(desc, {}, caps).message()),
              HasSubstr("resource 'photo@raw' (64×32 RGBA32F, 32768 bytes) exceeds"));
}

TEST(GraphValidate, MissingInternalPassTypesAreOurBug) {
  PassRegistry empty;
  const absl::Status status = Compile(OneBlur(), empty, gpu::LavapipeLikeCaps()).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()), HasSubstr("'import' and 'export' are not registered"));
}

// A pass type whose plan refers to a temp it did not declare.
class BrokenPass final : public PassType {
 public:
  std::string_view name() const override { return "broken"; }
  const PassSchema& schema() const override { return schema_; }
  absl::StatusOr<PassPlan> Plan(const PlanContext& ctx) const override {
    PassPlan plan;
    plan.output_extents = {ctx.input_extents[0]};
    plan.steps.push_back({"oops", {StepResource::Temp(0)}, {StepResource::Output(0)}});
    return plan;
  }
  absl::Status Record(RecordContext&, int) const override { return absl::OkStatus(); }

 private:
  PassSchema schema_{"", {"source"}, 1, {"result"}, {}, "", {}};
};

TEST(GraphValidate, BrokenPlanIsAnInternalError) {
  auto registry = MakeFakeRegistry();
  registry->Register(std::make_unique<BrokenPass>());
  GraphDesc desc = OneBlur();
  desc.passes[0].type = "broken";
  const absl::Status status = Compile(desc, *registry, gpu::LavapipeLikeCaps()).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("pass 'blur' (type 'broken'): a step refers to buffer 0 of 0"));
}

}  // namespace
}  // namespace rgfx::graph::testing
