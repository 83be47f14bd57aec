// Compile steps that need only the description: Validate, Order, Cull.
#include <algorithm>
#include <functional>
#include <queue>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/compile_steps.h"

namespace rgfx::graph::internal {
namespace {

std::string Dims(Extent extent) { return absl::StrCat(extent.width, "×", extent.height); }

// `what` is e.g. "pass 'blur': output" or "input"; the name follows.
absl::Status CheckName(const std::string& what, const std::string& name) {
  if (name.empty()) return absl::InvalidArgumentError(absl::StrCat(what, " has an empty name"));
  if (name.find_first_of(":@#") != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " '", name,
                     "': names may not contain ':', '@' or '#' (reserved for names the "
                     "compiler makes)"));
  }
  return absl::OkStatus();
}

std::string Plural(size_t n, const char* word) {
  return absl::StrCat(n, " ", word, n == 1 ? "" : "s");
}

absl::Status CheckArity(const PassDesc& pass, const PassSchema& schema) {
  const size_t max_inputs = schema.input_names.size();
  const size_t min_inputs = std::min<size_t>(std::max(schema.min_inputs, 0), max_inputs);
  const std::string input_list = absl::StrJoin(schema.input_names, ", ");
  if (pass.inputs.size() < min_inputs || pass.inputs.size() > max_inputs) {
    const std::string expected = min_inputs == max_inputs
                                     ? Plural(max_inputs, "input")
                                     : absl::StrCat(min_inputs, " to ", max_inputs, " inputs");
    return absl::InvalidArgumentError(absl::StrCat("pass '", pass.name, "' (type '", pass.type,
                                                   "') takes ", expected, " (", input_list,
                                                   "), got ", pass.inputs.size()));
  }
  if (pass.outputs.size() != schema.output_names.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pass '", pass.name, "' (type '", pass.type, "') writes ",
                     Plural(schema.output_names.size(), "output"), " (",
                     absl::StrJoin(schema.output_names, ", "), "), got ", pass.outputs.size()));
  }
  return absl::OkStatus();
}

std::string FormatParam(PixelFormat format) {
  std::string name(PixelFormatName(format));
  std::transform(name.begin(), name.end(), name.begin(), [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  });
  return name;
}

// The three parameters every import and export pass takes.
Params ConvertParams(PixelFormat format, ColorSpace space, AlphaMode alpha) {
  Params params;
  params.Set("format", FormatParam(format));
  params.Set("color_space", std::string(ColorSpaceName(space)));
  params.Set("alpha", std::string(AlphaModeName(alpha)));
  return params;
}

std::string KnownTypes(const PassRegistry& registry) {
  std::vector<std::string> names;
  for (const PassType* type : registry.All()) {
    if (type->name() != kImportPassType && type->name() != kExportPassType) {
      names.emplace_back(type->name());
    }
  }
  return absl::StrJoin(names, ", ");
}

}  // namespace

std::string ImportPassName(const std::string& input) { return absl::StrCat("import:", input); }
std::string ExportPassName(const std::string& output) { return absl::StrCat("export:", output); }
std::string RawResourceName(const std::string& input) { return absl::StrCat(input, "@raw"); }
std::string OutResourceName(const std::string& output) { return absl::StrCat(output, "@out"); }
std::string TempResourceName(const std::string& pass, int index) {
  return absl::StrCat(pass, "#tmp", index);
}

