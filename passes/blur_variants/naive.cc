// naive: one workgroup per line; every invocation reads all its taps from the
// buffer and computes each weight with exp() (shaders/gaussian_blur_naive.comp).
#include "absl/strings/str_cat.h"
#include "passes/blur_variants/line_variant.h"
#include "passes/pass_util.h"
#include "kGaussianBlurNaiveF16.h"
#include "kGaussianBlurNaiveF32.h"

namespace rgfx::passes {
namespace {

class NaiveBlur final : public LineBlurVariant {
 public:
  std::string_view name() const override { return "naive"; }
  bool exact() const override { return true; }
  std::string Note() const override {
    return "naive: one workgroup of 1024 invocations (fewer for shorter lines or where the device allows fewer) per line, taps "
           "read from memory, exp() per tap; exact; no limit on line length or radius";
  }

 protected:
  gpu::ShaderCode Shader(graph::PixelFormat working) const override {
    return WorkingShader(working, "gaussian_blur_naive", kGaussianBlurNaiveF16,
                         kGaussianBlurNaiveF32, 2, sizeof(LinePush));
  }
  absl::StatusOr<StepKernel> Kernel(const BlurConfig& config,
                                    const LineLayout& layout) const override {
    StepKernel k;
    const uint32_t group = PublishedGroupSize(config.caps, layout.n);
    k.spec.values = {group};
    k.groups_x = layout.lines;
    k.details = absl::StrCat("workgroup ", group);
    return k;
  }
};

}  // namespace

std::unique_ptr<BlurVariant> MakeNaiveBlur() { return std::make_unique<NaiveBlur>(); }

}  // namespace rgfx::passes
