// tuned: the symmetric kernel with its workgroup size and shared memory
// chosen from the device's limits and the line length, through
// specialization constants (shaders/gaussian_blur_tuned.comp).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "passes/blur_variants/line_variant.h"
#include "passes/blur_variants/tuned.h"
#include "passes/pass_util.h"
#include "kGaussianBlurTunedF16.h"
#include "kGaussianBlurTunedF32.h"

namespace rgfx::passes {
namespace {

uint32_t RoundUp(uint32_t value, uint32_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

TunedChoice ChooseTuned(const gpu::DeviceCaps& caps, graph::PixelFormat working, uint32_t n) {
  TunedChoice c;
  // Workgroup: at least two outputs per invocation, whole subgroups, at most
  // 512 (the published occupancy step from 1024).
  const uint32_t sub = std::max<uint32_t>(1, caps.subgroup_size);
  const uint32_t max_group = std::min<uint32_t>(
      {kTunedMaxGroup, caps.max_workgroup_invocations, caps.max_workgroup_size[0]});
  c.group = std::clamp(RoundUp((n + 1) / 2, sub), std::min(sub, max_group), max_group);
  // Cache: sized to the line (rounded to 64 px so few pipelines are built),
  // unpacked vec4 when it fits, else packed RGBA16F, else the most that fits
  // (chunks). The unused cache is declared with one pixel: count it.
  const uint32_t shared = caps.max_compute_shared_memory_bytes;
  const bool f16 = working != graph::PixelFormat::kRgba32F;
  const uint32_t line = RoundUp(std::max<uint32_t>(n, 1), 64);
  const uint32_t max_wide = (shared - (f16 ? 8 : 0)) / 16;
  const uint32_t max_packed = (shared - 16) / 8;
  if (!f16 || line <= max_wide) {
    c.wide = std::min(line, max_wide);
  } else {
    c.packed = std::min(line, max_packed);
  }
  return c;
}

namespace {

class TunedBlur final : public LineBlurVariant {
 public:
  std::string_view name() const override { return "tuned"; }
  bool exact() const override { return true; }
  std::string Note() const override {
    return "tuned: symmetric, with the workgroup size and the cache chosen per line length from "
           "the device's limits (specialization constants): workgroup = ceil(n/2) rounded up to "
           "the subgroup size, between one subgroup and min(512, maxComputeWorkGroupInvocations); "
           "cache = the line rounded up to 64 px, as vec4 when it fits (no unpacking per tap), "
           "else packed RGBA16F, else the most that fits in chunks (2·radius < cache px); "
           "exact. Each step's choice is in the plan";
  }

 protected:
  gpu::ShaderCode Shader(graph::PixelFormat working) const override {
    return WorkingShader(working, "gaussian_blur_tuned", kGaussianBlurTunedF16,
                         kGaussianBlurTunedF32, 2, sizeof(LinePush));
  }
  absl::StatusOr<StepKernel> Kernel(const BlurConfig& config,
                                    const LineLayout& layout) const override {
    const TunedChoice c = ChooseTuned(config.caps, config.working, layout.n);
    const uint32_t capacity = c.wide + c.packed - 1;
    if (absl::Status s = CheckChunks(config, name(), layout.n, capacity,
                                     config.caps.max_compute_shared_memory_bytes, config.radius);
        !s.ok()) {
      return s;
    }
    StepKernel k;
    k.spec.values = {c.group, c.wide, c.packed};
    k.groups_x = layout.lines;
    k.details = absl::StrCat(c.Describe(), layout.n <= capacity ? " (whole line)" : " (chunks)");
    return k;
  }
};

}  // namespace

std::string TunedChoice::Describe() const {
  return absl::StrCat("workgroup ", group, ", cache ", wide > 1 ? wide : packed, " px ",
                      wide > 1 ? "vec4" : "packed");
}

std::unique_ptr<BlurVariant> MakeTunedBlur() { return std::make_unique<TunedBlur>(); }

}  // namespace rgfx::passes
