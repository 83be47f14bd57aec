// A blur variant's plan without a GPU: what the GPU-free plan tests check
// (which kernels a variant picks for a device's caps, and their geometry).
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "passes/blur_variants/blur_variant.h"

namespace rgfx::plan_test {

struct PlannedVariant {
  graph::PassPlan plan;
  passes::BlurPrepared prepared;
};

// Plans `variant` for `config`; a variant that is missing or refuses the
// config fails the calling test.
inline PlannedVariant PlanVariant(const std::string& variant, const passes::BlurConfig& config) {
  PlannedVariant p;
  const passes::BlurVariant* v = passes::FindBlurVariant(variant);
  EXPECT_NE(v, nullptr) << variant;
  if (v == nullptr) return p;
  const absl::Status status = v->Plan(config, p.plan, p.prepared);
  EXPECT_TRUE(status.ok()) << status;
  return p;
}

}  // namespace rgfx::plan_test
