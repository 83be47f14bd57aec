// Graph files (protobuf JSON of rgfx.v1.Graph) and `--set pass.param=value`
// overrides, both through protobuf's own JSON and reflection: no parser of
// our own, and a new pass type's parameters work here unchanged.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "rgfx/v1/graph.pb.h"

namespace rgfx::client {

absl::StatusOr<v1::Graph> LoadGraphFile(const std::string& path);

// The parsing half of LoadGraphFile, on text in memory (`source` names it in
// errors); the JSON fuzzer (tests/fuzz) drives it. A parameter of -0 is read
// as 0 (here and in ApplySet): it means the same, and protobuf's JSON keeps
// the sign of a zero only sometimes ("-.0" stays -0, the "-0" it prints back
// reads as 0), so a graph the client prints would not parse back to itself.
absl::StatusOr<v1::Graph> ParseGraphJson(const std::string& json, const std::string& source);

// "blur.radius=32", "blur.border=mirror" (or BORDER_MODE_MIRROR),
// "blur.sigma=4.5", "lab.flatten=true".
absl::Status ApplySet(v1::Graph& graph, const std::string& assignment);

// Names the passes read that no pass writes: the images the graph expects.
std::vector<std::string> ExternalInputs(const v1::Graph& graph);

}  // namespace rgfx::client
