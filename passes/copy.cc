#include "passes/copy.h"

#include "passes/pass_util.h"
#include "passes/shader_interface.h"
#include "kCopyF16.h"
#include "kCopyF32.h"

namespace rgfx::passes {
namespace {

struct CopyPush {  // must match copy.comp
  uint32_t width;
  uint32_t height;
};

class CopyPass final : public graph::PassType {
 public:
  CopyPass() {
    schema_.doc = "Copies its input unchanged: the copy-bandwidth floor for benchmarks.";
    schema_.input_names = {"source"};
    schema_.output_names = {"result"};
  }
  std::string_view name() const override { return "copy"; }
  const graph::PassSchema& schema() const override { return schema_; }

  absl::StatusOr<graph::PassPlan> Plan(const graph::PlanContext& ctx) const override {
    graph::PassPlan plan;
    plan.output_extents = {ctx.input_extents[0]};
    plan.steps.push_back({"copy", {graph::StepResource::Input(0)}, {graph::StepResource::Output(0)}});
    return plan;
  }

  absl::Status Record(graph::RecordContext& ctx, int) const override {
    const graph::Extent e = ctx.input_extents()[0];
    const gpu::ShaderCode shader =
        WorkingShader(ctx.working_format(), "copy", kCopyF16, kCopyF32, 2, sizeof(CopyPush));
    const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0)};
    return ctx.Dispatch(shader, {}, buffers, CopyPush{e.width, e.height},
                        DivideRoundingUp(e.width, RGFX_TILE_X),
                        DivideRoundingUp(e.height, RGFX_TILE_Y), 1);
  }

 private:
  graph::PassSchema schema_;
};

}  // namespace

std::unique_ptr<graph::PassType> MakeCopyPass() { return std::make_unique<CopyPass>(); }

}  // namespace rgfx::passes
