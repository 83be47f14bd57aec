// Fuzz target graph_json: the client's graph files (protobuf JSON of
// rgfx.v1.Graph) and its `--set pass.param=value` overrides.
//
// Input layout: JSON text, then optionally NUL-separated assignments, so the
// fuzzer reaches ApplySet's reflection with graphs that parsed.
#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>

#include "client/graph_file.h"
#include "tests/fuzz/fuzz_targets.h"

namespace rgfx::fuzz {

int FuzzGraphJson(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == '\0') {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  absl::StatusOr<v1::Graph> graph = client::ParseGraphJson(parts[0], "fuzz.json");
  if (!graph.ok()) {
    FUZZ_CHECK(graph.status().code() == absl::StatusCode::kInvalidArgument &&
                   !graph.status().message().empty(),
               graph.status().ToString());
    return 0;
  }
  for (size_t i = 1; i < parts.size() && i <= 8; ++i) {
    const absl::Status set = client::ApplySet(*graph, parts[i]);
    FUZZ_CHECK(set.ok() || (set.code() == absl::StatusCode::kInvalidArgument &&
                            !set.message().empty()),
               set.ToString());
  }
  // Every external input is read by some pass and written by none.
  for (const std::string& name : client::ExternalInputs(*graph)) {
    bool read = false;
    for (const v1::Pass& pass : graph->passes()) {
      for (const std::string& in : pass.inputs()) read |= in == name;
      for (const std::string& out : pass.outputs()) FUZZ_CHECK(out != name, name);
    }
    FUZZ_CHECK(read, name);
  }
  // What the client prints (rgfx --json, error reports) parses back to the
  // same graph. NaN parameters are equal to themselves here.
  std::string printed;
  FUZZ_CHECK(google::protobuf::util::MessageToJsonString(*graph, &printed).ok(), "print failed");
  absl::StatusOr<v1::Graph> again = client::ParseGraphJson(printed, "printed.json");
  FUZZ_CHECK(again.ok(), again.status().ToString() + "\n" + printed);
  google::protobuf::util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  std::string diff;
  differencer.ReportDifferencesToString(&diff);
  FUZZ_CHECK(differencer.Compare(*graph, *again), diff + "\n" + printed);
  return 0;
}

}  // namespace rgfx::fuzz
