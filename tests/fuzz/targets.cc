#include <string>

#include "tests/fuzz/fuzz_targets.h"

namespace rgfx::fuzz {

FuzzBody FindTarget(const std::string& name) {
  if (name == "png_decode") return FuzzPngDecode;
  if (name == "proto_graph") return FuzzProtoGraph;
  if (name == "graph_json") return FuzzGraphJson;
  return nullptr;
}

}  // namespace rgfx::fuzz
