// The exact reference variant: one invocation per output pixel on a 2D grid,
// every tap read from the buffer, weights precomputed in double on the host
// and normalised. No shared memory: no limit on line length or radius.
#include <cstring>

#include "passes/blur_variants/blur_variant.h"
#include "passes/gaussian_weights.h"
#include "passes/pass_util.h"
#include "passes/shader_interface.h"
#include "kGaussianBlurExactF16.h"
#include "kGaussianBlurExactF32.h"

namespace rgfx::passes {
namespace {

using graph::StepResource;

// Must match the push_constant block of gaussian_blur_exact.comp.
struct ExactPush {
  uint32_t width;
  uint32_t height;
  int32_t radius;
  uint32_t axis;
  uint32_t border;
};

class ExactBlur final : public BlurVariant {
 public:
  std::string_view name() const override { return "exact"; }
  bool exact() const override { return true; }
  std::string Note() const override {
    return "exact: the reference; one invocation per pixel, taps read from memory, weights "
           "precomputed in double; no limit on line length or radius";
  }

  absl::Status Plan(const BlurConfig& config, graph::PassPlan& plan,
                    BlurPrepared& prepared) const override {
    const std::vector<double> weights = GaussianWeights(config.radius, config.sigma);
    std::vector<std::byte> blob(weights.size() * sizeof(float));
    for (size_t i = 0; i < weights.size(); ++i) {
      const float w = static_cast<float>(weights[i]);
      std::memcpy(blob.data() + i * sizeof(float), &w, sizeof(float));
    }
    plan.constants.push_back(std::move(blob));
    if (config.axes == "both") {
      plan.temp_extents = {config.extent};
      plan.steps.push_back({"horizontal", {StepResource::Input(0)}, {StepResource::Temp(0)}});
      plan.steps.push_back({"vertical", {StepResource::Temp(0)}, {StepResource::Output(0)}});
    } else {
      plan.steps.push_back({config.axes, {StepResource::Input(0)}, {StepResource::Output(0)}});
    }
    prepared.steps.resize(plan.steps.size());
    prepared.accuracy = {true, "exact (float rounding only)", {}};
    return absl::OkStatus();
  }

  absl::Status Record(graph::RecordContext& ctx, int step,
                      const BlurPrepared& prepared) const override {
    const graph::Extent extent = prepared.config.extent;
    const std::string& label = ctx.plan().steps[step].label;
    const ExactPush push{extent.width, extent.height, prepared.config.radius,
                         label == "horizontal" ? uint32_t{RGFX_AXIS_HORIZONTAL}
                                               : uint32_t{RGFX_AXIS_VERTICAL},
                         prepared.config.border};
    const gpu::ShaderCode shader =
        WorkingShader(ctx.working_format(), "gaussian_blur_exact", kGaussianBlurExactF16,
                      kGaussianBlurExactF32, 3, sizeof(ExactPush));
    const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0), ctx.constants(0)};
    return ctx.Dispatch(shader, {}, buffers, push, DivideRoundingUp(extent.width, RGFX_TILE_X),
                        DivideRoundingUp(extent.height, RGFX_TILE_Y), 1);
  }
};

}  // namespace

std::unique_ptr<BlurVariant> MakeExactBlur() { return std::make_unique<ExactBlur>(); }

}  // namespace rgfx::passes
