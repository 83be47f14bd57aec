#include "passes/pass_util.h"

#include <algorithm>

#include "passes/shader_interface.h"

namespace rgfx::passes {

uint32_t EnumIndex(const graph::Params& params, const std::string& name,
                   const std::vector<std::string>& values) {
  const std::string& value = params.Enum(name);
  return static_cast<uint32_t>(std::find(values.begin(), values.end(), value) - values.begin());
}

const std::vector<std::string>& BorderModes() {
  static const auto* modes = new std::vector<std::string>{"clamp", "mirror", "wrap", "zero"};
  static_assert(RGFX_BORDER_CLAMP == 0 && RGFX_BORDER_MIRROR == 1 && RGFX_BORDER_WRAP == 2 &&
                RGFX_BORDER_ZERO == 3);
  return *modes;
}

graph::ParamSpec BorderParamSpec() {
  graph::ParamSpec spec;
  spec.name = "border";
  spec.type = graph::ParamType::kEnum;
  spec.doc =
      "what taps outside the image read: clamp (edge pixel, default), mirror (reflection that "
      "repeats the edge pixel), wrap (periodic), zero (transparent black)";
  spec.default_value = std::string("clamp");
  spec.enum_values = BorderModes();
  return spec;
}

}  // namespace rgfx::passes
