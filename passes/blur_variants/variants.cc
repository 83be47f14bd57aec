#include "passes/blur_variants/blur_variant.h"

namespace rgfx::passes {

const std::vector<std::unique_ptr<BlurVariant>>& BlurVariants() {
  static const auto* variants = [] {
    auto* v = new std::vector<std::unique_ptr<BlurVariant>>();
    v->push_back(MakeExactBlur());
    v->push_back(MakeNaiveBlur());
    v->push_back(MakeLineCacheBlur());
    v->push_back(MakeDecimatedBlur());
    v->push_back(MakeSymmetricBlur());
    v->push_back(MakeTunedBlur());
    v->push_back(MakeTiledHaloBlur());
    v->push_back(MakeFastBlur());
    v->push_back(MakeLargeRadiusBlur());
    return v;
  }();
  return *variants;
}

const BlurVariant* FindBlurVariant(std::string_view name) {
  for (const auto& v : BlurVariants()) {
    if (v->name() == name) return v.get();
  }
  return nullptr;
}

}  // namespace rgfx::passes
