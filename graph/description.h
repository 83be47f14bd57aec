// The C++ description of a graph, as a client means it: named passes with
// named inputs and outputs, the imported images and the exported outputs.
// service/ translates protobuf into this; the graph never sees protobuf.
#pragma once

#include <string>
#include <vector>

#include "graph/image_format.h"
#include "graph/params.h"

namespace rgfx::graph {

struct PassDesc {
  std::string name;  // unique within the graph
  std::string type;  // a registered pass type, e.g. "gaussian_blur"
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  Params params;
};

// An image the client sends: its name is a resource the passes can read.
struct InputDesc {
  std::string name;
  Extent extent;
  PixelFormat format = PixelFormat::kRgba8;
  ColorSpace color_space = ColorSpace::kSrgb;
  AlphaMode alpha = AlphaMode::kStraight;
};

// A resource the client wants back, and how to encode it.
struct OutputDesc {
  std::string name;
  PixelFormat format = PixelFormat::kRgba8;
  ColorSpace color_space = ColorSpace::kSrgb;
  AlphaMode alpha = AlphaMode::kStraight;
  // RGBA8 only: the export also writes the output's PNG scanlines, filtered
  // on the GPU (PngRowsLayout). Set by the service, not by clients.
  bool png_rows = false;
};

struct GraphDesc {
  std::vector<InputDesc> inputs;
  std::vector<PassDesc> passes;
  std::vector<OutputDesc> outputs;
  PixelFormat working_format = PixelFormat::kRgba16F;  // or kRgba32F
};

// A canonical text form of the whole description (including input sizes and
// formats): the compiled-graph cache key, and the graph hash in logs.
std::string CanonicalKey(const GraphDesc& desc);

}  // namespace rgfx::graph
