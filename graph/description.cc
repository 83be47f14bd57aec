#include "graph/description.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rgfx::graph {
namespace {

// Strings are length-prefixed so no name, whatever characters it holds, can
// make two different descriptions print the same.
void AppendString(std::string& out, std::string_view s) {
  absl::StrAppend(&out, s.size(), ":");
  out.append(s);
  out += ';';
}

void AppendValue(std::string& out, const ParamValue& value) {
  switch (value.index()) {
    case 0:
      absl::StrAppend(&out, "b", std::get<bool>(value) ? "1" : "0", ";");
      break;
    case 1:
      absl::StrAppend(&out, "i", std::get<int64_t>(value), ";");
      break;
    case 2:
      // Hexadecimal floating point is exact: 0.1 and its neighbours differ.
      absl::StrAppend(&out, "f", absl::StrFormat("%a", std::get<double>(value)), ";");
      break;
    default:
      out += "s";
      AppendString(out, std::get<std::string>(value));
      break;
  }
}

void AppendImage(std::string& out, PixelFormat format, ColorSpace space, AlphaMode alpha) {
  absl::StrAppend(&out, std::string(PixelFormatName(format)), ",",
                  std::string(ColorSpaceName(space)), ",", std::string(AlphaModeName(alpha)), ";");
}

}  // namespace

std::string CanonicalKey(const GraphDesc& desc) {
  std::string out = "rgfx.graph.v1;";
  absl::StrAppend(&out, "working=", std::string(PixelFormatName(desc.working_format)), ";");
  absl::StrAppend(&out, "inputs=", desc.inputs.size(), ";");
  for (const InputDesc& input : desc.inputs) {
    AppendString(out, input.name);
    absl::StrAppend(&out, input.extent.width, "x", input.extent.height, ",");
    AppendImage(out, input.format, input.color_space, input.alpha);
  }
  absl::StrAppend(&out, "passes=", desc.passes.size(), ";");
  for (const PassDesc& pass : desc.passes) {
    AppendString(out, pass.name);
    AppendString(out, pass.type);
    absl::StrAppend(&out, "in=", pass.inputs.size(), ";");
    for (const std::string& name : pass.inputs) AppendString(out, name);
    absl::StrAppend(&out, "out=", pass.outputs.size(), ";");
    for (const std::string& name : pass.outputs) AppendString(out, name);
    // Params are a std::map: already in name order.
    absl::StrAppend(&out, "params=", pass.params.values().size(), ";");
    for (const auto& [name, value] : pass.params.values()) {
      AppendString(out, name);
      AppendValue(out, value);
    }
  }
  absl::StrAppend(&out, "outputs=", desc.outputs.size(), ";");
  for (const OutputDesc& output : desc.outputs) {
    AppendString(out, output.name);
    AppendImage(out, output.format, output.color_space, output.alpha);
    if (output.png_rows) out += "png_rows;";
  }
  return out;
}

}  // namespace rgfx::graph
