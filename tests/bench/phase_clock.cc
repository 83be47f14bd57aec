#include "tests/bench/phase_clock.h"

#include <algorithm>
#include <any>
#include <map>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "passes/blur_variants/blur_variant.h"
#include "passes/blur_variants/large_radius.h"
#include "passes/pass_util.h"
#include "kGaussianBlurFastClockF16.h"
#include "kGaussianBlurFastClockF32.h"
#include "kGaussianBlurFastClockPortableF16.h"
#include "kGaussianBlurFastClockPortableF32.h"
#include "kGaussianBlurRecursiveClockF16.h"
#include "kGaussianBlurRecursiveClockF32.h"
#include "kGaussianBlurRecursiveClockPortableF16.h"
#include "kGaussianBlurRecursiveClockPortableF32.h"

namespace rgfx::bench {
namespace {

// Must match the push_constant block of gaussian_blur_fast.comp.
struct FastPush {
  uint32_t n;
  uint32_t lines;
  uint32_t line_stride;
  uint32_t pixel_stride;
};

// The kernel a variant's step must run to be clocked.
bool Clocked(const std::string& variant, const passes::StepKernel& k) {
  if (variant == "fast") return k.shader == 0 && k.tap_shifts.empty();  // fast.cc's line kernel
  return k.shader == passes::kLargeRadiusRecursiveShader;
}

class PhaseClockPass final : public graph::PassType {
 public:
  PhaseClockPass() {
    schema_.doc =
        "Benchmark only: gaussian_blur's fast (line kernel) or large_radius (recursive kernel) "
        "variant with the kernel's phases clocked from inside it (one record per workgroup).";
    schema_.input_names = {"source"};
    schema_.output_names = {"result", "horizontal_records", "vertical_records"};
    graph::ParamSpec variant{"variant", graph::ParamType::kEnum, "fast (default) or large_radius",
                             std::string("fast")};
    variant.enum_values = {"fast", "large_radius"};
    schema_.params = {graph::ParamSpec{"radius", graph::ParamType::kInt,
                                       "blur radius in pixels (sigma = radius / 2)", int64_t{64},
                                       1, 4096},
                      variant};
  }
  std::string_view name() const override { return "phase_clock"; }
  const graph::PassSchema& schema() const override { return schema_; }

  absl::StatusOr<graph::PassPlan> Plan(const graph::PlanContext& ctx) const override {
    if (!ctx.caps.shader_clock) {
      return absl::FailedPreconditionError(absl::StrCat(
          "phase_clock: ", ctx.caps.name,
          " was opened without shader clocks (VK_KHR_shader_clock absent, or "
          "DeviceOptions::shader_clock off)"));
    }
    passes::BlurConfig config;
    config.pass_name = ctx.pass_name;
    config.radius = static_cast<int>(ctx.params.Int("radius"));
    config.sigma = config.radius / 2.0;
    config.axes = "both";
    config.extent = ctx.input_extents[0];
    config.working = ctx.working_format;
    config.caps = ctx.caps;
    graph::PassPlan plan;
    const std::string variant = ctx.params.Enum("variant");
    passes::BlurPrepared prepared;  // as gaussian_blur's Plan fills it
    prepared.variant = passes::FindBlurVariant(variant);
    prepared.config = config;
    if (absl::Status s = prepared.variant->Plan(config, plan, prepared); !s.ok()) {
      return s;
    }
    if (prepared.steps.size() != 2 || plan.steps.size() != 2) {
      return absl::InvalidArgumentError("phase_clock: the plan does not blur in two steps");
    }
    plan.output_extents = {config.extent};
    for (int i = 0; i < 2; ++i) {
      const passes::StepKernel& k = prepared.steps[i];
      if (!Clocked(variant, k)) {
        return absl::InvalidArgumentError(
            absl::StrCat("phase_clock: ", variant, "'s step ", plan.steps[i].label,
                         " does not run a clocked kernel (fast's line kernel, large_radius's "
                         "recursive kernel on whole pixels): ", k.details));
      }
      plan.output_extents.push_back(PhaseRecordsExtent(uint64_t{k.groups_x} * k.groups_y));
      plan.steps[i].writes.push_back(graph::StepResource::Output(1 + i));
    }
    plan.prepared = std::move(prepared);
    return plan;
  }

