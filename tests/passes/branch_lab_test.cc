// branch_lab: every decision mode, flattened or not, at every slow fraction,
// writes bit-identical pixels (and the reference's values); and the two
// SPIR-V builds really differ in the selection control of the branch:
// DontFlatten in one, Flatten in the other (checked in the embedded words,
// and with spirv-dis when it is installed).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/passes/effects_reference.h"
#include "tests/support/gpu_env.h"
#include "kBranchLabF16.h"
#include "kBranchLabFlatF16.h"

namespace rgfx {
namespace {

using graph::PixelFormat;
using testing::Bytes;
using testing::ImageD;

class BranchLabTest : public testing::GpuTest {};

TEST_F(BranchLabTest, EveryModeWritesIdenticalPixels) {
  std::mt19937 rng(1);
  const int w = 37, h = 150;  // 19 tile rows: 16 bands of 1 or 2
  ImageD in{w, h, std::vector<double>(w * h * 4)};
  std::uniform_real_distribution<double> u(-0.5, 1.5);
  for (double& v : in.v) v = u(rng);
  const Bytes input = testing::EncodeClient(in, PixelFormat::kRgba32F);
  const ImageD want = testing::BranchLabRef(
      testing::DecodeClient(input, w, h, PixelFormat::kRgba32F));
  for (PixelFormat working : {PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
    std::optional<Bytes> first;
    for (const char* mode : {"specialization", "uniform", "divergent"}) {
      for (bool flatten : {false, true}) {
        for (double fraction : {0.0, 0.25, 0.5, 1.0}) {
          SCOPED_TRACE(absl::StrCat(mode, flatten ? " flatten" : "", " fraction ", fraction, " ",
                                    std::string(graph::PixelFormatName(working))));
          graph::GraphDesc desc;
          desc.working_format = working;
          desc.inputs.push_back({"in", {w, h}, PixelFormat::kRgba32F, graph::ColorSpace::kLinear,
                                 graph::AlphaMode::kPremultiplied});
          graph::PassDesc pass{"lab", "branch_lab", {"in"}, {"out"}, {}};
          pass.params.Set("mode", std::string(mode));
          pass.params.Set("flatten", flatten);
          pass.params.Set("slow_fraction", fraction);
          pass.params.Set("slow_iterations", int64_t{40});
          desc.passes.push_back(pass);
          desc.outputs.push_back({"out", PixelFormat::kRgba32F, graph::ColorSpace::kLinear,
                                  graph::AlphaMode::kPremultiplied});
          auto run = testing::RunGraph(desc, {input});
          ASSERT_TRUE(run.ok()) << run.status();
          if (!first) {
            first = run->outputs[0];
            const ImageD got = testing::DecodeClient(*first, w, h, PixelFormat::kRgba32F);
            const double tol = working == PixelFormat::kRgba16F ? 2e-3 : 1e-6;
            for (size_t i = 0; i < want.v.size(); ++i) {
              ASSERT_NEAR(got.v[i], want.v[i], tol * std::max(1.0, std::abs(want.v[i])))
                  << "value " << i;
            }
          } else {
            EXPECT_TRUE(run->outputs[0] == *first) << "differs from the first mode's pixels";
          }
        }
      }
    }
  }
}

// The SelectionControl operand of every OpSelectionMerge (opcode 247).
std::vector<uint32_t> SelectionControls(std::span<const uint32_t> spirv) {
  std::vector<uint32_t> controls;
  for (size_t i = 5; i < spirv.size();) {
    const uint32_t count = spirv[i] >> 16, opcode = spirv[i] & 0xffff;
    if (count == 0) break;
    if (opcode == 247 && count == 3) controls.push_back(spirv[i + 2]);
    i += count;
  }
  return controls;
}

TEST(BranchLabSpirv, FlattenAndDontFlattenReallyDiffer) {
  constexpr uint32_t kFlatten = 1, kDontFlatten = 2;
  const auto kept = SelectionControls(kBranchLabF16);
  const auto flat = SelectionControls(kBranchLabFlatF16);
  ASSERT_EQ(kept.size(), flat.size());
  EXPECT_EQ(std::count(kept.begin(), kept.end(), kDontFlatten), 1);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), kFlatten), 0);
  EXPECT_EQ(std::count(flat.begin(), flat.end(), kFlatten), 1);
  EXPECT_EQ(std::count(flat.begin(), flat.end(), kDontFlatten), 0);
}

// The same through the disassembler, the way a person would check it.
TEST(BranchLabSpirv, SpirvDisShowsTheSelectionControl) {
  for (auto [words, expected] :
       {std::pair{std::span<const uint32_t>(kBranchLabF16), "DontFlatten"},
        std::pair{std::span<const uint32_t>(kBranchLabFlatF16), "Flatten"}}) {
    const std::string path =
        absl::StrCat(::testing::TempDir(), "/branch_lab_", expected, ".spv");
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(words.data()), words.size_bytes());
    FILE* pipe = popen(absl::StrCat("spirv-dis --raw-id ", path, " 2>&1").c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string text;
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof(buffer), pipe)) text.append(buffer, n);
    ASSERT_EQ(pclose(pipe), 0) << "spirv-dis (package spirv-tools) failed: " << text;
    const std::string needle = absl::StrCat(" ", expected, "\n");
    int merges_with_control = 0;
    for (size_t at = 0; (at = text.find("OpSelectionMerge", at)) != std::string::npos; ++at) {
      const size_t end = text.find('\n', at);
      if (text.substr(at, end - at + 1).ends_with(needle)) ++merges_with_control;
    }
    EXPECT_EQ(merges_with_control, 1) << expected;
  }
}

}  // namespace
}  // namespace rgfx
