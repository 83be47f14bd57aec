// The effect passes (downsample, upsample, threshold, composite, dual_filter)
// against the double-precision references in effects_reference.h, on random
// images of odd and even sizes, every border mode, both working formats.
//
// Images are RGBA32F, linear, premultiplied (the client conversions are
// identities). Tolerance, relative to max(1, |expected|): 2e-5 in working
// RGBA32F (at most 36 float products summed, a few ulp each), 2e-3 in RGBA16F
// (the input, any intermediate level and the result are each rounded to half:
// ≤ 2^-12 relative per rounding, up to 2·iterations+1 roundings for dual_filter,
// against 2^-9 here).
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/passes/effects_reference.h"
#include "tests/support/gpu_env.h"

namespace rgfx {
namespace {

using graph::PixelFormat;
using testing::Border;
using testing::Bytes;
using testing::ImageD;

ImageD Noise(int w, int h, double scale, std::mt19937& rng) {
  ImageD img{w, h, std::vector<double>(size_t(w) * h * 4)};
  std::uniform_real_distribution<double> u(0.0, scale);
  for (double& v : img.v) v = u(rng);
  return img;
}

// Rounds through float, as the RGBA32F client bytes do.
ImageD AsFloat(const ImageD& img) {
  return testing::DecodeClient(testing::EncodeClient(img, PixelFormat::kRgba32F), img.width,
                               img.height, PixelFormat::kRgba32F);
}

// One pass over `inputs` named in0, in1, ...
absl::StatusOr<ImageD> RunPass(const std::string& type, const graph::Params& params,
                               const std::vector<ImageD>& inputs, PixelFormat working,
                               graph::Extent* out_size = nullptr) {
  graph::GraphDesc desc;
  desc.working_format = working;
  graph::PassDesc pass{"fx", type, {}, {"out"}, params};
  std::vector<Bytes> bytes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = absl::StrCat("in", i);
    desc.inputs.push_back({name, {uint32_t(inputs[i].width), uint32_t(inputs[i].height)},
                           PixelFormat::kRgba32F, graph::ColorSpace::kLinear,
                           graph::AlphaMode::kPremultiplied});
    pass.inputs.push_back(name);
    bytes.push_back(testing::EncodeClient(inputs[i], PixelFormat::kRgba32F));
  }
  desc.passes.push_back(pass);
  desc.outputs.push_back(
      {"out", PixelFormat::kRgba32F, graph::ColorSpace::kLinear, graph::AlphaMode::kPremultiplied});
  auto run = testing::RunGraph(desc, bytes);
  if (!run.ok()) return run.status();
  graph::Extent extent{};
  for (const auto& p : run->compiled->passes) {
    if (p.name == "fx") extent = p.plan.output_extents[0];
  }
  if (out_size) *out_size = extent;
  return testing::DecodeClient(run->outputs[0], int(extent.width), int(extent.height),
                               PixelFormat::kRgba32F);
}

void ExpectNear(const ImageD& got, const ImageD& want, PixelFormat working,
                const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(got.width, want.width);
  ASSERT_EQ(got.height, want.height);
  const double tol = working == PixelFormat::kRgba16F ? 2e-3 : 2e-5;
  int failures = 0;
  for (size_t i = 0; i < want.v.size(); ++i) {
    const double error = std::abs(got.v[i] - want.v[i]);
    if (!(error <= tol * std::max(1.0, std::abs(want.v[i]))) && ++failures <= 5) {
      ADD_FAILURE() << "pixel " << i / 4 % want.width << "," << i / 4 / want.width << " channel "
                    << i % 4 << ": got " << got.v[i] << " want " << want.v[i];
    }
  }
}

PixelFormat Working(int i) { return i % 2 ? PixelFormat::kRgba32F : PixelFormat::kRgba16F; }

const char* const kBorders[] = {"clamp", "mirror", "wrap", "zero"};

class EffectsTest : public testing::GpuTest {};

TEST_F(EffectsTest, DownsampleBoxAndTap13) {
  std::mt19937 rng(1);
  int i = 0;
  for (auto [w, h] : {std::pair{1, 1}, {7, 5}, {38, 29}}) {
    for (const char* filter : {"box", "tap13"}) {
      for (int factor : {2, 3}) {
        if (std::string(filter) == "tap13" && factor != 2) continue;
        for (const char* border : kBorders) {
          const ImageD in = AsFloat(Noise(w, h, 1.0, rng));
          graph::Params p;
          p.Set("factor", int64_t{factor});
          p.Set("filter", std::string(filter));
          p.Set("border", std::string(border));
          const PixelFormat working = Working(i++);
          auto got = RunPass("downsample", p, {in}, working);
          ASSERT_TRUE(got.ok()) << got.status();
          EXPECT_EQ(got->width, (w + factor - 1) / factor);
          ExpectNear(*got, testing::DownsampleRef(in, factor, filter, testing::ParseBorder(border)),
                     working, absl::StrCat("downsample ", w, "x", h, " ", filter, " ", factor,
                                           " ", border));
        }
      }
    }
  }
}

TEST_F(EffectsTest, UpsampleWithAndWithoutBase) {
  std::mt19937 rng(2);
  int i = 0;
  for (auto [w, h] : {std::pair{1, 1}, {5, 3}, {19, 11}}) {
    for (const char* filter : {"bilinear", "nearest", "tent"}) {
      for (const char* border : kBorders) {
        const ImageD in = AsFloat(Noise(w, h, 1.0, rng));
        graph::Params p;
        p.Set("filter", std::string(filter));
        p.Set("border", std::string(border));
        const PixelFormat working = Working(i++);
        const Border b = testing::ParseBorder(border);
        auto got = RunPass("upsample", p, {in}, working);
        ASSERT_TRUE(got.ok()) << got.status();
        ExpectNear(*got, testing::UpsampleRef(in, 2, filter, b, nullptr), working,
                   absl::StrCat("upsample ", w, "x", h, " ", filter, " ", border));
        // The bloom up-chain: an odd-sized base that downsamples to `in`.
        const ImageD base = AsFloat(Noise(2 * w - 1, 2 * h, 1.0, rng));
        auto added = RunPass("upsample", p, {in, base}, working);
        ASSERT_TRUE(added.ok()) << added.status();
        ExpectNear(*added, testing::UpsampleRef(in, 2, filter, b, &base), working,
                   absl::StrCat("upsample+base ", w, "x", h, " ", filter, " ", border));
        p.Set("base_weight", 0.25);
        auto weighted = RunPass("upsample", p, {in, base}, working);
        ASSERT_TRUE(weighted.ok()) << weighted.status();
        ExpectNear(*weighted, testing::UpsampleRef(in, 2, filter, b, &base, 0.25), working,
                   absl::StrCat("upsample+base/4 ", w, "x", h, " ", filter, " ", border));
      }
    }
  }
}

TEST_F(EffectsTest, ThresholdWithAndWithoutKnee) {
  std::mt19937 rng(3);
  int i = 0;
  for (double threshold : {0.0, 0.8, 1.5}) {
    for (double knee : {0.0, 0.25}) {
      const ImageD in = AsFloat(Noise(23, 9, 2.0, rng));
      graph::Params p;
      p.Set("threshold", threshold);
      p.Set("knee", knee);
      const PixelFormat working = Working(i++);
      auto got = RunPass("threshold", p, {in}, working);
      ASSERT_TRUE(got.ok()) << got.status();
      ExpectNear(*got, testing::ThresholdRef(in, threshold, knee), working,
                 absl::StrCat("threshold ", threshold, " knee ", knee));
    }
  }
}

TEST_F(EffectsTest, CompositeAddAndMix) {
  std::mt19937 rng(4);
  int i = 0;
  for (const char* mode : {"add", "mix"}) {
    for (double factor : {-1.0, 0.0, 0.3, 1.0}) {
      const ImageD a = AsFloat(Noise(17, 13, 1.0, rng)), b = AsFloat(Noise(17, 13, 1.0, rng));
      graph::Params p;
      p.Set("mode", std::string(mode));
      if (factor >= 0) p.Set("factor", factor);
      const double used = factor >= 0 ? factor : (std::string(mode) == "add" ? 1.0 : 0.5);
      const PixelFormat working = Working(i++);
      auto got = RunPass("composite", p, {a, b}, working);
      ASSERT_TRUE(got.ok()) << got.status();
      ExpectNear(*got, testing::CompositeRef(a, b, mode, used), working,
                 absl::StrCat("composite ", mode, " ", used));
    }
  }
}

TEST_F(EffectsTest, DualFilterEveryLevelCountAndBorder) {
  std::mt19937 rng(5);
  int i = 0;
  for (auto [w, h] : {std::pair{1, 1}, {37, 29}, {64, 48}}) {
    for (int iterations : {1, 3}) {
      for (double offset : {1.0, 1.5}) {
        const char* border = kBorders[i % 4];
        const ImageD in = AsFloat(Noise(w, h, 1.0, rng));
        graph::Params p;
        p.Set("iterations", int64_t{iterations});
        p.Set("offset", offset);
        p.Set("border", std::string(border));
        const PixelFormat working = Working(i++ / 4);
        auto got = RunPass("dual_filter", p, {in}, working);
        ASSERT_TRUE(got.ok()) << got.status();
        ExpectNear(*got,
                   testing::DualFilterRef(in, iterations, offset, testing::ParseBorder(border)),
                   working,
                   absl::StrCat("dual_filter ", w, "x", h, " x", iterations, " ", offset, " ",
                                border));
      }
    }
  }
}

TEST_F(EffectsTest, RefusalsNameTheSizesAndParameters) {
  std::mt19937 rng(6);
  graph::Params p;
  p.Set("mode", std::string("add"));
  auto mismatch = RunPass("composite", p, {Noise(8, 6, 1, rng), Noise(8, 7, 1, rng)},
                          PixelFormat::kRgba16F);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(mismatch.status().message()),
              ::testing::AllOf(::testing::HasSubstr("8x6"), ::testing::HasSubstr("8x7")));
  p.Set("mode", std::string("mix"));
  p.Set("factor", 1.5);
  auto mix = RunPass("composite", p, {Noise(8, 6, 1, rng), Noise(8, 6, 1, rng)},
                     PixelFormat::kRgba16F);
  EXPECT_EQ(mix.status().code(), absl::StatusCode::kInvalidArgument);
  graph::Params up;
  auto base = RunPass("upsample", up, {Noise(5, 3, 1, rng), Noise(12, 6, 1, rng)},
                      PixelFormat::kRgba16F);
  ASSERT_FALSE(base.ok());
  EXPECT_THAT(std::string(base.status().message()),
              ::testing::AllOf(::testing::HasSubstr("12x6"), ::testing::HasSubstr("5x3")));
  graph::Params down;
  down.Set("filter", std::string("tap13"));
  down.Set("factor", int64_t{4});
  auto tap13 = RunPass("downsample", down, {Noise(8, 8, 1, rng)}, PixelFormat::kRgba16F);
  EXPECT_EQ(tap13.status().code(), absl::StatusCode::kInvalidArgument);
}

