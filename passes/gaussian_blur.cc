#include "passes/gaussian_blur.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "passes/gaussian_weights.h"
#include "passes/pass_util.h"
#include "passes/shader_interface.h"
#include "kGaussianBlurExactF16.h"
#include "kGaussianBlurExactF32.h"

namespace rgfx::passes {
namespace {

// Must match the push_constant block of gaussian_blur_exact.comp.
struct BlurPush {
  uint32_t width;
  uint32_t height;
  int32_t radius;
  uint32_t axis;
  uint32_t border;
};

const std::vector<std::string>& Variants() {
  static const auto* v = new std::vector<std::string>{"auto", "exact"};
  return *v;
}

graph::PassSchema BlurSchema() {
  graph::PassSchema schema;
  schema.doc =
      "Separable Gaussian blur in linear, premultiplied light: a horizontal step then a "
      "vertical one (or a single axis). Weights are computed in double and normalised.";
  schema.input_names = {"source"};
  schema.output_names = {"result"};
  graph::ParamSpec radius{"radius", graph::ParamType::kInt,
                          "kernel radius in pixels; 2·radius+1 taps; 0 is the identity",
                          int64_t{8}, 0, kMaxBlurRadius};
  graph::ParamSpec sigma{"sigma", graph::ParamType::kFloat,
                         "standard deviation in pixels; default radius / 2", std::nullopt,
                         1e-3, 1e6};
  graph::ParamSpec axes{"axes", graph::ParamType::kEnum,
                        "both (horizontal then vertical, default), horizontal or vertical",
                        std::string("both")};
  axes.enum_values = {"both", "horizontal", "vertical"};
  graph::ParamSpec variant{"variant", graph::ParamType::kEnum,
                           "kernel variant; auto picks the fastest exact one",
                           std::string("auto")};
  variant.enum_values = Variants();
  schema.params = {radius, sigma, BorderParamSpec(), axes, variant};
  schema.variant_param = "variant";
  schema.notes = {"exact: one invocation per pixel, taps read from memory, no limit on line "
                  "length or radius"};
  return schema;
}

class GaussianBlurPass final : public graph::PassType {
 public:
  GaussianBlurPass() : schema_(BlurSchema()) {}
  std::string_view name() const override { return "gaussian_blur"; }
  const graph::PassSchema& schema() const override { return schema_; }

  absl::StatusOr<graph::PassPlan> Plan(const graph::PlanContext& ctx) const override {
    const int radius = static_cast<int>(ctx.params.Int("radius"));
    const double sigma = ctx.params.OptionalFloat("sigma").value_or(radius / 2.0);
    if (radius > 0 && !(sigma > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("pass '", ctx.pass_name, "': sigma must be > 0"));
    }
    graph::PassPlan plan;
    plan.variant = "exact";
    plan.output_extents = {ctx.input_extents[0]};
    const std::vector<double> weights = GaussianWeights(radius, sigma);
    std::vector<std::byte> blob(weights.size() * sizeof(float));
    for (size_t i = 0; i < weights.size(); ++i) {
      const float w = static_cast<float>(weights[i]);
      std::memcpy(blob.data() + i * sizeof(float), &w, sizeof(float));
    }
    plan.constants.push_back(std::move(blob));

    using graph::StepResource;
    const std::string& axes = ctx.params.Enum("axes");
    if (axes == "both") {
      plan.temp_extents = {ctx.input_extents[0]};
      plan.steps.push_back({"horizontal", {StepResource::Input(0)}, {StepResource::Temp(0)}});
      plan.steps.push_back({"vertical", {StepResource::Temp(0)}, {StepResource::Output(0)}});
    } else {
      plan.steps.push_back({axes, {StepResource::Input(0)}, {StepResource::Output(0)}});
    }
    return plan;
  }

  absl::Status Record(graph::RecordContext& ctx, int step) const override {
    const graph::Extent extent = ctx.input_extents()[0];
    const std::string& label = ctx.plan().steps[step].label;
    const BlurPush push{extent.width, extent.height,
                        static_cast<int32_t>(ctx.params().Int("radius")),
                        label == "horizontal" ? uint32_t{RGFX_AXIS_HORIZONTAL}
                                              : uint32_t{RGFX_AXIS_VERTICAL},
                        EnumIndex(ctx.params(), "border", BorderModes())};
    const gpu::ShaderCode shader =
        WorkingShader(ctx.working_format(), "gaussian_blur_exact", kGaussianBlurExactF16,
                      kGaussianBlurExactF32, 3, sizeof(BlurPush));
    const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0), ctx.constants(0)};
    return ctx.Dispatch(shader, {}, buffers, push, DivideRoundingUp(extent.width, RGFX_TILE_X),
                        DivideRoundingUp(extent.height, RGFX_TILE_Y), 1);
  }

 private:
  const graph::PassSchema schema_;
};

}  // namespace

std::unique_ptr<graph::PassType> MakeGaussianBlurPass() {
  return std::make_unique<GaussianBlurPass>();
}

}  // namespace rgfx::passes
