#include "passes/downsample.h"

#include "passes/effect_util.h"
#include "passes/pass_util.h"
#include "passes/shader_interface.h"
#include "kDownsampleF16.h"
#include "kDownsampleF32.h"

namespace rgfx::passes {
namespace {

struct DownsamplePush {  // must match downsample.comp
  int32_t src_width, src_height, dst_width, dst_height;
  int32_t factor;
  uint32_t filter;
  uint32_t border;
};

const std::vector<std::string>& Filters() {
  static const auto* f = new std::vector<std::string>{"box", "tap13"};  // RGFX_DOWNSAMPLE_*
  return *f;
}

class DownsamplePass final : public graph::PassType {
 public:
  DownsamplePass() {
    schema_.doc =
        "Shrinks by an integer factor. box averages each factor×factor block (only the pixels "
        "inside the image, so an odd edge's partial block is its own average); tap13 (factor "
        "2) is the 13-tap filtered downsample of bloom chains (Jimenez 2014), which reads "
        "outside the image through the border mode. Output: ceil(input / factor).";
    schema_.input_names = {"source"};
    schema_.output_names = {"result"};
    graph::ParamSpec factor{"factor", graph::ParamType::kInt, "shrink factor (default 2)",
                            int64_t{2}, 2, 16};
    graph::ParamSpec filter{"filter", graph::ParamType::kEnum,
                            "box (default) or tap13 (factor 2 only)", std::string("box")};
    filter.enum_values = Filters();
    schema_.params = {factor, filter, BorderParamSpec()};
  }
  std::string_view name() const override { return "downsample"; }
  const graph::PassSchema& schema() const override { return schema_; }

  absl::StatusOr<graph::PassPlan> Plan(const graph::PlanContext& ctx) const override {
    const uint32_t factor = static_cast<uint32_t>(ctx.params.Int("factor"));
    if (ctx.params.Enum("filter") == "tap13" && factor != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pass '", ctx.pass_name, "': filter tap13 shrinks by 2 only, factor is ", factor));
    }
    graph::PassPlan plan;
    plan.output_extents = {Shrink(ctx.input_extents[0], factor)};
    plan.steps.push_back(
        {"downsample", {graph::StepResource::Input(0)}, {graph::StepResource::Output(0)}});
    return plan;
  }

  absl::Status Record(graph::RecordContext& ctx, int) const override {
    const graph::Extent in = ctx.input_extents()[0];
    const graph::Extent out = ctx.plan().output_extents[0];
    const DownsamplePush push{int32_t(in.width),  int32_t(in.height),
                              int32_t(out.width), int32_t(out.height),
                              int32_t(ctx.params().Int("factor")),
                              EnumIndex(ctx.params(), "filter", Filters()),
                              EnumIndex(ctx.params(), "border", BorderModes())};
    const gpu::ShaderCode shader = WorkingShader(ctx.working_format(), "downsample",
                                                 kDownsampleF16, kDownsampleF32, 2, sizeof(push));
    const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0)};
    return ctx.Dispatch(shader, {}, buffers, push, DivideRoundingUp(out.width, RGFX_TILE_X),
                        DivideRoundingUp(out.height, RGFX_TILE_Y), 1);
  }

 private:
  graph::PassSchema schema_;
};

}  // namespace

std::unique_ptr<graph::PassType> MakeDownsamplePass() {
  return std::make_unique<DownsamplePass>();
}

}  // namespace rgfx::passes