// examples/graphs/bloom.json through the graph API, on an odd size: every
// up step returns to its level's size and the result is the photo's size.
TEST_F(EffectsTest, BloomChainRunsOnOddSizes) {
  std::mt19937 rng(7);
  const int w = 75, h = 43;
  graph::GraphDesc desc;
  desc.inputs.push_back({"photo", {w, h}, PixelFormat::kRgba8});
  auto add = [&](std::string name, std::string type, std::vector<std::string> in,
                 std::string out, graph::Params p) {
    desc.passes.push_back({name, type, in, {out}, p});
  };
  graph::Params down, up, blur, th, comp;
  down.Set("filter", std::string("tap13"));
  up.Set("filter", std::string("tent"));
  blur.Set("radius", int64_t{16});
  th.Set("knee", 0.5);
  comp.Set("factor", 0.25);
  add("bright", "threshold", {"photo"}, "bright", th);
  add("down1", "downsample", {"bright"}, "half", down);
  add("down2", "downsample", {"half"}, "quarter", down);
  add("down3", "downsample", {"quarter"}, "eighth", down);
  add("blur", "gaussian_blur", {"eighth"}, "eighth_soft", blur);
  add("up3", "upsample", {"eighth_soft", "quarter"}, "quarter_glow", up);
  add("up2", "upsample", {"quarter_glow", "half"}, "half_glow", up);
  add("up1", "upsample", {"half_glow", "bright"}, "glow", up);
  add("bloom", "composite", {"photo", "glow"}, "result", comp);
  desc.outputs.push_back({"result", PixelFormat::kRgba8});
  Bytes photo(w * h * 4);
  for (auto& b : photo) b = std::byte(rng() & 0xff);
  auto run = testing::RunGraph(desc, {photo});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->outputs[0].size(), photo.size());
}

}  // namespace
}  // namespace rgfx
