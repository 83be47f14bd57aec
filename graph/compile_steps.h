// The steps of Compile() (compile.h), each a function that can be tested
// alone: Validate → Order → Cull → PlanPasses → ComputeLifetimes →
// AliasTransients → PlaceBarriers → ComputeStats. Internal to graph/ and its
// tests; other folders call Compile().
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpu/caps.h"
#include "graph/compile.h"
#include "graph/compiled_graph.h"
#include "graph/description.h"
#include "graph/registry.h"

namespace rgfx::graph::internal {

// Names the compiler makes. Client names may not contain ':', '@' or '#', so
// these can never collide with a client's.
std::string ImportPassName(const std::string& input);              // "import:photo"
std::string ExportPassName(const std::string& output);             // "export:soft"
std::string RawResourceName(const std::string& input);             // "photo@raw"
std::string OutResourceName(const std::string& output);            // "soft@out"
std::string TempResourceName(const std::string& pass, int index);  // "blur#tmp0"

// A pass after validation: a client pass, or an import/export the compiler
// inserted around the graph.
struct PassNode {
  enum class Role { kImport, kClient, kExport };
  Role role = Role::kClient;
  std::string name;
  const PassType* impl = nullptr;
  Params params;                     // validated, defaults filled
  std::vector<std::string> inputs;   // resources read, in schema order
  std::vector<std::string> outputs;  // resources written
  // Index into desc.inputs (import), desc.passes (client) or desc.outputs (export).
  int source = 0;
  bool internal() const { return role != Role::kClient; }
};

struct ValidatedGraph {
  // Imports in desc.inputs order, then client passes in desc.passes order,
  // then exports in desc.outputs order: the tie-break order of Order().
  std::vector<PassNode> nodes;
  // Resource name → the node writing it. Raw inputs ("x@raw") and exported
  // images ("x@out") are absent: the upload writes the former, nothing in the
  // graph reads the latter.
  std::map<std::string, int, std::less<>> producer;
};

// Everything that can be checked from the description alone: names, types,
// arities, parameters, single assignment, unknown resources, limits on the
// graph and its inputs. Culled passes are validated too, so a typo in an
// unused branch is still reported.
absl::StatusOr<ValidatedGraph> Validate(const GraphDesc& desc, const PassRegistry& registry,
                                        const CompileLimits& limits);

// A topological order of all nodes (Kahn): among the nodes ready at a time,
// the one first in ValidatedGraph::nodes goes first. A cycle is an error that
// names its passes.
absl::StatusOr<std::vector<int>> Order(const ValidatedGraph& graph);

// live[node]: the node contributes to an export. Exports are always live.
std::vector<bool> Cull(const ValidatedGraph& graph);

// Plans the live nodes in `order`: passes, logical resources, flat steps,
// imported/exported and culled. Errors from PassType::Plan pass through;
// resources over the limits or the device's storage buffer range are refused.
absl::StatusOr<CompiledGraph> PlanPasses(const GraphDesc& desc, const ValidatedGraph& graph,
                                         const std::vector<int>& order,
                                         const std::vector<bool>& live, const gpu::DeviceCaps& caps,
                                         const CompileLimits& limits);

// first_step/last_step of every resource from graph.steps. Imported
// resources are written before step 0 (first_step = -1); exported ones are
// read after the last step (last_step = steps.size()).
void ComputeLifetimes(CompiledGraph& graph);

// Fills graph.buffers and every resource's `physical`: transients whose
// lifetimes do not overlap share a buffer (greedy by first_step, best fit);
// imported and exported resources get their own.
void AliasTransients(CompiledGraph& graph);

// Why a step needs a barrier before it: physical buffers it reads that were
// written since the last barrier (read after write), and buffers it writes
// that were read or written since then (write after read / write).
struct StepHazards {
  std::vector<int> read_after_write;
  std::vector<int> write_after_use;
  bool any() const { return !read_after_write.empty() || !write_after_use.empty(); }
};

// The hazards of every step, given that a barrier goes before each step with
// any (a barrier waits for everything before it). Needs resources' physical.
std::vector<StepHazards> FindHazards(const CompiledGraph& graph);

// Sets barrier_before on exactly the steps FindHazards flags.
void PlaceBarriers(CompiledGraph& graph);

void ComputeStats(CompiledGraph& graph);

}  // namespace rgfx::graph::internal
