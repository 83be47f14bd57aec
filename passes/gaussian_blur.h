// gaussian_blur: a separable Gaussian (horizontal step, then vertical, or one
// axis), radius in pixels, sigma in pixels (default radius / 2), four border
// modes. This file holds the exact reference variant; the faster variants are
// checked against it.
#pragma once

#include <memory>

#include "graph/pass_type.h"

namespace rgfx::passes {

inline constexpr int kMaxBlurRadius = 4096;

std::unique_ptr<graph::PassType> MakeGaussianBlurPass();

}  // namespace rgfx::passes