absl::StatusOr<ValidatedGraph> Validate(const GraphDesc& desc, const PassRegistry& registry,
                                        const CompileLimits& limits) {
  if (!IsWorkingFormat(desc.working_format)) {
    return absl::InvalidArgumentError(
        absl::StrCat("working format ", std::string(PixelFormatName(desc.working_format)),
                     " is not supported (use RGBA16F or RGBA32F)"));
  }
  if (desc.outputs.empty()) return absl::InvalidArgumentError("graph has no outputs");
  if (desc.passes.size() > static_cast<size_t>(std::max(limits.max_passes, 0))) {
    return absl::ResourceExhaustedError(absl::StrCat("graph has ", desc.passes.size(),
                                                     " passes, more than the limit of ",
                                                     limits.max_passes, " (max_passes)"));
  }
  const PassType* import_type = registry.Find(kImportPassType);
  const PassType* export_type = registry.Find(kExportPassType);
  if (import_type == nullptr || export_type == nullptr) {
    // Our own set-up is incomplete, not the client's fault.
    return absl::InternalError("the internal pass types 'import' and 'export' are not registered");
  }

  ValidatedGraph graph;

  // Inputs become import nodes: "x@raw" (client pixels) → "x" (working format).
  for (size_t i = 0; i < desc.inputs.size(); ++i) {
    const InputDesc& input = desc.inputs[i];
    if (input.name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("input #", i, " has an empty name"));
    }
    if (absl::Status s = CheckName("input", input.name); !s.ok()) return s;
    if (graph.producer.count(input.name) != 0) {
      return absl::InvalidArgumentError(absl::StrCat("input '", input.name, "' is listed twice"));
    }
    if (input.extent.width == 0 || input.extent.height == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", input.name, "' has zero size (", Dims(input.extent), ")"));
    }
    if (input.extent.pixels() > limits.max_pixels) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "input '", input.name, "' (", Dims(input.extent), " = ", input.extent.pixels(),
          " pixels) exceeds the limit of ", limits.max_pixels, " pixels per image"));
    }
    PassNode node{PassNode::Role::kImport,
                  ImportPassName(input.name),
                  import_type,
                  ConvertParams(input.format, input.color_space, input.alpha),
                  {RawResourceName(input.name)},
                  {input.name},
                  static_cast<int>(i)};
    if (absl::Status s =
            ValidateAndFillParams(node.name, import_type->schema().params, node.params);
        !s.ok()) {
      return absl::InternalError(
          absl::StrCat("import pass type rejects its parameters: ", s.message()));
    }
    graph.producer.emplace(input.name, static_cast<int>(graph.nodes.size()));
    graph.nodes.push_back(std::move(node));
  }

  // Client passes: names, types, arities, parameters, what they write.
  std::set<std::string, std::less<>> pass_names;
  for (size_t i = 0; i < desc.passes.size(); ++i) {
    const PassDesc& pass = desc.passes[i];
    if (pass.name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("pass #", i, " has an empty name"));
    }
    if (absl::Status s = CheckName("pass", pass.name); !s.ok()) return s;
    if (!pass_names.insert(pass.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("duplicate pass name '", pass.name, "'"));
    }
    const PassType* type = registry.Find(pass.type);
    if (type == nullptr || pass.type == kImportPassType || pass.type == kExportPassType) {
      return absl::InvalidArgumentError(absl::StrCat("pass '", pass.name, "': unknown pass type '",
                                                     pass.type, "' (known: ", KnownTypes(registry),
                                                     ")"));
    }
    if (absl::Status s = CheckArity(pass, type->schema()); !s.ok()) return s;
    PassNode node{PassNode::Role::kClient, pass.name, type, pass.params, pass.inputs, pass.outputs,
                  static_cast<int>(i)};
    const int index = static_cast<int>(graph.nodes.size());
    if (absl::Status s = ValidateAndFillParams(pass.name, type->schema().params, node.params);
        !s.ok()) {
      return s;
    }
    for (const std::string& output : pass.outputs) {
      if (absl::Status s = CheckName(absl::StrCat("pass '", pass.name, "': output"), output);
          !s.ok()) {
        return s;
      }
      // Registered at once so a pass naming one output twice is caught too.
      auto [it, inserted] = graph.producer.emplace(output, index);
      if (inserted) continue;
      const PassNode& other = it->second == index ? node : graph.nodes[it->second];
      if (other.internal()) {
        return absl::InvalidArgumentError(
            absl::StrCat("pass '", pass.name, "' writes '", output, "', which is an input image"));
      }
      return absl::InvalidArgumentError(absl::StrCat("resource '", output,
                                                     "' is written twice: by pass '", other.name,
                                                     "' and by pass '", pass.name, "'"));
    }
    graph.nodes.push_back(std::move(node));
  }

  // Every resource read must be written by an input or a pass.
  for (const PassDesc& pass : desc.passes) {
    for (const std::string& input : pass.inputs) {
      if (graph.producer.count(input) == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("pass '", pass.name, "': unknown input resource '", input, "'"));
      }
    }
  }

  // Outputs become export nodes: "x" (working format) → "x@out" (client pixels).
  std::set<std::string, std::less<>> output_names;
  for (size_t i = 0; i < desc.outputs.size(); ++i) {
    const OutputDesc& output = desc.outputs[i];
    if (output.name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("output #", i, " has an empty name"));
    }
    if (!output_names.insert(output.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("output '", output.name, "' is listed twice"));
    }
    if (graph.producer.count(output.name) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("output '", output.name, "' is not produced by any pass or input"));
    }
    if (output.png_rows && output.format != PixelFormat::kRgba8) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output '", output.name, "': PNG scanlines are written for RGBA8 outputs only, not ",
          std::string(PixelFormatName(output.format))));
    }
    Params export_params = ConvertParams(output.format, output.color_space, output.alpha);
    // Only when asked: the export type's default (false) fills it otherwise.
    if (output.png_rows) export_params.Set("png_rows", true);
    PassNode node{PassNode::Role::kExport,
                  ExportPassName(output.name),
                  export_type,
                  std::move(export_params),
                  {output.name},
                  {OutResourceName(output.name)},
                  static_cast<int>(i)};
    if (absl::Status s =
            ValidateAndFillParams(node.name, export_type->schema().params, node.params);
        !s.ok()) {
      return absl::InternalError(
          absl::StrCat("export pass type rejects its parameters: ", s.message()));
    }
    // Not in `producer`: nothing in the graph may read an exported image.
    graph.nodes.push_back(std::move(node));
  }
  return graph;
}

