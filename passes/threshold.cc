#include "passes/threshold.h"

#include "passes/pass_util.h"
#include "passes/shader_interface.h"
#include "kThresholdF16.h"
#include "kThresholdF32.h"

namespace rgfx::passes {
namespace {

struct ThresholdPush {  // must match threshold.comp
  uint32_t width, height;
  float threshold, knee;
};

class ThresholdPass final : public graph::PassType {
 public:
  ThresholdPass() {
    schema_.doc =
        "Bright pass: with luminance L (Rec. 709 weights of the premultiplied linear colour) "
        "every channel is scaled by max(soft, L - threshold) / L, where soft = clamp(L - "
        "threshold + knee, 0, 2·knee)² / (4·knee) rounds the cut over threshold ± knee "
        "(knee 0: a hard cut). Output: the input's size.";
    schema_.input_names = {"source"};
    schema_.output_names = {"result"};
    schema_.params = {
        {"threshold", graph::ParamType::kFloat, "luminance where the cut sits (default 1.0)",
         1.0, 0, 65504},
        {"knee", graph::ParamType::kFloat, "half-width of the soft knee (default 0: hard)",
         0.0, 0, 65504}};
  }
  std::string_view name() const override { return "threshold"; }
  const graph::PassSchema& schema() const override { return schema_; }

  absl::StatusOr<graph::PassPlan> Plan(const graph::PlanContext& ctx) const override {
    graph::PassPlan plan;
    plan.output_extents = {ctx.input_extents[0]};
    plan.steps.push_back(
        {"threshold", {graph::StepResource::Input(0)}, {graph::StepResource::Output(0)}});
    return plan;
  }

  absl::Status Record(graph::RecordContext& ctx, int) const override {
    const graph::Extent e = ctx.input_extents()[0];
    const ThresholdPush push{e.width, e.height, float(ctx.params().Float("threshold")),
                             float(ctx.params().Float("knee"))};
    const gpu::ShaderCode shader = WorkingShader(ctx.working_format(), "threshold",
                                                 kThresholdF16, kThresholdF32, 2, sizeof(push));
    const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0)};
    return ctx.Dispatch(shader, {}, buffers, push, DivideRoundingUp(e.width, RGFX_TILE_X),
                        DivideRoundingUp(e.height, RGFX_TILE_Y), 1);
  }

 private:
  graph::PassSchema schema_;
};

}  // namespace

std::unique_ptr<graph::PassType> MakeThresholdPass() { return std::make_unique<ThresholdPass>(); }

}  // namespace rgfx::passes
