// tiled_halo: tiles of a line plus a halo of radius each side in shared
// memory, taps paired and interpolated (shaders/gaussian_blur_tiled_halo.comp).
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "passes/blur_variants/line_variant.h"
#include "passes/blur_variants/tiled_halo.h"
#include "passes/gaussian_weights.h"
#include "passes/pass_util.h"
#include "passes/shader_interface.h"
#include "kGaussianBlurTiledHaloF16.h"
#include "kGaussianBlurTiledHaloF32.h"

namespace rgfx::passes {

uint32_t TiledHaloTile(const gpu::DeviceCaps& caps) {
  return std::min<uint32_t>(
      {RGFX_TILED_HALO_TILE, caps.max_workgroup_invocations, caps.max_workgroup_size[0]});
}

int TiledHaloMaxRadius(const gpu::DeviceCaps& caps, graph::PixelFormat working) {
  const uint32_t pixels =
      caps.max_compute_shared_memory_bytes / (working == graph::PixelFormat::kRgba32F ? 16 : 8);
  const uint32_t tile = TiledHaloTile(caps);
  return pixels > tile ? static_cast<int>((pixels - tile) / 2) : 0;
}

namespace {

class TiledHaloBlur final : public LineBlurVariant {
 public:
  std::string_view name() const override { return "tiled_halo"; }
  bool exact() const override { return true; }
  std::string Note() const override {
    return "tiled_halo: tiles of 256 px (or the device's maximum workgroup) plus a halo of "
           "radius each side in shared memory; taps k, k+1 paired into one interpolated tap "
           "(weight w_k+w_{k+1}, position t = w_{k+1}/(w_k+w_{k+1})): 33 taps become 17 at "
           "radius 16. Interpolating in fp32 makes the pairing exact up to float rounding (the "
           "published version's hardware bilinear taps were not). Needs tile + 2·radius pixels "
           "of shared memory: radius <= 1920 RGBA16F / 896 RGBA32F with 32 KB, 2944 / 1408 "
           "with 48 KB; INVALID_ARGUMENT beyond";
  }

 protected:
  uint32_t num_buffers() const override { return 3; }
  gpu::ShaderCode Shader(graph::PixelFormat working) const override {
    return WorkingShader(working, "gaussian_blur_tiled_halo", kGaussianBlurTiledHaloF16,
                         kGaussianBlurTiledHaloF32, 3, sizeof(LinePush));
  }

  absl::Status PlanTaps(const BlurConfig& config, graph::PassPlan& plan,
                        BlurPrepared& prepared) const override {
    if (absl::Status s = LineBlurVariant::PlanTaps(config, plan, prepared); !s.ok()) return s;
    const int max_radius = TiledHaloMaxRadius(config.caps, config.working);
    if (config.radius > max_radius) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pass '", config.pass_name, "': variant tiled_halo: radius ", config.radius,
          " needs a tile of ", TiledHaloTile(config.caps), " pixels plus ", 2 * config.radius,
          " halo pixels in shared memory, more than the ",
          config.caps.max_compute_shared_memory_bytes, " bytes of ", config.caps.name,
          " hold in ", std::string(graph::PixelFormatName(config.working)), "; radius <= ", max_radius,
          " here, or use variant tuned, line_cache or exact"));
    }
    // (t, weight) per pair of taps, in double, as floats; see the shader.
    const std::vector<double> w = GaussianWeights(config.radius, config.sigma);
    const int pairs = (config.radius + 1) / 2;
    std::vector<float> table = {0.0f, static_cast<float>(w[0])};
    for (int p = 1; p <= pairs; ++p) {
      const double a = w[2 * p - 1];
      const double b = 2 * p <= config.radius ? w[2 * p] : 0.0;
      table.push_back(a + b > 0 ? static_cast<float>(b / (a + b)) : 0.0f);
      table.push_back(static_cast<float>(a + b));
    }
    std::vector<std::byte> blob(table.size() * sizeof(float));
    std::memcpy(blob.data(), table.data(), blob.size());
    plan.constants.push_back(std::move(blob));
    prepared.accuracy = {true, "exact (paired taps interpolated in fp32: float rounding only)",
                         {}};
    return absl::OkStatus();
  }

  absl::StatusOr<StepKernel> Kernel(const BlurConfig& config,
                                    const LineLayout& layout) const override {
    const uint32_t tile = TiledHaloTile(config.caps);
    const uint32_t need = tile + 2 * static_cast<uint32_t>(config.radius);
    const uint32_t max_pixels = config.caps.max_compute_shared_memory_bytes /
                                (config.working == graph::PixelFormat::kRgba32F ? 16 : 8);
    // Rounded to 64 px so radii share pipelines.
    const uint32_t capacity = std::min(max_pixels, (need + 63) / 64 * 64);
    StepKernel k;
    k.spec.values = {tile, capacity};
    k.groups_x = DivideRoundingUp(layout.n, tile);
    k.groups_y = layout.lines;
    k.details = absl::StrCat("tile ", tile, " + halo 2x", config.radius, ", cache ", capacity,
                             " px");
    return k;
  }
};

}  // namespace

std::unique_ptr<BlurVariant> MakeTiledHaloBlur() { return std::make_unique<TiledHaloBlur>(); }

}  // namespace rgfx::passes
