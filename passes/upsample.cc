#include "passes/upsample.h"

#include "passes/effect_util.h"
#include "passes/pass_util.h"
#include "passes/shader_interface.h"
#include "kUpsampleF16.h"
#include "kUpsampleF32.h"

namespace rgfx::passes {
namespace {

struct UpsamplePush {  // must match upsample.comp
  int32_t src_width, src_height, dst_width, dst_height;
  int32_t factor;
  uint32_t filter;
  uint32_t border;
  uint32_t has_base;
  float base_weight;
};

const std::vector<std::string>& Filters() {  // RGFX_UPSAMPLE_*
  static const auto* f = new std::vector<std::string>{"bilinear", "nearest", "tent"};
  return *f;
}

class UpsamplePass final : public graph::PassType {
 public:
  UpsamplePass() {
    schema_.doc =
        "Grows by an integer factor: output pixel x samples the input at (x + 0.5) / factor "
        "- 0.5. nearest, bilinear, or tent (nine bilinear samples one input pixel apart, "
        "weights 1 2 1 ⊗ 1 2 1 / 16). With a second input 'base' the result is added to it "
        "(bloom's up-chain) and has base's size, which must shrink to the input's size by the "
        "same factor (ceil(base / factor) = input); else input × factor.";
    schema_.input_names = {"source", "base"};
    schema_.min_inputs = 1;
    schema_.output_names = {"result"};
    graph::ParamSpec factor{"factor", graph::ParamType::kInt, "growth factor (default 2)",
                            int64_t{2}, 2, 16};
    graph::ParamSpec filter{"filter", graph::ParamType::kEnum,
                            "bilinear (default), nearest or tent", std::string("bilinear")};
    filter.enum_values = Filters();
    graph::ParamSpec base_weight{"base_weight", graph::ParamType::kFloat,
                                 "base is added times this (default 1; 0: base only gives the "
                                 "output size, e.g. to return to an odd size)",
                                 1.0, 0, 65504};
    schema_.params = {factor, filter, BorderParamSpec(), base_weight};
  }
  std::string_view name() const override { return "upsample"; }
  const graph::PassSchema& schema() const override { return schema_; }

  absl::StatusOr<graph::PassPlan> Plan(const graph::PlanContext& ctx) const override {
    const uint32_t factor = static_cast<uint32_t>(ctx.params.Int("factor"));
    const graph::Extent in = ctx.input_extents[0];
    graph::PassPlan plan;
    graph::StepPlan step{"upsample", {graph::StepResource::Input(0)},
                         {graph::StepResource::Output(0)}};
    if (ctx.input_extents.size() > 1) {
      const graph::Extent base = ctx.input_extents[1];
      if (Shrink(base, factor) != in) {
        return absl::InvalidArgumentError(absl::StrCat(
            "pass '", ctx.pass_name, "': input 'base' is ", SizeName(base),
            ", which shrinks by ", factor, " to ", SizeName(Shrink(base, factor)),
            ", not to the size of input 'source' (", SizeName(in), ")"));
      }
      plan.output_extents = {base};
      step.reads.push_back(graph::StepResource::Input(1));
    } else {
      plan.output_extents = {{in.width * factor, in.height * factor}};
    }
    plan.steps.push_back(step);
    return plan;
  }

  absl::Status Record(graph::RecordContext& ctx, int) const override {
    const graph::Extent in = ctx.input_extents()[0];
    const graph::Extent out = ctx.plan().output_extents[0];
    const bool has_base = ctx.input_extents().size() > 1;
    const UpsamplePush push{int32_t(in.width),  int32_t(in.height),
                            int32_t(out.width), int32_t(out.height),
                            int32_t(ctx.params().Int("factor")),
                            EnumIndex(ctx.params(), "filter", Filters()),
                            EnumIndex(ctx.params(), "border", BorderModes()),
                            has_base ? 1u : 0u,
                            static_cast<float>(ctx.params().Float("base_weight"))};
    const gpu::ShaderCode shader = WorkingShader(ctx.working_format(), "upsample", kUpsampleF16,
                                                 kUpsampleF32, 3, sizeof(push));
    // Without a base the shader ignores binding 1; bind the source there.
    const gpu::BufferSlice buffers[] = {ctx.read(0), has_base ? ctx.read(1) : ctx.read(0),
                                        ctx.write(0)};
    return ctx.Dispatch(shader, {}, buffers, push, DivideRoundingUp(out.width, RGFX_TILE_X),
                        DivideRoundingUp(out.height, RGFX_TILE_Y), 1);
  }

 private:
  graph::PassSchema schema_;
};

}  // namespace

std::unique_ptr<graph::PassType> MakeUpsamplePass() { return std::make_unique<UpsamplePass>(); }

}  // namespace rgfx::passes
