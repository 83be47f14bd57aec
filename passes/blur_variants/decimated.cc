// decimated: line_cache with at most max_taps taps taken every `step` pixels
// (shaders/gaussian_blur_decimated.comp), weights renormalised over the taps
// taken. Approximate when it steps; the plan states its expected PSNR.
#include "passes/blur_variants/decimated.h"

#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "passes/blur_variants/line_variant.h"
#include "passes/pass_util.h"
#include "kGaussianBlurDecimatedF16.h"
#include "kGaussianBlurDecimatedF32.h"

namespace rgfx::passes {

DecimatedTaps ChooseDecimatedTaps(int radius, int max_taps) {
  if (2 * radius + 1 <= max_taps) return {1, radius};
  const int budget = (max_taps - 1) / 2;  // taps each side
  const int step = (radius + budget - 1) / budget;
  return {step, radius / step};
}

double DecimatedNoisePsnr(int radius, double sigma, DecimatedTaps taps, bool both_axes) {
  if (taps.step == 1) return std::numeric_limits<double>::infinity();
  // Normalised 1D kernels over offsets -radius..radius.
  std::vector<double> a(2 * radius + 1), b(2 * radius + 1);
  double sum_a = 0, sum_b = 0;
  for (int k = -radius; k <= radius; ++k) {
    const double w = std::exp(-0.5 * k * k / (sigma * sigma));
    a[k + radius] = w;
    sum_a += w;
    if (k % taps.step == 0 && std::abs(k / taps.step) <= taps.half_taps) {
      b[k + radius] = w;
      sum_b += w;
    }
  }
  double aa = 0, ab = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] /= sum_a;
    b[i] /= sum_b;
    aa += a[i] * a[i];
    ab += a[i] * b[i];
    bb += b[i] * b[i];
  }
  const double d2 = both_axes ? aa * aa - 2 * ab * ab + bb * bb : aa - 2 * ab + bb;
  const double mse = std::max(d2, 0.0) / 12.0;
  return mse > 0 ? -10.0 * std::log10(mse) : std::numeric_limits<double>::infinity();
}

namespace {

class DecimatedBlur final : public LineBlurVariant {
 public:
  std::string_view name() const override { return "decimated"; }
  bool exact() const override { return false; }
  std::string Note() const override {
    const DecimatedTaps taps = ChooseDecimatedTaps(64, 64);
    return absl::StrFormat(
        "decimated: line_cache with at most max_taps taps (default 64), every step-th pixel, "
        "renormalised; approximate once 2·radius+1 > max_taps: e.g. radius 64, sigma 32 takes "
        "%d taps every %d px, expected PSNR %.1f dB against exact on uniform noise (the "
        "plan states it for each use; with clamp borders images a few radii wide measure up "
        "to 4 dB less, as the edge pixel repeats under many taps); smooth images do far "
        "better; same chunk limit as line_cache",
        2 * taps.half_taps + 1, taps.step, DecimatedNoisePsnr(64, 32, taps, true));
  }

 protected:
  gpu::ShaderCode Shader(graph::PixelFormat working) const override {
    return WorkingShader(working, "gaussian_blur_decimated", kGaussianBlurDecimatedF16,
                         kGaussianBlurDecimatedF32, 2, sizeof(LinePush));
  }
  absl::StatusOr<StepKernel> Kernel(const BlurConfig& config,
                                    const LineLayout& layout) const override {
    const DecimatedTaps taps = ChooseDecimatedTaps(config.radius, config.max_taps);
    return CachedLineKernel(config, name(), layout, taps.step * taps.half_taps);
  }
  absl::Status PlanTaps(const BlurConfig& config, graph::PassPlan& plan,
                        BlurPrepared& prepared) const override {
    if (absl::Status s = LineBlurVariant::PlanTaps(config, plan, prepared); !s.ok()) return s;
    const DecimatedTaps taps = ChooseDecimatedTaps(config.radius, config.max_taps);
    prepared.tap_step = taps.step;
    prepared.half_taps = taps.half_taps;
    prepared.inv_total = static_cast<float>(InverseWeightTotal(config, taps.step, taps.half_taps));
    if (taps.step > 1) {
      const double psnr =
          DecimatedNoisePsnr(config.radius, config.sigma, taps, config.axes == "both");
      prepared.accuracy = {
          false,
          absl::StrFormat("approximate: %d taps every %d px instead of %d; expected PSNR %.1f dB "
                          "against exact on uniform noise",
                          2 * taps.half_taps + 1, taps.step, 2 * config.radius + 1, psnr),
          psnr};
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<BlurVariant> MakeDecimatedBlur() { return std::make_unique<DecimatedBlur>(); }

}  // namespace rgfx::passes
