// The base of the line-per-workgroup variants (naive, line_cache, decimated,
// symmetric, tuned, tiled_halo): one kernel, run once per axis. With both
// axes the horizontal step writes its result transposed and the vertical step
// runs the same row kernel over it, writing transposed back — the published
// trick that keeps reads along lines for both axes (the temporary is h×w).
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "passes/blur_variants/blur_variant.h"

namespace rgfx::passes {

// Must match the push_constant block of shaders/blur_line.glsl.
struct LinePush {
  uint32_t n;
  uint32_t in_line_stride;
  uint32_t in_pixel_stride;
  uint32_t out_line_stride;
  uint32_t out_pixel_stride;
  int32_t radius;
  uint32_t border;
  float inv_two_sigma2;
  float inv_total;
  int32_t tap_step;
  int32_t half_taps;
};
static_assert(sizeof(LinePush) == 44, "LinePush must match blur_line.glsl");

class LineBlurVariant : public BlurVariant {
 public:
  absl::Status Plan(const BlurConfig& config, graph::PassPlan& plan,
                    BlurPrepared& prepared) const override;
  absl::Status Record(graph::RecordContext& ctx, int step,
                      const BlurPrepared& prepared) const override;

 protected:
  virtual gpu::ShaderCode Shader(graph::PixelFormat working) const = 0;
  // Specialization constants and workgroup counts for one step's layout;
  // refuses what the variant cannot do.
  virtual absl::StatusOr<StepKernel> Kernel(const BlurConfig& config,
                                            const LineLayout& layout) const = 0;
  // Push-constant values, constants and accuracy shared by the steps. The
  // default: every tap with exp() weights, normalised in double: exact.
  virtual absl::Status PlanTaps(const BlurConfig& config, graph::PassPlan& plan,
                                BlurPrepared& prepared) const;
  // 2 (source, destination), or 3 with a constants buffer.
  virtual uint32_t num_buffers() const { return 2; }
};

// Workgroup size of the published line variants (1024), capped by the device
// and by the line length n.
uint32_t PublishedGroupSize(const gpu::DeviceCaps& caps, uint32_t n);
// Pixels of the working format that fit the device's workgroup shared memory
// (RGBA16F is cached packed, 8 bytes; RGBA32F 16 bytes).
uint32_t CachePixels(const BlurConfig& config);
// A line longer than the cache is processed in chunks with `halo` pixels each
// side; that needs 2·halo < capacity. Refuses clearly otherwise.
absl::Status CheckChunks(const BlurConfig& config, std::string_view variant, uint32_t n,
                         uint32_t capacity, uint32_t capacity_bytes, int halo);
// The kernel of the variants cached with shaders/blur_cache.glsl (line_cache,
// decimated, symmetric): the published workgroup size, the largest cache.
absl::StatusOr<StepKernel> CachedLineKernel(const BlurConfig& config, std::string_view variant,
                                            const LineLayout& layout, int halo);
// 1 / Σ exp(-k²/2σ²) over the offsets k = j·step, |j| ≤ half_taps, in double.
double InverseWeightTotal(const BlurConfig& config, int step, int half_taps);

}  // namespace rgfx::passes
