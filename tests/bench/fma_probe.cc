#include "tests/bench/fma_probe.h"

#include "absl/status/status.h"
#include "passes/pass_util.h"
#include "kFmaProbe.h"

namespace rgfx::bench {
namespace {

constexpr uint32_t kIterations = 512;  // must match the shader's use of kIterations
constexpr uint32_t kChains = 8;        // must match fma_probe.comp
constexpr uint32_t kGroup = 64;

struct FmaProbePush {  // must match fma_probe.comp
  uint32_t count;
  float multiplier;
  float addend;
};

class FmaProbePass final : public graph::PassType {
 public:
  FmaProbePass() {
    schema_.doc = "Benchmark only: a fixed count of fp32 multiply-adds per pixel (the FMA rate).";
    schema_.input_names = {"source"};
    schema_.output_names = {"result"};
  }
  std::string_view name() const override { return "fma_probe"; }
  const graph::PassSchema& schema() const override { return schema_; }

  absl::StatusOr<graph::PassPlan> Plan(const graph::PlanContext& ctx) const override {
    if (ctx.working_format != graph::PixelFormat::kRgba32F) {
      return absl::InvalidArgumentError("fma_probe needs the RGBA32F working format");
    }
    graph::PassPlan plan;
    plan.output_extents = {ctx.input_extents[0]};
    plan.steps.push_back({"probe", {graph::StepResource::Input(0)}, {graph::StepResource::Output(0)}});
    return plan;
  }

  absl::Status Record(graph::RecordContext& ctx, int) const override {
    const uint32_t count = static_cast<uint32_t>(ctx.input_extents()[0].pixels());
    const gpu::ShaderCode shader{"fma_probe", kFmaProbe, 2, sizeof(FmaProbePush)};
    const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0)};
    // A multiplier just below 1 keeps the chains finite for any input.
    return ctx.Dispatch(shader, {{kIterations}}, buffers, FmaProbePush{count, 0.999f, 0.001f},
                        passes::DivideRoundingUp(count, kGroup), 1, 1);
  }

 private:
  graph::PassSchema schema_;
};

}  // namespace

std::unique_ptr<graph::PassType> MakeFmaProbePass() { return std::make_unique<FmaProbePass>(); }

uint64_t FmaProbeFmas(uint64_t pixels) { return pixels * kIterations * kChains * 4; }

}  // namespace rgfx::bench
