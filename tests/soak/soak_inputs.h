// What the soak sends: the example graphs, generated images (PNG 8/16-bit and
// raw RGBA8) and the bad inputs, built only from the public API (rgfx_proto)
// and libpng, never from service/ code, so the soak judges the server from
// outside.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "rgfx/v1/post_process.pb.h"

namespace rgfx::soak {

struct SoakGraph {
  std::string name;  // file stem, e.g. "bloom"
  v1::Graph graph;
  std::vector<std::string> inputs;  // names read by a pass and written by none
};

// Every *.json under `dir` (protobuf JSON of rgfx.v1.Graph), sorted by name.
absl::StatusOr<std::vector<SoakGraph>> LoadGraphs(const std::string& dir);

struct SoakImage {
  std::string label;  // "160x120-png8"
  v1::Image image;    // name left empty: set per graph input
};

// Deterministic smooth pseudo-random content of the given size: a PNG of 8
// or 16 bits, or raw RGBA8.
enum class ImageKind { kPng8, kPng16, kRaw8 };
SoakImage MakeImage(uint32_t width, uint32_t height, ImageKind kind, uint32_t seed);

// `graph` over `image` (every external input gets the image).
v1::ProcessRequest MakeRequest(const SoakGraph& graph, const SoakImage& image,
                               const std::string& id);

// Bad inputs and the one status code each must get.
enum class BadKind { kTruncatedPng, kUnknownInput, kCycle, kOverPixelLimit, kRawSizeMismatch };
inline constexpr int kBadKinds = 5;
const char* BadKindName(BadKind kind);
struct BadRequest {
  v1::ProcessRequest request;
  int expected_code = 0;  // grpc::StatusCode
};
// `good` is a valid request to spoil; `max_pixels` is the server's limit.
BadRequest MakeBad(BadKind kind, const v1::ProcessRequest& good, uint64_t max_pixels);

}  // namespace rgfx::soak