  absl::Status Record(graph::RecordContext& ctx, int step) const override {
    const auto& prepared = std::any_cast<const passes::BlurPrepared&>(ctx.plan().prepared);
    const passes::StepKernel& k = prepared.steps.at(step);
    const passes::LineLayout& l = k.layout;
    // The build for the working format, with the multiprocessor's number
    // where the device has it.
    const bool f32 = ctx.working_format() == graph::PixelFormat::kRgba32F;
    const auto clocked = [&](const char* name, std::span<const uint32_t> f16_sm,
                             std::span<const uint32_t> f16_portable,
                             std::span<const uint32_t> f32_sm,
                             std::span<const uint32_t> f32_portable, size_t push_bytes) {
      const bool sm = ctx.caps().sm_builtins;
      return gpu::ShaderCode{name,
                             f32 ? (sm ? f32_sm : f32_portable) : (sm ? f16_sm : f16_portable),
                             4, static_cast<uint32_t>(push_bytes)};
    };
    const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0), ctx.constants(k.constants),
                                        ctx.write(1)};
    if (ctx.params().Enum("variant") == "fast") {
      const FastPush push{l.n, l.lines, l.in_line_stride, l.in_pixel_stride};
      return ctx.Dispatch(
          clocked(f32 ? "gaussian_blur_fast_clock_f32" : "gaussian_blur_fast_clock_f16",
                  kGaussianBlurFastClockF16, kGaussianBlurFastClockPortableF16,
                  kGaussianBlurFastClockF32, kGaussianBlurFastClockPortableF32, sizeof(push)),
          k.spec, buffers, push, k.groups_x, k.groups_y, 1);
    }
    const passes::RecursivePush push = passes::RecursivePushFor(prepared, k);
    const gpu::ShaderCode shader = clocked(
        f32 ? "gaussian_blur_recursive_clock_f32" : "gaussian_blur_recursive_clock_f16",
        kGaussianBlurRecursiveClockF16, kGaussianBlurRecursiveClockPortableF16,
        kGaussianBlurRecursiveClockF32, kGaussianBlurRecursiveClockPortableF32, sizeof(push));
    return ctx.Dispatch(shader, k.spec, buffers, push, k.groups_x, k.groups_y, 1);
  }

 private:
  graph::PassSchema schema_;
};

// A whole number 0 to 255 (the shader writes nothing else; NaN is not).
bool IsByte(float v) { return v >= 0 && v <= 255 && v == static_cast<float>(static_cast<int>(v)); }

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

}  // namespace

std::unique_ptr<graph::PassType> MakePhaseClockPass() { return std::make_unique<PhaseClockPass>(); }

graph::Extent PhaseRecordsExtent(uint64_t workgroups) {
  return {kPhaseRecordsPerRow * kPhaseRecordTexels,
          static_cast<uint32_t>(std::max<uint64_t>(1, (workgroups + kPhaseRecordsPerRow - 1) /
                                                          kPhaseRecordsPerRow))};
}