absl::StatusOr<std::vector<int>> Order(const ValidatedGraph& graph) {
  const int n = static_cast<int>(graph.nodes.size());
  std::vector<int> indegree(n, 0);
  std::vector<std::vector<int>> consumers(n);
  for (int i = 0; i < n; ++i) {
    for (const std::string& input : graph.nodes[i].inputs) {
      auto it = graph.producer.find(input);
      if (it == graph.producer.end()) continue;  // uploaded, not produced
      consumers[it->second].push_back(i);
      ++indegree[i];
    }
  }
  // Min-heap on the node index: ties go to the earliest node, so the order
  // is deterministic and follows the client's listing where it can.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i) {
    if (indegree[i] == 0) ready.push(i);
  }
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    const int node = ready.top();
    ready.pop();
    order.push_back(node);
    for (int consumer : consumers[node]) {
      if (--indegree[consumer] == 0) ready.push(consumer);
    }
  }
  if (static_cast<int>(order.size()) == n) return order;

  // Every node left has a producer that is also left: walking producers from
  // the first one left must come back to a node already seen, closing a cycle.
  int node = 0;
  while (indegree[node] == 0) ++node;
  std::vector<int> path;
  std::vector<int> position(n, -1);
  while (position[node] < 0) {
    position[node] = static_cast<int>(path.size());
    path.push_back(node);
    for (const std::string& input : graph.nodes[node].inputs) {
      auto it = graph.producer.find(input);
      if (it != graph.producer.end() && indegree[it->second] > 0) {
        node = it->second;
        break;
      }
    }
  }
  // path[position[node]..] walked the cycle against the data flow: reverse
  // it, and start it at its first listed pass so the message is stable.
  std::vector<int> cycle(path.rbegin(), path.rend() - position[node]);
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  std::vector<std::string> names;
  for (int i : cycle) names.push_back(graph.nodes[i].name);
  names.push_back(names.front());
  return absl::InvalidArgumentError(
      absl::StrCat("graph has a cycle: ", absl::StrJoin(names, " -> ")));
}

std::vector<bool> Cull(const ValidatedGraph& graph) {
  std::vector<bool> live(graph.nodes.size(), false);
  std::vector<int> stack;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (graph.nodes[i].role == PassNode::Role::kExport) {
      live[i] = true;
      stack.push_back(static_cast<int>(i));
    }
  }
  while (!stack.empty()) {
    const int node = stack.back();
    stack.pop_back();
    for (const std::string& input : graph.nodes[node].inputs) {
      auto it = graph.producer.find(input);
      if (it != graph.producer.end() && !live[it->second]) {
        live[it->second] = true;
        stack.push_back(it->second);
      }
    }
  }
  return live;
}

}  // namespace rgfx::graph::internal
