#include "passes/dual_filter.h"

#include <vector>

#include "passes/effect_util.h"
#include "passes/pass_util.h"
#include "passes/shader_interface.h"
#include "kDualFilterDownF16.h"
#include "kDualFilterDownF32.h"
#include "kDualFilterUpF16.h"
#include "kDualFilterUpF32.h"

namespace rgfx::passes {
namespace {

using graph::StepResource;

struct DualPush {  // must match dual_filter_down.comp and dual_filter_up.comp
  int32_t src_width, src_height, dst_width, dst_height;
  float offset;
  uint32_t border;
};

// Per step: sizes and direction (kept in PassPlan::prepared).
struct DualStep {
  graph::Extent src, dst;
  bool down;
};

class DualFilterPass final : public graph::PassType {
 public:
  DualFilterPass() {
    schema_.doc =
        "Dual Kawase blur (Bjørge 2015): `iterations` down steps to half size (centre ×4 plus "
        "four diagonal bilinear taps at ±offset, / 8), then as many up steps (four bilinear "
        "taps at ±offset on the axes ×1 and four at ±offset/2 diagonally ×2, / 12). Levels are "
        "ceil(previous / 2); every up step returns to the exact size of the level above. "
        "Output: the input's size.";
    schema_.input_names = {"source"};
    schema_.output_names = {"result"};
    schema_.params = {{"iterations", graph::ParamType::kInt, "down/up levels (default 4)",
                       int64_t{4}, 1, 8},
                      {"offset", graph::ParamType::kFloat,
                       "sample offset in pixels of each level's source (default 1)", 1.0, 0.01,
                       16},
                      BorderParamSpec()};
  }
  std::string_view name() const override { return "dual_filter"; }
  const graph::PassSchema& schema() const override { return schema_; }

  absl::StatusOr<graph::PassPlan> Plan(const graph::PlanContext& ctx) const override {
    const int levels = static_cast<int>(ctx.params.Int("iterations"));
    std::vector<graph::Extent> sizes = {ctx.input_extents[0]};
    for (int k = 1; k <= levels; ++k) sizes.push_back(Shrink(sizes.back(), 2));
    graph::PassPlan plan;
    plan.output_extents = {sizes[0]};
    std::vector<DualStep> steps;
    // Down: level k-1 → temp k-1 (level k).
    for (int k = 1; k <= levels; ++k) {
      plan.temp_extents.push_back(sizes[k]);
      plan.steps.push_back({absl::StrCat("down", k),
                            {k == 1 ? StepResource::Input(0) : StepResource::Temp(k - 2)},
                            {StepResource::Temp(k - 1)}});
      steps.push_back({sizes[k - 1], sizes[k], true});
    }
    // Up: level k+1 → level k, ending in the output.
    StepResource from = StepResource::Temp(levels - 1);
    for (int k = levels - 1; k >= 0; --k) {
      StepResource to = StepResource::Output(0);
      if (k > 0) {
        plan.temp_extents.push_back(sizes[k]);
        to = StepResource::Temp(static_cast<int>(plan.temp_extents.size()) - 1);
      }
      plan.steps.push_back({absl::StrCat("up", k), {from}, {to}});
      steps.push_back({sizes[k + 1], sizes[k], false});
      from = to;
    }
    plan.prepared = std::move(steps);
    return plan;
  }

  absl::Status Record(graph::RecordContext& ctx, int step) const override {
    const auto* steps = std::any_cast<std::vector<DualStep>>(&ctx.plan().prepared);
    if (steps == nullptr) return absl::InternalError("dual_filter: plan was not prepared");
    const DualStep& s = steps->at(step);
    const DualPush push{int32_t(s.src.width), int32_t(s.src.height), int32_t(s.dst.width),
                        int32_t(s.dst.height), float(ctx.params().Float("offset")),
                        EnumIndex(ctx.params(), "border", BorderModes())};
    const gpu::ShaderCode shader =
        s.down ? WorkingShader(ctx.working_format(), "dual_filter_down", kDualFilterDownF16,
                               kDualFilterDownF32, 2, sizeof(push))
               : WorkingShader(ctx.working_format(), "dual_filter_up", kDualFilterUpF16,
                               kDualFilterUpF32, 2, sizeof(push));
    const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0)};
    return ctx.Dispatch(shader, {}, buffers, push, DivideRoundingUp(s.dst.width, RGFX_TILE_X),
                        DivideRoundingUp(s.dst.height, RGFX_TILE_Y), 1);
  }

 private:
  graph::PassSchema schema_;
};

}  // namespace

std::unique_ptr<graph::PassType> MakeDualFilterPass() {
  return std::make_unique<DualFilterPass>();
}

}  // namespace rgfx::passes