absl::StatusOr<std::vector<PhaseRecord>> DecodePhaseRecords(std::span<const float> texels,
                                                            uint64_t workgroups) {
  constexpr int kValues = kPhaseRecordTexels * 4;
  if (texels.size() < workgroups * kValues) {
    return absl::InvalidArgumentError(absl::StrCat("phase records: ", texels.size(),
                                                   " floats for ", workgroups, " workgroups"));
  }
  std::vector<PhaseRecord> records(workgroups);
  for (uint64_t w = 0; w < workgroups; ++w) {
    const float* t = &texels[w * kValues];
    for (int i = 0; i < kValues; ++i) {
      if (!IsByte(t[i])) {
        return absl::DataLossError(absl::StrCat("phase records: workgroup ", w, " value ", i,
                                                " is ", t[i], ", not a byte"));
      }
    }
    if (t[0] != 1.0f) {
      return absl::DataLossError(absl::StrCat("phase records: workgroup ", w, " wrote none"));
    }
    // Bytes most significant first, from value `at` on (the layout of
    // PhaseWrite in passes/shaders/phase_clock.glsl).
    const auto bytes = [&](int at, int count) {
      uint32_t v = 0;
      for (int i = 0; i < count; ++i) v = v << 8 | static_cast<uint32_t>(t[at + i]);
      return v;
    };
    PhaseRecord& r = records[w];
    r.multiprocessor = bytes(1, 2);
    r.start = bytes(3, 4);
    r.realtime_start = bytes(7, 4);
    r.realtime_end = bytes(11, 4);
    r.staged = bytes(15, 3);
    r.computed = bytes(18, 3);
    r.outputs = bytes(21, 3);
    r.end = bytes(24, 3);
    r.swept = bytes(27, 3);
    r.scanned = bytes(30, 3);
    // Each mark is taken after the one before it (0: the path has none).
    uint32_t last = 0;
    for (uint32_t mark : {r.staged, r.swept, r.scanned, r.computed, r.outputs, r.end}) {
      if (mark == 0) continue;
      if (mark < last) {
        return absl::DataLossError(absl::StrCat("phase records: workgroup ", w,
                                                "'s phases are out of order"));
      }
      last = mark;
    }
  }
  return records;
}

