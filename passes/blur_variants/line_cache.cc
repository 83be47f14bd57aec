// line_cache and symmetric: one workgroup per line, the line (or chunks of it
// with a halo) cached in workgroup shared memory sized to the device maximum;
// symmetric also computes each weight once per ±k pair. Both keep every tap.
#include "absl/strings/str_cat.h"
#include "passes/blur_variants/line_variant.h"
#include "passes/pass_util.h"
#include "kGaussianBlurLineCacheF16.h"
#include "kGaussianBlurLineCacheF32.h"
#include "kGaussianBlurSymmetricF16.h"
#include "kGaussianBlurSymmetricF32.h"

namespace rgfx::passes {

// The kernel of every variant built on shaders/blur_cache.glsl.
absl::StatusOr<StepKernel> CachedLineKernel(const BlurConfig& config, std::string_view variant,
                                            const LineLayout& layout, int halo) {
  const uint32_t capacity = CachePixels(config);
  if (absl::Status s = CheckChunks(config, variant, layout.n, capacity,
                                   config.caps.max_compute_shared_memory_bytes, halo);
      !s.ok()) {
    return s;
  }
  StepKernel k;
  const uint32_t group = PublishedGroupSize(config.caps, layout.n);
  k.spec.values = {group, capacity};
  k.groups_x = layout.lines;
  k.details = absl::StrCat("workgroup ", group, ", cache ", capacity, " px (",
                           layout.n <= capacity
                               ? std::string("whole line")
                               : absl::StrCat("chunks of ", capacity - 2 * halo, " + halo"),
                           ")");
  return k;
}

namespace {

class LineCacheBlur final : public LineBlurVariant {
 public:
  LineCacheBlur(bool symmetric) : symmetric_(symmetric) {}
  std::string_view name() const override { return symmetric_ ? "symmetric" : "line_cache"; }
  bool exact() const override { return true; }
  std::string Note() const override {
    return absl::StrCat(
        std::string(name()), ": ",
        symmetric_ ? "line_cache with each exp() weight computed once per ±k pair"
                   : "the line loaded once into workgroup shared memory, exp() per tap",
        "; exact. The cache holds maxComputeSharedMemorySize / 8 RGBA16F or / 16 RGBA32F "
        "pixels (4096 / 2048 with 32 KB); longer lines run in chunks with a halo of radius "
        "each side, which needs 2·radius < cache pixels (INVALID_ARGUMENT otherwise)");
  }

 protected:
  gpu::ShaderCode Shader(graph::PixelFormat working) const override {
    if (symmetric_) {
      return WorkingShader(working, "gaussian_blur_symmetric", kGaussianBlurSymmetricF16,
                           kGaussianBlurSymmetricF32, 2, sizeof(LinePush));
    }
    return WorkingShader(working, "gaussian_blur_line_cache", kGaussianBlurLineCacheF16,
                         kGaussianBlurLineCacheF32, 2, sizeof(LinePush));
  }
  absl::StatusOr<StepKernel> Kernel(const BlurConfig& config,
                                    const LineLayout& layout) const override {
    return CachedLineKernel(config, name(), layout, config.radius);
  }

 private:
  const bool symmetric_;
};

}  // namespace

std::unique_ptr<BlurVariant> MakeLineCacheBlur() { return std::make_unique<LineCacheBlur>(false); }
std::unique_ptr<BlurVariant> MakeSymmetricBlur() { return std::make_unique<LineCacheBlur>(true); }

}  // namespace rgfx::passes
