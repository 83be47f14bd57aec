// Fuzz target proto_graph: what the server does with a request before any
// GPU work: parse, translate (image headers, pass parameters by reflection)
// and compile against lavapipe-like caps. Nothing here touches a GPU.
#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/util/field_comparator.h"
#include "google/protobuf/util/message_differencer.h"
#include "gpu/caps.h"
#include "graph/compile.h"
#include "graph/registry.h"
#include "passes/builtin_passes.h"
#include "rgfx/v1/post_process.pb.h"
#include "service/process_wire.h"
#include "service/translate.h"
#include "tests/fuzz/fuzz_targets.h"

namespace rgfx::fuzz {
namespace {

const graph::PassRegistry& Registry() {
  static const graph::PassRegistry* registry = [] {
    auto* r = new graph::PassRegistry;
    passes::RegisterBuiltinPasses(*r);
    return r;
  }();
  return *registry;
}

bool Expected(const absl::Status& s) {
  return (s.code() == absl::StatusCode::kInvalidArgument ||
          s.code() == absl::StatusCode::kResourceExhausted) &&
         !s.message().empty();
}

// The plan's own consistency: indices in range, every resource fits its
// buffer, and transients that share a buffer are never alive together.
void CheckCompiled(const graph::CompiledGraph& g, const service::RequestLimits& limits) {
  const int num_resources = static_cast<int>(g.resources.size());
  const int num_steps = static_cast<int>(g.steps.size());
  FUZZ_CHECK(g.exported.size() == g.desc.outputs.size(), "an output without an export");
  FUZZ_CHECK(g.imported.size() == g.desc.inputs.size(), "an input without an import entry");
  for (const graph::LogicalResource& r : g.resources) {
    FUZZ_CHECK(r.physical >= 0 && r.physical < static_cast<int>(g.buffers.size()),
               absl::StrCat(r.name, " has no buffer"));
    FUZZ_CHECK(g.buffers[r.physical].bytes >= r.bytes,
               absl::StrCat(r.name, " does not fit its buffer"));
    FUZZ_CHECK(r.extent.width > 0 && r.extent.height > 0, absl::StrCat(r.name, " is empty"));
    FUZZ_CHECK(uint64_t{r.extent.width} * r.extent.height <= limits.max_pixels,
               absl::StrCat(r.name, " is over the pixel limit"));
  }
  for (const graph::PhysicalBuffer& b : g.buffers) {
    for (size_t i = 0; i < b.resources.size(); ++i) {
      FUZZ_CHECK(b.resources[i] >= 0 && b.resources[i] < num_resources, "bad resource index");
      for (size_t j = i + 1; j < b.resources.size(); ++j) {
        const graph::LogicalResource& x = g.resources[b.resources[i]];
        const graph::LogicalResource& y = g.resources[b.resources[j]];
        FUZZ_CHECK(x.last_step < y.first_step || y.last_step < x.first_step,
                   absl::StrCat(x.name, " and ", y.name, " share a buffer while both alive"));
      }
    }
  }
  for (const graph::CompiledStep& s : g.steps) {
    FUZZ_CHECK(s.pass >= 0 && s.pass < static_cast<int>(g.passes.size()), "bad pass index");
    for (int r : s.reads) FUZZ_CHECK(r >= 0 && r < num_resources, "bad read index");
    for (int r : s.writes) FUZZ_CHECK(r >= 0 && r < num_resources, "bad write index");
  }
  FUZZ_CHECK(g.stats.steps == num_steps, "stats disagree with the steps");
}

// ParseProcessRequest on `data` in slices of a size the data picks: same
// success as protobuf's parse, and then the same message.
service::WireRequest CheckWireParse(const uint8_t* data, size_t size, bool protobuf_ok,
                                    const v1::ProcessRequest& expected) {
  const size_t piece = size == 0 ? 1 : 1 + data[size - 1] % 64 * (1 + size / 64);
  std::vector<grpc::Slice> slices;
  for (size_t at = 0; at < size; at += piece) {
    slices.emplace_back(data + at, std::min(piece, size - at));
  }
  service::WireRequest wire;
  const absl::Status status =
      service::ParseProcessRequest(grpc::ByteBuffer(slices.data(), slices.size()), wire);
  FUZZ_CHECK(status.ok() == protobuf_ok,
             absl::StrCat("wire parse ", status.ToString(), " but protobuf ", protobuf_ok));
  if (protobuf_ok) {
    // Float parameters may be NaN: equal to themselves here.
    google::protobuf::util::DefaultFieldComparator comparator;
    comparator.set_treat_nan_as_equal(true);
    google::protobuf::util::MessageDifferencer differencer;
    differencer.set_field_comparator(&comparator);
    FUZZ_CHECK(differencer.Compare(service::RejoinedRequest(wire), expected),
               "the wire parse differs from protobuf's");
  }
  return wire;
}

}  // namespace

int FuzzProtoGraph(const uint8_t* data, size_t size) {
  // Protobuf logs every string field with invalid UTF-8 it parses: millions
  // of lines that slow the fuzzer and say nothing (the parse result does).
  static const bool quiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)quiet;
  v1::ProcessRequest request;
  const bool parsed = request.ParseFromArray(data, static_cast<int>(size));
  // The server's own reader (raw images left in the slices) must agree with
  // protobuf on every input, cut in slices as gRPC may hand them over.
  const service::WireRequest wire = CheckWireParse(data, size, parsed, request);
  if (!parsed) return 0;
  const service::RequestLimits limits;  // the server's defaults
  absl::StatusOr<service::TranslatedRequest> translated =
      service::TranslateRequest(request, limits);
  const absl::StatusOr<service::TranslatedRequest> from_wire =
      service::TranslateRequest(wire.message, limits, &wire.external);
  FUZZ_CHECK(from_wire.status() == translated.status(),
             absl::StrCat("translated from the wire: ", from_wire.status().ToString(),
                          "; from protobuf: ", translated.status().ToString()));
  if (!translated.ok()) {
    FUZZ_CHECK(Expected(translated.status()), translated.status().ToString());
    return 0;
  }
  FUZZ_CHECK(translated->inputs.size() == translated->desc.inputs.size(),
             "an input without a plan");
  FUZZ_CHECK(service::GraphHash(translated->desc).size() == 16, "graph hash is not 16 digits");
  const graph::CompileLimits compile_limits{.max_passes = limits.max_passes,
                                            .max_pixels = limits.max_pixels};
  absl::StatusOr<std::shared_ptr<const graph::CompiledGraph>> compiled =
      graph::Compile(translated->desc, Registry(), gpu::LavapipeLikeCaps(), compile_limits);
  if (!compiled.ok()) {
    FUZZ_CHECK(Expected(compiled.status()), compiled.status().ToString());
    return 0;
  }
  CheckCompiled(**compiled, limits);
  return 0;
}

}  // namespace rgfx::fuzz