PhaseSummary SummarizePhases(const std::vector<PhaseRecord>& records) {
  PhaseSummary s;
  s.workgroups = records.size();
  if (records.empty()) return s;
  // The clock's rate: cycles over realtime nanoseconds, summed over every
  // workgroup (a coarse realtime clock still averages out).
  double cycles = 0, ns = 0;
  int64_t first = 0, last = 0;  // realtime, from the first record's start
  for (const PhaseRecord& r : records) {
    cycles += r.end;
    ns += static_cast<uint32_t>(r.realtime_end - r.realtime_start);
    first = std::min<int64_t>(first, static_cast<int32_t>(r.realtime_start - records[0].realtime_start));
    last = std::max<int64_t>(last, static_cast<int32_t>(r.realtime_end - records[0].realtime_start));
  }
  s.cycles_per_ns = ns > 0 ? cycles / ns : 0;
  s.dispatch_us = (last - first) / 1e3;
  const double us = s.cycles_per_ns > 0 ? 1.0 / (s.cycles_per_ns * 1e3) : 0;
  // A phase a path does not have (mark 0) takes no time.
  const auto mark = [](uint32_t m, uint32_t before) { return m == 0 ? before : m; };
  std::vector<double> stage, compute, outputs_staged, store, total, first_sweep, scan,
      second_sweep;
  s.split = true;
  // Per multiprocessor, every workgroup's phases as intervals on its clock
  // (offsets from its first record's start, so that a wrap of the 32-bit
  // clock within the dispatch does no harm).
  struct Event {
    int64_t at;
    int phase;  // 0 staging, 1 computing, 2 finishing
    int delta;
  };
  std::map<uint32_t, std::vector<Event>> events;
  std::map<uint32_t, uint32_t> reference;
  for (const PhaseRecord& r : records) {
    const uint32_t staged = mark(r.staged, 0);
    const uint32_t computed = mark(r.computed, staged);
    const uint32_t outputs = mark(r.outputs, computed);
    stage.push_back(staged * us);
    compute.push_back((computed - staged) * us);
    outputs_staged.push_back((outputs - computed) * us);
    store.push_back((r.end - outputs) * us);
    total.push_back(r.end * us);
    if (r.swept == 0 || r.scanned == 0 || r.computed == 0) {
      s.split = false;
    } else {
      first_sweep.push_back((r.swept - staged) * us);
      scan.push_back((r.scanned - r.swept) * us);
      second_sweep.push_back((r.computed - r.scanned) * us);
    }
    const uint32_t ref = reference.emplace(r.multiprocessor, r.start).first->second;
    const int64_t start = static_cast<int32_t>(r.start - ref);
    auto& e = events[r.multiprocessor];
    e.push_back({start, 0, +1});
    e.push_back({start + staged, 0, -1});
    e.push_back({start + staged, 1, +1});
    e.push_back({start + computed, 1, -1});
    e.push_back({start + computed, 2, +1});
    e.push_back({start + r.end, 2, -1});
  }
  s.stage_us = Median(stage);
  s.compute_us = Median(compute);
  s.outputs_us = Median(outputs_staged);
  s.store_us = Median(store);
  s.total_us = Median(total);
  if (s.split) {
    s.first_sweep_us = Median(first_sweep);
    s.scan_us = Median(scan);
    s.second_sweep_us = Median(second_sweep);
  }
  s.multiprocessors = static_cast<uint32_t>(events.size());
  double busy_total = 0, weighted[3] = {0, 0, 0}, idle_compute = 0;
  std::vector<double> busy_spans;
  for (auto& [sm, e] : events) {
    // Ends before starts at the same clock: a workgroup that ends as
    // another starts is not counted twice.
    std::sort(e.begin(), e.end(), [](const Event& a, const Event& b) {
      return a.at != b.at ? a.at < b.at : a.delta < b.delta;
    });
    int count[3] = {0, 0, 0};
    int64_t previous = e.front().at;
    const double span = static_cast<double>(e.back().at - e.front().at);
    for (const Event& ev : e) {
      const double dt = static_cast<double>(ev.at - previous);
      for (int p = 0; p < 3; ++p) weighted[p] += dt * count[p];
      if (count[1] == 0 && count[0] + count[2] > 0) idle_compute += dt;
      count[ev.phase] += ev.delta;
      s.most_resident = std::max<uint32_t>(s.most_resident, count[0] + count[1] + count[2]);
      previous = ev.at;
    }
    busy_total += span;
    busy_spans.push_back(span * us);
  }
  if (busy_total > 0) {
    s.staging = weighted[0] / busy_total;
    s.computing = weighted[1] / busy_total;
    s.finishing = weighted[2] / busy_total;
    s.resident = s.staging + s.computing + s.finishing;
    s.idle_compute_share = idle_compute / busy_total;
  }
  s.busy_us = Median(busy_spans);
  return s;
}

std::string FormatPhaseSummary(const PhaseSummary& s) {
  const std::string split =
      s.split ? absl::StrFormat("\n  compute, median us: first sweep %.2f, scan %.2f, second sweep %.2f",
                                s.first_sweep_us, s.scan_us, s.second_sweep_us)
              : "";
  return absl::StrFormat(
      "%d workgroups on %d multiprocessors; clock %.3f cycles/ns; dispatch %.1f us (realtime), "
      "a multiprocessor busy %.1f us (median)\n"
      "  per workgroup, median us: stage %.2f, compute %.2f, outputs %.2f, store %.2f, all %.2f\n"
      "  resident per multiprocessor (time-weighted): %.1f (at most %d): staging %.1f, computing "
      "%.1f, finishing %.1f; no workgroup computing %.1f%% of the busy time",
      s.workgroups, s.multiprocessors, s.cycles_per_ns, s.dispatch_us, s.busy_us, s.stage_us,
      s.compute_us, s.outputs_us, s.store_us, s.total_us, s.resident, s.most_resident, s.staging,
      s.computing, s.finishing, 100 * s.idle_compute_share) + split;
}

}  // namespace rgfx::bench
