#include "graph/dot.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "graph/compile_steps.h"

namespace rgfx::graph {
namespace {

// A dot double-quoted string: quotes and backslashes escaped, "\n" kept as
// dot's line break.
std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
  }
  out += '"';
  return out;
}

std::string PassId(const std::string& name) { return Quote(absl::StrCat("pass:", name)); }
std::string ResourceId(const std::string& name) { return Quote(absl::StrCat("res:", name)); }

bool Contains(const std::vector<int>& list, int value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

const char* KindName(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::kImported:
      return "imported";
    case ResourceKind::kExported:
      return "exported";
    case ResourceKind::kTransient:
      return "transient";
  }
  return "";
}

}  // namespace

std::string ToDot(const CompiledGraph& graph) {
  const std::vector<internal::StepHazards> hazards = internal::FindHazards(graph);
  std::string out =
      "digraph rgfx {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n";
  absl::StrAppend(
      &out, "  label=",
      Quote(absl::StrCat("passes run ", graph.stats.passes_run, ", culled ",
                         graph.stats.passes_culled, ", steps ", graph.stats.steps, ", barriers ",
                         graph.stats.barriers, ", transient buffers ",
                         graph.stats.transient_buffers, " (", graph.stats.transient_bytes,
                         " bytes, ", graph.stats.transient_bytes_unaliased, " unaliased)")),
      ";\n");

  // Resources: size, format and the physical buffer they live in.
  std::set<std::string> declared;
  for (const LogicalResource& r : graph.resources) {
    declared.insert(r.name);
    const char* style = r.kind == ResourceKind::kTransient ? "solid" : "bold";
    if (r.name.find('#') != std::string::npos) style = "dotted";  // a pass temporary
    absl::StrAppend(
        &out, "  ", ResourceId(r.name), " [shape=ellipse, style=", style, ", label=",
        Quote(absl::StrCat(r.name, "\n", r.extent.width, "×", r.extent.height, " ",
                           std::string(PixelFormatName(r.format)), "\n", KindName(r.kind),
                           ", buffer ", r.physical, "\nsteps ", r.first_step, "..", r.last_step)),
        "];\n");
  }

  // Passes in execution order, their steps listed with the barriers before them.
  for (const CompiledPass& pass : graph.passes) {
    std::string label = absl::StrCat(pass.name, "\n", pass.type);
    if (!pass.plan.variant.empty()) absl::StrAppend(&label, " (", pass.plan.variant, ")");
    for (int s = pass.first_step; s < pass.first_step + pass.num_steps; ++s) {
      absl::StrAppend(&label, "\n#", s, " ", pass.plan.steps[graph.steps[s].step].label,
                      graph.steps[s].barrier_before ? " [barrier]" : "");
    }
    absl::StrAppend(&out, "  ", PassId(pass.name), " [shape=box, style=",
                    pass.internal ? "\"rounded,filled\", fillcolor=gray90" : "solid",
                    ", label=", Quote(label), "];\n");
  }

  // Edges. One marked "barrier" guards its step: a read of a buffer written
  // since the last barrier, or a write over one used since then.
  for (const CompiledPass& pass : graph.passes) {
    std::vector<int> reads, writes, read_barriers, write_barriers;
    for (int s = pass.first_step; s < pass.first_step + pass.num_steps; ++s) {
      const CompiledStep& step = graph.steps[s];
      for (int r : step.reads) {
        if (!Contains(reads, r)) reads.push_back(r);
        if (Contains(hazards[s].read_after_write, graph.resources[r].physical) &&
            !Contains(read_barriers, r)) {
          read_barriers.push_back(r);
        }
      }
      for (int r : step.writes) {
        if (!Contains(writes, r)) writes.push_back(r);
        if (Contains(hazards[s].write_after_use, graph.resources[r].physical) &&
            !Contains(write_barriers, r)) {
          write_barriers.push_back(r);
        }
      }
    }
    constexpr const char* kBarrier = " [color=red, style=bold, label=\"barrier\"]";
    for (int r : reads) {
      absl::StrAppend(&out, "  ", ResourceId(graph.resources[r].name), " -> ", PassId(pass.name),
                      Contains(read_barriers, r) ? kBarrier : "", ";\n");
    }
    for (int r : writes) {
      absl::StrAppend(&out, "  ", PassId(pass.name), " -> ", ResourceId(graph.resources[r].name),
                      Contains(write_barriers, r) ? kBarrier : "", ";\n");
    }
  }

  // Culled passes, dashed, with what they would have read and written.
  for (const std::string& name : graph.culled) {
    auto it = std::find_if(graph.desc.passes.begin(), graph.desc.passes.end(),
                           [&](const PassDesc& p) { return p.name == name; });
    if (it == graph.desc.passes.end()) continue;
    absl::StrAppend(&out, "  ", PassId(name), " [shape=box, style=dashed, label=",
                    Quote(absl::StrCat(name, "\n", it->type, "\n(culled)")), "];\n");
    auto declare = [&](const std::string& resource) {
      if (!declared.insert(resource).second) return;
      absl::StrAppend(&out, "  ", ResourceId(resource), " [shape=ellipse, style=dashed, label=",
                      Quote(absl::StrCat(resource, "\n(culled)")), "];\n");
    };
    for (const std::string& input : it->inputs) {
      declare(input);
      absl::StrAppend(&out, "  ", ResourceId(input), " -> ", PassId(name), " [style=dashed];\n");
    }
    for (const std::string& output : it->outputs) {
      declare(output);
      absl::StrAppend(&out, "  ", PassId(name), " -> ", ResourceId(output), " [style=dashed];\n");
    }
  }
  out += "}\n";
  return out;
}

}  // namespace rgfx::graph
