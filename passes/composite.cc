#include "passes/composite.h"

#include "passes/effect_util.h"
#include "passes/pass_util.h"
#include "passes/shader_interface.h"
#include "kCompositeF16.h"
#include "kCompositeF32.h"

namespace rgfx::passes {
namespace {

struct CompositePush {  // must match composite.comp
  uint32_t width, height, mode;
  float factor;
};

const std::vector<std::string>& Modes() {  // RGFX_COMPOSITE_*
  static const auto* m = new std::vector<std::string>{"add", "mix"};
  return *m;
}

class CompositePass final : public graph::PassType {
 public:
  CompositePass() {
    schema_.doc =
        "Combines inputs a and b of the same size in premultiplied linear light: add gives a + "
        "factor·b, mix (1 - factor)·a + factor·b. Output: their size.";
    schema_.input_names = {"a", "b"};
    schema_.min_inputs = 2;
    schema_.output_names = {"result"};
    graph::ParamSpec mode{"mode", graph::ParamType::kEnum, "add (default) or mix",
                          std::string("add")};
    mode.enum_values = Modes();
    graph::ParamSpec factor{"factor", graph::ParamType::kFloat,
                            "weight of b: 0..65504 for add (default 1), 0..1 for mix "
                            "(default 0.5)",
                            std::nullopt, 0, 65504};
    schema_.params = {mode, factor};
  }
  std::string_view name() const override { return "composite"; }
  const graph::PassSchema& schema() const override { return schema_; }

  absl::StatusOr<graph::PassPlan> Plan(const graph::PlanContext& ctx) const override {
    const graph::Extent a = ctx.input_extents[0], b = ctx.input_extents[1];
    if (a != b) {
      return absl::InvalidArgumentError(
          absl::StrCat("pass '", ctx.pass_name, "': input 'a' is ", SizeName(a),
                       " but input 'b' is ", SizeName(b), "; composite needs equal sizes"));
    }
    if (ctx.params.Enum("mode") == "mix" && ctx.params.OptionalFloat("factor").value_or(0) > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pass '", ctx.pass_name, "': parameter 'factor' = ", *ctx.params.OptionalFloat("factor"),
          " is out of range [0, 1] for mode mix"));
    }
    graph::PassPlan plan;
    plan.output_extents = {a};
    plan.steps.push_back({"composite",
                          {graph::StepResource::Input(0), graph::StepResource::Input(1)},
                          {graph::StepResource::Output(0)}});
    return plan;
  }

  absl::Status Record(graph::RecordContext& ctx, int) const override {
    const graph::Extent e = ctx.input_extents()[0];
    const uint32_t mode = EnumIndex(ctx.params(), "mode", Modes());
    const double factor = ctx.params().OptionalFloat("factor").value_or(
        mode == RGFX_COMPOSITE_ADD ? 1.0 : 0.5);
    const CompositePush push{e.width, e.height, mode, static_cast<float>(factor)};
    const gpu::ShaderCode shader = WorkingShader(ctx.working_format(), "composite",
                                                 kCompositeF16, kCompositeF32, 3, sizeof(push));
    const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.read(1), ctx.write(0)};
    return ctx.Dispatch(shader, {}, buffers, push, DivideRoundingUp(e.width, RGFX_TILE_X),
                        DivideRoundingUp(e.height, RGFX_TILE_Y), 1);
  }

 private:
  graph::PassSchema schema_;
};

}  // namespace

std::unique_ptr<graph::PassType> MakeCompositePass() { return std::make_unique<CompositePass>(); }

}  // namespace rgfx::passes
