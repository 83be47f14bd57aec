// The kernel variants of gaussian_blur (DESIGN.md §5). The pass
// (passes/gaussian_blur.cc) owns the parameters and the choice of variant; a
// variant plans its dispatches (steps, temporaries, constants, limits) and
// records them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "gpu/caps.h"
#include "gpu/shader_code.h"
#include "graph/image_format.h"
#include "graph/pass_type.h"

namespace rgfx::passes {

// The pass's resolved parameters.
struct BlurConfig {
  std::string pass_name;
  int radius = 0;
  double sigma = 0;     // > 0 when radius > 0
  uint32_t border = 0;  // RGFX_BORDER_*
  std::string axes;     // "both", "horizontal" or "vertical"
  int max_taps = 64;    // decimated only
  graph::Extent extent;
  graph::PixelFormat working = graph::PixelFormat::kRgba16F;
  gpu::DeviceCaps caps;
  // What the request allows (its min_psnr_db): 0, float rounding only; > 0,
  // also a kernel whose plan states at least this PSNR. "auto" chooses by
  // it; `fast` in RGBA32F takes its fp16 path on matrix units only then.
  double min_psnr_db = 0;
};

// How far a variant's result is from the exact blur, for the catalog, the
// plan and the benchmarks.
struct BlurAccuracy {
  bool exact = true;  // exact up to float rounding
  std::string summary;
  // Approximate variants: the expected PSNR against the exact blur on
  // uniform white noise in [0, 1] (the hardest case for an approximation of
  // a low-pass filter), derived from the kernels, ignoring borders.
  std::optional<double> noise_psnr_db;
};

// One dispatch of a line-per-workgroup kernel: `lines` lines of `n` pixels;
// pixel i of line l is at l·line_stride + i·pixel_stride (in pixels).
struct LineLayout {
  uint32_t n = 0;
  uint32_t lines = 0;
  uint32_t in_line_stride = 0;
  uint32_t in_pixel_stride = 0;
  uint32_t out_line_stride = 0;
  uint32_t out_pixel_stride = 0;
};

// What the variant chose for one step.
struct StepKernel {
  LineLayout layout;
  gpu::SpecConstants spec;
  uint32_t groups_x = 1;  // workgroups; line kernels: per line (x) and lines (y)
  uint32_t groups_y = 1;
  std::string details;  // e.g. "workgroup 512, cache 1920 px (vec4)"
  int shader = 0;       // which of the variant's shaders, when it has several
  uint32_t segment = 0;  // kernels that walk segments of a line: their length
  // Which of the plan's constant blobs the step reads (a plan may carry
  // several: large_radius runs a different method per axis).
  int constants = 0;
  // fast's split stream (radii beyond one pass of its matrix kernel): one
  // dispatch per part of the taps, part p centred tap_shifts[p] from the
  // output and reading constant blob `constants` + p; empty otherwise.
  std::vector<int32_t> tap_shifts;
};

// Kept in PassPlan::prepared for Record and for whoever reports on the plan.
struct BlurPrepared {
  const class BlurVariant* variant = nullptr;
  BlurConfig config;
  std::vector<StepKernel> steps;  // one per plan step
  BlurAccuracy accuracy;
  // Push-constant values shared by the steps (line kernels).
  float inv_two_sigma2 = 0;
  float inv_total = 1;
  int tap_step = 1;
  int half_taps = 0;
};

class BlurVariant {
 public:
  virtual ~BlurVariant() = default;
  virtual std::string_view name() const = 0;
  // Exact variants are candidates for "auto".
  virtual bool exact() const = 0;
  // One line for the catalog: the idea, its limits and its error.
  virtual std::string Note() const = 0;
  // Fills the plan's steps, temporaries and constants and `prepared`; refuses
  // with INVALID_ARGUMENT (naming the pass, the limit and the device value)
  // what the variant cannot do.
  virtual absl::Status Plan(const BlurConfig& config, graph::PassPlan& plan,
                            BlurPrepared& prepared) const = 0;
  virtual absl::Status Record(graph::RecordContext& ctx, int step,
                              const BlurPrepared& prepared) const = 0;
};

// All variants, in lineage order: exact, naive, line_cache, decimated,
// symmetric, tuned, tiled_halo; then fast and large_radius.
const std::vector<std::unique_ptr<BlurVariant>>& BlurVariants();
const BlurVariant* FindBlurVariant(std::string_view name);

std::unique_ptr<BlurVariant> MakeExactBlur();
std::unique_ptr<BlurVariant> MakeNaiveBlur();
std::unique_ptr<BlurVariant> MakeLineCacheBlur();
std::unique_ptr<BlurVariant> MakeDecimatedBlur();
std::unique_ptr<BlurVariant> MakeSymmetricBlur();
std::unique_ptr<BlurVariant> MakeTunedBlur();
std::unique_ptr<BlurVariant> MakeTiledHaloBlur();
std::unique_ptr<BlurVariant> MakeFastBlur();
std::unique_ptr<BlurVariant> MakeLargeRadiusBlur();

}  // namespace rgfx::passes
