#include "passes/branch_lab.h"

#include <algorithm>
#include <cmath>

#include "passes/pass_util.h"
#include "passes/shader_interface.h"
#include "kBranchLabF16.h"
#include "kBranchLabF32.h"
#include "kBranchLabFlatF16.h"
#include "kBranchLabFlatF32.h"

namespace rgfx::passes {
namespace {

struct BranchPush {  // must match branch_lab.comp
  uint32_t width, height, first_row, slow, iterations;
  float fraction;
};

const std::vector<std::string>& Modes() {  // RGFX_BRANCH_*
  static const auto* m = new std::vector<std::string>{"specialization", "uniform", "divergent"};
  return *m;
}

// Whether item i of a sequence takes the slow path so that a `fraction` of
// them does, spread evenly (the shader applies the same rule to threads).
bool Slow(uint32_t i, double fraction) {
  return std::floor((i + 1) * fraction) != std::floor(i * fraction);
}

class BranchLabPass final : public graph::PassType {
 public:
  BranchLabPass() {
    schema_.doc =
        "What a branch costs: every pixel computes c·exp(-clamp(c, 0, 1)) (fast path: one "
        "exp); the slow path adds a slow_iterations-term series that cannot be optimised away "
        "but never changes the result, so every mode writes identical pixels. The image runs "
        "as 16 row bands, one dispatch each. specialization: a band's path is a "
        "specialization constant; uniform: a push constant; divergent: slow_fraction of the "
        "invocations of every workgroup take the slow path. In the first two, slow_fraction "
        "of the bands take it. flatten compiles the if with [[flatten]] (both sides run) "
        "instead of [[dont_flatten]].";
    schema_.input_names = {"source"};
    schema_.output_names = {"result"};
    graph::ParamSpec mode{"mode", graph::ParamType::kEnum,
                          "specialization, uniform (default) or divergent",
                          std::string("uniform")};
    mode.enum_values = Modes();
    schema_.params = {
        mode,
        {"flatten", graph::ParamType::kBool, "flatten the branch (default false)", false},
        {"slow_iterations", graph::ParamType::kInt, "terms of the slow series (default 64)",
         int64_t{64}, 1, 4096},
        {"slow_fraction", graph::ParamType::kFloat,
         "fraction of threads (divergent) or bands (others) on the slow path (default 0.5)",
         0.5, 0, 1}};
  }
  std::string_view name() const override { return "branch_lab"; }
  const graph::PassSchema& schema() const override { return schema_; }

  absl::StatusOr<graph::PassPlan> Plan(const graph::PlanContext& ctx) const override {
    graph::PassPlan plan;
    plan.output_extents = {ctx.input_extents[0]};
    plan.steps.push_back(
        {"branch", {graph::StepResource::Input(0)}, {graph::StepResource::Output(0)}});
    plan.variant = absl::StrCat(ctx.params.Enum("mode"),
                                ctx.params.Bool("flatten") ? "/flatten" : "/dont_flatten");
    return plan;
  }

  absl::Status Record(graph::RecordContext& ctx, int) const override {
    const graph::Extent e = ctx.input_extents()[0];
    const uint32_t mode = EnumIndex(ctx.params(), "mode", Modes());
    const double fraction = ctx.params().Float("slow_fraction");
    const bool flatten = ctx.params().Bool("flatten");
    const gpu::ShaderCode shader =
        flatten ? WorkingShader(ctx.working_format(), "branch_lab_flatten", kBranchLabFlatF16,
                                kBranchLabFlatF32, 2, sizeof(BranchPush))
                : WorkingShader(ctx.working_format(), "branch_lab", kBranchLabF16,
                                kBranchLabF32, 2, sizeof(BranchPush));
    const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0)};
    const uint32_t tile_rows = DivideRoundingUp(e.height, RGFX_TILE_Y);
    const uint32_t bands = std::min(kBranchLabBands, tile_rows);
    for (uint32_t b = 0; b < bands; ++b) {
      const uint32_t first = b * tile_rows / bands, last = (b + 1) * tile_rows / bands;
      const bool slow = mode != RGFX_BRANCH_DIVERGENT && Slow(b, fraction);
      const BranchPush push{e.width, e.height, first * RGFX_TILE_Y, slow ? 1u : 0u,
                            static_cast<uint32_t>(ctx.params().Int("slow_iterations")),
                            static_cast<float>(fraction)};
      gpu::SpecConstants spec{{mode, mode == RGFX_BRANCH_STATIC && slow ? 1u : 0u}};
      if (absl::Status s = ctx.Dispatch(shader, spec, buffers, push,
                                        DivideRoundingUp(e.width, RGFX_TILE_X), last - first, 1);
          !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }

 private:
  graph::PassSchema schema_;
};

}  // namespace

std::unique_ptr<graph::PassType> MakeBranchLabPass() { return std::make_unique<BranchLabPass>(); }

}  // namespace rgfx::passes
