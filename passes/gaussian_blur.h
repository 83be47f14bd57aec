// gaussian_blur: a separable Gaussian (horizontal step, then vertical, or one
// axis), radius in pixels, sigma in pixels (default radius / 2), four border
// modes, and a choice of kernel variants (passes/blur_variants/): the exact
// reference, the published optimisation lineage, and "auto", which picks the
// fastest exact variant for the device, radius and working format.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpu/caps.h"
#include "graph/pass_type.h"
#include "passes/blur_variants/blur_variant.h"

namespace rgfx::passes {

inline constexpr int kMaxBlurRadius = 4096;

std::unique_ptr<graph::PassType> MakeGaussianBlurPass();

// The variant "auto" resolves to for `config` (see the schema's notes for
// the rule): never an approximate variant when config.min_psnr_db is 0.
std::string AutoBlurVariant(const BlurConfig& config);
// The rule "auto" follows on devices its table has not measured (the
// schema's notes state it), exposed so that tests can hold it against the
// tables of the devices that were measured.
std::string FallbackBlurVariant(const BlurConfig& config);
// The same as AutoBlurVariant for an exact request with sigma = radius / 2
// and both axes.
std::string AutoBlurVariant(const gpu::DeviceCaps& caps, graph::PixelFormat working, int radius,
                            graph::Extent extent);

// How far a planned blur is from the exact one (nullptr for other passes).
const BlurAccuracy* FindBlurAccuracy(const graph::PassPlan& plan);
// Per-step choices of a planned blur ("horizontal: workgroup 512, ..."), for
// the response or the catalog.
std::vector<std::string> BlurStepDetails(const graph::PassPlan& plan);

// What the device-dependent variants choose on `caps`, for the catalog
// (ListPasses / `rgfx info` append these to the schema's notes).
std::vector<std::string> BlurDeviceNotes(const gpu::DeviceCaps& caps);

}  // namespace rgfx::passes
