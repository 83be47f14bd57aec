// rgfx-gpu-bench: GPU time of every pass and step of a blur graph on the
// chosen device (timestamps; medians of many runs after warm-up; inputs
// rotated so caches do not flatter), next to the copy-bandwidth floor
// measured in the same run with the `copy` pass and the fp32 arithmetic
// floor from the multiply-add rate measured with `fma_probe`
// (tests/bench/fma_probe.h). Prints figures; asserts nothing.
#include <algorithm>
#include <any>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/time/time.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gpu/device.h"
#include "gpu/instance.h"
#include "gpu/pipeline_cache.h"
#include "graph/compile.h"
#include "graph/executor.h"
#include "passes/blur_variants/blur_variant.h"
#include "passes/blur_variants/fast.h"
#include "passes/blur_variants/fast_fft.h"
#include "passes/blur_variants/large_radius.h"
#include "passes/builtin_passes.h"
#include "passes/gaussian_blur.h"
#include "tests/bench/fma_probe.h"
#include "tests/bench/phase_clock.h"

ABSL_FLAG(std::string, device, "", "device index or name substring (default: automatic)");
ABSL_FLAG(int, width, 1920, "image width in pixels");
ABSL_FLAG(int, height, 1080, "image height in pixels");
ABSL_FLAG(int, radius, 64, "blur radius in pixels");
ABSL_FLAG(double, sigma, 0, "blur sigma in pixels (0: radius / 2)");
ABSL_FLAG(std::string, variant, "exact", "gaussian_blur variant");
ABSL_FLAG(std::string, working_format, "rgba16f", "rgba16f or rgba32f");
ABSL_FLAG(int, runs, 50, "timed runs");
ABSL_FLAG(int, warmup, 10, "untimed runs first (at least)");
ABSL_FLAG(int, warmup_ms, 1000,
          "untimed runs last at least this long: GPUs raise their clocks only under load");
ABSL_FLAG(int, rotate, 4, "distinct input images cycled through");
ABSL_FLAG(bool, identical_inputs, false,
          "the --rotate images are copies of the first: the same bytes every run with the same "
          "host-memory traffic between runs as distinct images (tells the data from the traffic)");
ABSL_FLAG(bool, print_runs, false,
          "print every timed run: which image it took, when it started (ms after the first "
          "timed run) and each step's GPU time (its median over --repeats)");
ABSL_FLAG(bool, matrix_units, true,
          "use the matrix units (VK_NV_cooperative_matrix) where present; false: the ordinary "
          "paths, to compare");
ABSL_FLAG(bool, validation, false, "turn on the validation layer (slows the CPU side only)");
ABSL_FLAG(int, repeats, 1,
          "GPU repetitions per run, back to back in one submission (medians): the GPU stays "
          "busy at sustained clocks (an H100 idling between runs drops to 345 MHz)");
ABSL_FLAG(bool, pipeline_statistics, true,
          "print what the driver says about each pipeline the graph used (registers, shared "
          "memory, ...; VK_KHR_pipeline_executable_properties), where it offers that");
ABSL_FLAG(std::string, stream_shape, "",
          "fast's streamed matrix kernel in this shape instead of the plan's, "
          "max_tiles:ahead:tiles_per_step:warps[:column_chains[:register_ring]] (e.g. "
          "24:2:2:1), to compare shapes");
ABSL_FLAG(int, tiled_temp_max_blocks, -1,
          "fast's streamed RGBA16F passes: store the temporary in tiles up to this many weight "
          "blocks of the whole kernel, split taps or not (-1 keeps the plan's rule: up to 4, "
          "and wherever the taps split)");
ABSL_FLAG(int, stream_min_subgroups, 0,
          "fast's streamed kernel: the fewest subgroups a pass may run in (segments grow to "
          "it; the one-wave rule drops one down to it); 0: the plan's (1,024; 768 from r = 65)");
ABSL_FLAG(int, fft_from_radius, -1,
          "fast RGBA32F: each axis through the FFT from this radius on where its transform fits "
          "(a huge radius: never); -1 keeps the plan's rule");
ABSL_FLAG(int, fft_per_invocation, 0,
          "fast RGBA32F's FFT: elements an invocation holds, 16 or 8; 0 keeps the plan's");
ABSL_FLAG(int, fft_pairs, -1,
          "fast RGBA32F's FFT: 1 transforms one channel pair a workgroup even where both fit, 0 "
          "only where the transform needs it; -1 keeps the plan's");
ABSL_FLAG(int, fft_size, 0,
          "fast RGBA32F's FFT: the transform length (a power of two from 256 the device fits, "
          "above twice the radius; lines longer than it less 2R go in segments); 0 keeps the "
          "plan's (the cheapest by its cost model)");
ABSL_FLAG(int, fft_columns, 0,
          "fast RGBA32F's FFT: columns a workgroup (1, 2 or 4, where the device fits them); 0 "
          "keeps the plan's");
ABSL_FLAG(int, fft_strip_temporary, -1,
          "fast RGBA32F's FFT on both axes: 1 stores the temporary in strips of the columns a "
          "workgroup, 0 in the image's layout; -1 keeps the plan's");
ABSL_FLAG(int, split_from_radius, 0,
          "fast RGBA16F: split the taps into parts (one streamed dispatch each, sums in fp32) "
          "from this radius on; 0 keeps the plan's (384)");
ABSL_FLAG(int, split_part_radius, 0,
          "fast RGBA16F: the widest part of split taps, as a half width (1 to 448); 0 keeps the "
          "plan's (160)");
ABSL_FLAG(int, line_row_group, 0,
          "fast's line paths: invocations per row segment (32 to 1024, a multiple of 32); 0 keeps "
          "the plan's (64)");
ABSL_FLAG(int, line_column_group, 0,
          "fast's line paths: invocations per column tile (a multiple of 32 and of its columns, "
          "where the tile fits); 0 keeps the plan's (64, or 96 in RGBA32F up to r = 128)");
ABSL_FLAG(int, strided_rows_from_radius, 0,
          "fast's line paths: rows from this radius on take the strided path (lanes along the "
          "row, outputs 32 px apart) even where a segment fits; 0 keeps the plan's");
ABSL_FLAG(double, min_psnr_db, 0,
          "the blur's min_psnr_db, what the request allows (sweeps too): 0 float rounding "
          "only; > 0 also an approximation stating at least this PSNR (auto may choose one, "
          "fast in RGBA32F runs through fp16 on matrix units; the CSV's stated_psnr_db says "
          "which plans were approximate)");
ABSL_FLAG(bool, large_radius_boxes, false,
          "large_radius uses its box stack even where its recursive path can run (in a sweep, "
          "list the variant as large_radius:boxes to time both)");
ABSL_FLAG(int, large_radius_max_chunk, 0,
          "large_radius's recursive path: the most pixels per chunk on every axis, 4 to 32 (0: the "
          "plan's, 17 for RGBA16F columns and 16 otherwise); "
          "for measuring other chunk geometries, the plan's stated rounding follows it");
ABSL_FLAG(int, large_radius_strip_temporary, -1,
          "large_radius recursive on both axes: the temporary between them in the image's "
          "layout (0), as the plan's rule says (1: strips of the columns a workgroup where a "
          "strip's row is 32 bytes or more), or in strips of N >= 2 columns in any format (a "
          "multiple of the columns a workgroup); -1 keeps the plan's (1)");
ABSL_FLAG(bool, sweep, false,
          "instead of one graph: time gaussian_blur for every --sweep_variants x "
          "--sweep_radii x --sweep_sizes x --sweep_formats and print CSV (bench/ turns it "
          "into charts and the auto table)");
ABSL_FLAG(std::string, sweep_variants, "exact,tiled_halo,tuned,fast,large_radius,decimated",
          "variants of the sweep");
ABSL_FLAG(std::string, sweep_radii, "1,2,4,8,16,32,64,128,256,512,1024", "radii of the sweep");
ABSL_FLAG(std::string, sweep_sizes, "1920x1080", "WxH sizes of the sweep");
ABSL_FLAG(std::string, sweep_formats, "rgba16f", "working formats of the sweep");
ABSL_FLAG(int, sweep_runs, 7, "timed runs per sweep point (fewer once a point passes 20 ms)");
ABSL_FLAG(int, sweep_warmup_ms, 200,
          "sweep: untimed submissions before each point's timed runs, so every point is "
          "measured at sustained clocks");
ABSL_FLAG(std::string, csv, "", "sweep: also write the CSV here");
ABSL_FLAG(std::string, sweep_stream_shapes, "",
          "sweep: each point also once per shape of fast's streamed matrix kernel in this "
          "comma-separated list (see --stream_shape; 'plan' is the plan's own), the variant "
          "column then reading e.g. fast@24:2:2:1");
ABSL_FLAG(bool, phase_clock, false,
          "instead of timing: run --variant fast's line kernel or large_radius's recursive "
          "kernel (--working_format, --width, --height, --radius) with its phases clocked from "
          "inside it and print where each workgroup's time goes and what the workgroups sharing a "
          "multiprocessor do at once (tests/bench/phase_clock.h); needs VK_KHR_shader_clock");
ABSL_FLAG(std::string, phase_clock_csv, "",
          "--phase_clock: also write every workgroup's record here");
ABSL_FLAG(double, fma_per_ns, 0,
          "the device's fp32 multiply-add rate for the arithmetic floor, in FMA per ns; 0: "
          "measured in the run (fma_probe: independent vec4 fma() chains in a compute shader)");

namespace rgfx {
namespace {

[[noreturn]] void Fail(const absl::Status& status) {
  std::fprintf(stderr, "rgfx-gpu-bench: %s\n", status.ToString().c_str());
  std::exit(1);
}

template <typename T>
T OrDie(absl::StatusOr<T> value) {
  if (!value.ok()) Fail(value.status());
  return std::move(*value);
}

struct Stats {
  double median_us, p10_us, p90_us;
};

Stats Summarise(std::vector<uint64_t> ns) {
  std::sort(ns.begin(), ns.end());
  auto at = [&](double q) { return ns[static_cast<size_t>(q * (ns.size() - 1) + 0.5)] / 1000.0; };
  return {at(0.5), at(0.1), at(0.9)};
}

// --rotate random images of `bytes` each, made once per size: a sweep visits
// every radius and variant of a size in turn, and making 4 images of
// 4096x4096 takes long enough for the GPU's clocks to fall meanwhile.
const std::vector<std::vector<std::byte>>& RandomInputs(size_t bytes) {
  static std::vector<std::vector<std::byte>> inputs;
  const size_t count = std::max(1, absl::GetFlag(FLAGS_rotate));
  if (inputs.size() == count && inputs[0].size() == bytes) return inputs;
  std::mt19937 rng(1);
  inputs.assign(count, std::vector<std::byte>(bytes));
  for (auto& image : inputs) {
    if (absl::GetFlag(FLAGS_identical_inputs) && &image != &inputs[0]) {
      image = inputs[0];
      continue;
    }
    for (auto& b : image) b = std::byte(rng() & 0xff);
  }
  return inputs;
}

// Runs `desc` warmup+runs times on rotated random inputs; returns the GPU
// nanoseconds of every step, keyed "pass/step", in execution order.
std::vector<std::pair<std::string, std::vector<uint64_t>>> TimeGraph(
    const graph::GraphDesc& desc, const graph::CompiledGraph& compiled, graph::Executor& executor) {
  const auto& in = desc.inputs[0];
  const std::vector<std::vector<std::byte>>& inputs =
      RandomInputs(in.extent.pixels() * graph::BytesPerPixel(in.format));
  std::vector<std::pair<std::string, std::vector<uint64_t>>> rows;
  const auto warm_until =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(absl::GetFlag(FLAGS_warmup_ms));
  int warmup_runs = 0;
  const bool print_runs = absl::GetFlag(FLAGS_print_runs);
  std::chrono::steady_clock::time_point first_timed;
  for (int run = 0, timed = 0; timed < absl::GetFlag(FLAGS_runs); ++run) {
    const auto started = std::chrono::steady_clock::now();
    const size_t which = run % inputs.size();
    const auto& image = inputs[which];
    auto fill = [&](int, std::span<std::byte> dst) {
      std::copy(image.begin(), image.end(), dst.begin());
      return absl::OkStatus();
    };
    auto consume = [](int, std::span<const std::byte>) { return absl::OkStatus(); };
    graph::RunResult result = OrDie(executor.Run(compiled, fill, consume, absl::Seconds(120),
                                                 absl::GetFlag(FLAGS_repeats)));
    if (warmup_runs < absl::GetFlag(FLAGS_warmup) || std::chrono::steady_clock::now() < warm_until) {
      ++warmup_runs;
      continue;
    }
    if (timed++ == 0) first_timed = started;
    if (print_runs) {
      std::printf("run %d image %zu at %.2f ms (fill %.2f ms, submit to fence %.2f ms):",
                  timed - 1, which,
                  std::chrono::duration<double, std::milli>(started - first_timed).count(),
                  result.upload_ns / 1e6, result.submit_ns / 1e6);
    }
    size_t row = 0;
    for (const auto& pass : result.passes) {
      for (const auto& step : pass.steps) {
        if (!step.gpu_ns) Fail(absl::UnavailableError("this device has no timestamps"));
        if (rows.size() <= row) rows.push_back({pass.pass + "/" + step.label, {}});
        rows[row++].second.push_back(*step.gpu_ns);
        if (print_runs) std::printf(" %s %.1f", step.label.c_str(), *step.gpu_ns / 1000.0);
      }
    }
    if (print_runs) std::printf("\n");
  }
  return rows;
}

std::vector<std::string> Split(const std::string& list) { return absl::StrSplit(list, ','); }

// "pipeline: <shader> spec [..]: <statistics>" for every pipeline created
// after the first `from` (pipelines.size() before the graph ran): which
// kernel build ran with which constants, and what that cost in registers
// and shared memory (occupancy is the usual suspect when a kernel stalls
// on memory).
void PrintPipelines(const gpu::PipelineCache& pipelines, size_t from) {
  const std::vector<gpu::PipelineReport> reports = pipelines.Reports();
  for (size_t i = from; i < reports.size(); ++i) {
    if (reports[i].statistics.empty()) continue;
    std::printf("pipeline: %s spec [%s]: %s\n", reports[i].shader.c_str(),
                absl::StrJoin(reports[i].spec, ",").c_str(),
                absl::StrJoin(reports[i].statistics, ", ").c_str());
  }
}

// --phase_clock: the clocked kernel of --variant over one random image,
// after --warmup_ms of the same graph (sustained clocks), --repeats times in
// the last submission (the records are the last repetition's). Its blur
// must equal gaussian_blur's with the same variant bit for bit: the clocks
// must change nothing.
void PhaseClock(const graph::PassRegistry& registry, const gpu::DeviceCaps& caps,
                graph::Executor& executor, const graph::CompileLimits& limits,
                graph::PixelFormat working) {
  using graph::AlphaMode;
  using graph::ColorSpace;
  using graph::PixelFormat;
  const std::string variant = absl::GetFlag(FLAGS_variant);
  if (variant != "fast" && variant != "large_radius") {
    Fail(absl::InvalidArgumentError(
        "--phase_clock clocks fast's line kernel or large_radius's recursive kernel: "
        "--variant fast or large_radius"));
  }
  const uint32_t w = absl::GetFlag(FLAGS_width), h = absl::GetFlag(FLAGS_height);
  const int64_t radius = absl::GetFlag(FLAGS_radius);
  // Every output in RGBA32F: the blur as the working format holds it, and
  // the records' bytes exactly from either working format.
  auto output = [](const char* name) {
    return graph::OutputDesc{name, PixelFormat::kRgba32F, ColorSpace::kLinear,
                             AlphaMode::kPremultiplied};
  };
  graph::GraphDesc clocked;
  clocked.working_format = working;
  clocked.inputs.push_back({"in", {w, h}, PixelFormat::kRgba8, ColorSpace::kLinear, AlphaMode::kPremultiplied});
  graph::GraphDesc plain = clocked;
  graph::PassDesc pass{"blur", "phase_clock", {"in"}, {"out", "records_h", "records_v"}, {}};
  pass.params.Set("radius", radius);
  pass.params.Set("variant", variant);
  clocked.passes.push_back(pass);
  clocked.outputs = {output("out"), output("records_h"), output("records_v")};
  graph::PassDesc blur{"blur", "gaussian_blur", {"in"}, {"out"}, {}};
  blur.params.Set("radius", radius);
  blur.params.Set("variant", variant);
  plain.passes.push_back(blur);
  plain.outputs = {output("out")};
  auto compiled = OrDie(graph::Compile(clocked, registry, caps, limits));
  auto compiled_plain = OrDie(graph::Compile(plain, registry, caps, limits));
  const std::vector<std::byte>& image = RandomInputs(uint64_t{w} * h * 4)[0];
  auto fill = [&](int, std::span<std::byte> dst) {
    std::copy(image.begin(), image.end(), dst.begin());
    return absl::OkStatus();
  };
  std::vector<std::vector<std::byte>> got(3);
  auto keep = [&](int i, std::span<const std::byte> src) {
    got.at(i).assign(src.begin(), src.end());
    return absl::OkStatus();
  };
  OrDie(executor.Run(*compiled_plain, fill, keep, absl::Seconds(120)));
  const std::vector<std::byte> want = got[0];
  const auto warm_until =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(absl::GetFlag(FLAGS_warmup_ms));
  do {
    OrDie(executor.Run(*compiled, fill, keep, absl::Seconds(120), absl::GetFlag(FLAGS_repeats)));
  } while (std::chrono::steady_clock::now() < warm_until);
  if (got[0] != want) {
    size_t differ = 0;
    double most = 0;
    for (size_t i = 0; i + 4 <= want.size(); i += 4) {
      float a, b;
      std::memcpy(&a, &got[0][i], 4);
      std::memcpy(&b, &want[i], 4);
      differ += a != b;
      most = std::max(most, double(std::abs(a - b)));
    }
    Fail(absl::InternalError(absl::StrCat(
        "--phase_clock: the clocked kernel's blur differs from gaussian_blur's in ", differ,
        " of ", want.size() / 4, " values, by up to ", most)));
  }
  const graph::CompiledPass* clock_pass = nullptr;
  for (const auto& p : compiled->passes) {
    if (p.type == "phase_clock") clock_pass = &p;
  }
  const auto& prepared = std::any_cast<const passes::BlurPrepared&>(clock_pass->plan.prepared);
  std::printf("phase clock: %ux%u %s, %s r = %lld on %s (%s)\n", w, h,
              std::string(graph::PixelFormatName(working)).c_str(), variant.c_str(),
              static_cast<long long>(radius), caps.name.c_str(),
              caps.sm_builtins ? "multiprocessors numbered" : "no multiprocessor numbers");
  std::ofstream csv;
  if (!absl::GetFlag(FLAGS_phase_clock_csv).empty()) {
    csv.open(absl::GetFlag(FLAGS_phase_clock_csv));
    csv << "step,workgroup,multiprocessor,start,realtime_start,realtime_end,staged,computed,"
           "outputs,end,swept,scanned\n";
  }
  for (int step = 0; step < 2; ++step) {
    const passes::StepKernel& k = prepared.steps[step];
    const std::vector<std::byte>& bytes = got[1 + step];
    std::vector<float> texels(bytes.size() / sizeof(float));
    std::memcpy(texels.data(), bytes.data(), texels.size() * sizeof(float));
    const std::vector<bench::PhaseRecord> records =
        OrDie(bench::DecodePhaseRecords(texels, uint64_t{k.groups_x} * k.groups_y));
    const std::string label = clock_pass->plan.steps[step].label;
    const bench::PhaseSummary summary = bench::SummarizePhases(records);
    // The recursive kernel marks its first sweep and its scan in every
    // workgroup (the smoke tests rely on this check).
    if (variant == "large_radius" && !summary.split) {
      Fail(absl::InternalError(absl::StrCat("--phase_clock: large_radius's ", label,
                                            " records lack the sweep and scan marks")));
    }
    std::printf("%s: %s\n  %s\n", label.c_str(), k.details.c_str(),
                bench::FormatPhaseSummary(summary).c_str());
    for (size_t i = 0; csv.is_open() && i < records.size(); ++i) {
      const bench::PhaseRecord& r = records[i];
      csv << absl::StrJoin({label, absl::StrCat(i), absl::StrCat(r.multiprocessor),
                            absl::StrCat(r.start), absl::StrCat(r.realtime_start),
                            absl::StrCat(r.realtime_end), absl::StrCat(r.staged),
                            absl::StrCat(r.computed), absl::StrCat(r.outputs), absl::StrCat(r.end),
                            absl::StrCat(r.swept), absl::StrCat(r.scanned)},
                           ",")
          << "\n";
    }
  }
}

// The blur sweep: one CSV row per point with the blur's H and V step
// medians, the copy floor (each step reads and writes the image once at the
// measured bandwidth) and the fp32 arithmetic floor (2·radius+1 multiply-adds
// per channel, 4 channels, per pixel and step, at --fma_per_ns).
void Sweep(const graph::PassRegistry& registry, const gpu::DeviceCaps& caps,
           graph::Executor& executor, const gpu::PipelineCache& pipelines, double bandwidth,
           double fma_per_ns) {
  FILE* csv = nullptr;
  if (!absl::GetFlag(FLAGS_csv).empty()) csv = std::fopen(absl::GetFlag(FLAGS_csv).c_str(), "w");
  auto emit = [&](const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    if (csv) {
      std::fprintf(csv, "%s\n", line.c_str());
      std::fflush(csv);  // a sweep cut short keeps its rows
    }
  };
  // Columns after stated_psnr_db (readers go by name): the spread of each
  // axis over the point's runs, and what the plan chose per step, so that a
  // point can be compared with a single run of the same configuration.
  emit("device,vendor_id,device_id,working,width,height,radius,variant,resolved,h_us,v_us,"
       "total_us,copy_floor_us,x_copy_floor,fp32_floor_us,x_fp32_floor,stated_psnr_db,"
       "h_p10_us,h_p90_us,v_p10_us,v_p90_us,plan");
  graph::CompileLimits limits;
  limits.max_pixels = 1ull << 30;
  // The shapes of fast's streamed kernel to time (none given: the plan's).
  std::vector<std::pair<std::string, std::optional<passes::FastStreamShape>>> shapes;
  const std::vector<std::string> shape_names =
      absl::StrSplit(absl::GetFlag(FLAGS_sweep_stream_shapes), ',', absl::SkipEmpty());
  for (const std::string& name : shape_names) {
    if (name == "plan") {
      shapes.emplace_back(name, std::nullopt);
    } else {
      shapes.emplace_back(name, OrDie(passes::ParseFastStreamShape(name)));
    }
  }
  if (shapes.empty()) shapes.emplace_back("plan", std::nullopt);
  const int base_runs = absl::GetFlag(FLAGS_sweep_runs);
  const int start_warmup_ms = std::max(absl::GetFlag(FLAGS_warmup_ms), absl::GetFlag(FLAGS_sweep_warmup_ms));
  const int point_warmup_ms = absl::GetFlag(FLAGS_sweep_warmup_ms);
  bool first_point = true;
  size_t last_input_bytes = 0;
  for (const std::string& format : Split(absl::GetFlag(FLAGS_sweep_formats))) {
    const auto working = graph::ParsePixelFormat(format);
    if (!working || !graph::IsWorkingFormat(*working)) Fail(absl::InvalidArgumentError(format));
    const double bpp = graph::BytesPerPixel(*working);
    for (const std::string& size : Split(absl::GetFlag(FLAGS_sweep_sizes))) {
      std::vector<std::string> wh = absl::StrSplit(size, 'x');
      uint32_t w = 0, h = 0;
      if (wh.size() != 2 || !absl::SimpleAtoi(wh[0], &w) || !absl::SimpleAtoi(wh[1], &h)) {
        Fail(absl::InvalidArgumentError("--sweep_sizes: " + size));
      }
      for (const std::string& r : Split(absl::GetFlag(FLAGS_sweep_radii))) {
        int radius = 0;
        if (!absl::SimpleAtoi(r, &radius)) Fail(absl::InvalidArgumentError("--sweep_radii: " + r));
        for (const auto& [shape_name, shape] : shapes)
        for (const std::string& listed :
             Split(absl::GetFlag(FLAGS_sweep_variants))) {
          passes::SetFastStreamShapeOverride(shape);
          // "large_radius:boxes": large_radius held to its box stack.
          const bool boxes = listed == "large_radius:boxes";
          passes::SetLargeRadiusBoxesOnly(boxes || absl::GetFlag(FLAGS_large_radius_boxes));
          const std::string variant = boxes ? "large_radius" : listed;
          const std::string label = shape ? listed + "@" + shape_name : listed;
          graph::GraphDesc desc;
          desc.working_format = *working;
          desc.inputs.push_back({"image", {w, h}, graph::PixelFormat::kRgba8});
          graph::PassDesc blur{"blur", "gaussian_blur", {"image"}, {"soft"}, {}};
          blur.params.Set("radius", int64_t{radius});
          blur.params.Set("variant", variant);
          blur.params.Set("min_psnr_db", absl::GetFlag(FLAGS_min_psnr_db));
          desc.passes.push_back(blur);
          desc.outputs.push_back({"soft", graph::PixelFormat::kRgba8});
          auto compiled = graph::Compile(desc, registry, caps, limits);
          const size_t pipelines_before = pipelines.size();
          const std::string head = absl::StrFormat("\"%s\",%u,%u,%s,%u,%u,%d,%s", caps.name,
                                                   caps.vendor_id, caps.device_id, format, w, h,
                                                   radius, label);
          if (!compiled.ok()) {
            emit(head + ",refused,,,,,,,,,,,,,");
            continue;
          }
          std::string resolved, psnr, plan;
          for (const auto& pass : (*compiled)->passes) {
            if (pass.name != "blur") continue;
            resolved = pass.plan.variant;
            plan = absl::StrJoin(passes::BlurStepDetails(pass.plan), " | ");
            plan.erase(std::remove(plan.begin(), plan.end(), '"'), plan.end());
            const passes::BlurAccuracy* a = passes::FindBlurAccuracy(pass.plan);
            if (a && !a->exact && a->noise_psnr_db) psnr = absl::StrFormat("%.1f", *a->noise_psnr_db);
          }
          // A new size's random inputs are made before anything is timed
          // (4 images of 8192² take seconds of CPU, while the GPU idles
          // and its clocks fall); its first point then warms up as long as
          // the sweep's first point does.
          const size_t input_bytes = size_t{w} * h * graph::BytesPerPixel(graph::PixelFormat::kRgba8);
          if (input_bytes != last_input_bytes) {
            RandomInputs(input_bytes);
            last_input_bytes = input_bytes;
            first_point = true;
          }
          // Few runs for slow points: one probe run decides, after the
          // warm-up a new size needs (without it the probe read the idle
          // clocks: 4096² exact 29 ms against ~5, and sent the point down
          // the slow path, 2-4x slow in the size sweeps before 2026-11-27).
          absl::SetFlag(&FLAGS_runs, 1);
          absl::SetFlag(&FLAGS_warmup, 1);
          absl::SetFlag(&FLAGS_warmup_ms,
                        caps.type == "cpu" || !first_point ? 0 : start_warmup_ms);
          absl::SetFlag(&FLAGS_repeats, 1);
          double probe = 0;
          for (const auto& [name, ns] : TimeGraph(desc, **compiled, executor)) probe += ns[0];
          absl::SetFlag(&FLAGS_runs, probe > 20e6 ? 2 : base_runs);
          absl::SetFlag(&FLAGS_warmup, probe > 20e6 ? 0 : 1);
          // Sustained clocks: submissions of ~100 ms of GPU work (20
          // repetitions at most), after warm-up submissions for
          // --sweep_warmup_ms: between points the GPU idles while the host
          // compiles, between runs while it copies the next input in, and
          // an idle H100 falls to 345 MHz. Without this the first minute of
          // a sweep measured 3-5x slow (2026-11-23/24); 3 repetitions of
          // slow points left large images' runs short beside their copies.
          const int repeats = static_cast<int>(std::clamp(100e6 / std::max(probe, 1.0), 1.0, 20.0));
          absl::SetFlag(&FLAGS_repeats, caps.type == "cpu" ? 1 : repeats);
          // The first point of a size warms up for the whole start warm-up
          // again, now in submissions of its repetitions: the probe's
          // warm-up submits one repetition at a time, with a host copy
          // between, so the GPU idles most of it and its clocks stay low
          // (H200, 2026-11-29: a sweep's first point, 1080p r = 64 fast,
          // read 51.5 µs against 37.4, 4K 245 against 125).
          absl::SetFlag(&FLAGS_warmup_ms,
                        caps.type == "cpu" ? 0 : first_point ? start_warmup_ms : point_warmup_ms);
          std::printf("point %s %ux%u r=%d %s: probe %.2f ms, %d runs of %d repetitions\n",
                      format.c_str(), w, h, radius, label.c_str(), probe / 1e6,
                      absl::GetFlag(FLAGS_runs), absl::GetFlag(FLAGS_repeats));
          first_point = false;
          // H and V where the plan has those steps; the total is every step
          // of the blur (`fast` at r <= 8 does both axes in one dispatch,
          // large_radius's two-dispatch path has several per axis).
          Stats hv[2] = {};
          double total = 0;
          for (const auto& [name, ns] : TimeGraph(desc, **compiled, executor)) {
            if (name.rfind("blur/", 0) != 0) continue;
            const Stats stats = Summarise(ns);
            total += stats.median_us;
            if (name == "blur/horizontal") hv[0] = stats;
            if (name == "blur/vertical") hv[1] = stats;
          }
          const double copy_floor = 2 * (2.0 * w * h * bpp) / bandwidth / 1000.0;
          const double fp32_floor =
              2.0 * w * h * 4 * (2 * radius + 1) / fma_per_ns / 1000.0;
          emit(head + absl::StrFormat(",%s,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%s,%.2f,%.2f,%.2f,%.2f,\"%s\"",
                                      resolved, hv[0].median_us, hv[1].median_us, total,
                                      copy_floor, total / copy_floor, fp32_floor,
                                      total / fp32_floor, psnr, hv[0].p10_us, hv[0].p90_us,
                                      hv[1].p10_us, hv[1].p90_us, plan));
          PrintPipelines(pipelines, pipelines_before);  // stdout only: the CSV stays one row a point
        }
      }
    }
  }
  if (csv) std::fclose(csv);
}

int Main() {
  passes::SetLargeRadiusBoxesOnly(absl::GetFlag(FLAGS_large_radius_boxes));
  if (const int strip = absl::GetFlag(FLAGS_large_radius_strip_temporary); strip >= 0) {
    passes::SetLargeRadiusStripTemporary(static_cast<uint32_t>(strip));
  }
  if (const int most = absl::GetFlag(FLAGS_large_radius_max_chunk); most != 0) {
    if (most < int{passes::kRecursiveMinChunkCap} || most > int{passes::kRecursiveMaxChunkCap}) {
      Fail(absl::InvalidArgumentError(absl::StrCat("--large_radius_max_chunk: ",
                                                   passes::kRecursiveMinChunkCap, " to ",
                                                   passes::kRecursiveMaxChunkCap, ", or 0")));
    }
    passes::SetLargeRadiusMaxChunk(static_cast<uint32_t>(most));
  }
  if (const int min_subgroups = absl::GetFlag(FLAGS_stream_min_subgroups); min_subgroups > 0) {
    passes::SetFastStreamMinSubgroups(static_cast<uint32_t>(min_subgroups));
  }
  if (absl::GetFlag(FLAGS_fft_from_radius) >= 0 || absl::GetFlag(FLAGS_fft_per_invocation) != 0 ||
      absl::GetFlag(FLAGS_fft_pairs) >= 0 || absl::GetFlag(FLAGS_fft_size) != 0 ||
      absl::GetFlag(FLAGS_fft_columns) != 0 || absl::GetFlag(FLAGS_fft_strip_temporary) >= 0) {
    passes::FftPolicy policy = passes::FastFftPolicy();
    if (const int from = absl::GetFlag(FLAGS_fft_from_radius); from >= 0) policy.from_radius = from;
    if (const int per = absl::GetFlag(FLAGS_fft_per_invocation); per != 0) {
      if (per != 8 && per != 16) Fail(absl::InvalidArgumentError("--fft_per_invocation: 8 or 16"));
      policy.per_invocation = static_cast<uint32_t>(per);
    }
    if (const int p = absl::GetFlag(FLAGS_fft_pairs); p >= 0) policy.pairs_always = p;
    if (const int size = absl::GetFlag(FLAGS_fft_size); size != 0) {
      if (size < 256 || (size & (size - 1)) != 0) {
        Fail(absl::InvalidArgumentError("--fft_size: a power of two from 256"));
      }
      policy.size = static_cast<uint32_t>(size);
    }
    if (const int columns = absl::GetFlag(FLAGS_fft_columns); columns != 0) {
      if (columns != 1 && columns != 2 && columns != 4) {
        Fail(absl::InvalidArgumentError("--fft_columns: 1, 2 or 4"));
      }
      policy.columns = static_cast<uint32_t>(columns);
    }
    if (const int strip = absl::GetFlag(FLAGS_fft_strip_temporary); strip >= 0) {
      policy.strip_temporary = strip != 0;
    }
    passes::SetFastFftPolicy(policy);
  }
  if (absl::GetFlag(FLAGS_split_from_radius) != 0 || absl::GetFlag(FLAGS_split_part_radius) != 0) {
    passes::FastSplitPolicy policy = passes::kFastSplitPolicy;
    if (const int from = absl::GetFlag(FLAGS_split_from_radius); from != 0) {
      policy.from_radius = from;
    }
    if (const int part = absl::GetFlag(FLAGS_split_part_radius); part != 0) {
      if (part < 1 || part > passes::kFastStreamMaxRadiusF16) {
        Fail(absl::InvalidArgumentError(absl::StrCat("--split_part_radius: 1 to ",
                                                     passes::kFastStreamMaxRadiusF16, ", or 0")));
      }
      policy.part_max_radius = part;
    }
    passes::SetFastSplitTaps(policy);
  }
  if (absl::GetFlag(FLAGS_line_row_group) != 0 || absl::GetFlag(FLAGS_line_column_group) != 0) {
    const auto group = [](int g, const char* flag) -> std::optional<uint32_t> {
      if (g == 0) return std::nullopt;
      if (g < 32 || g > 1024 || g % 32 != 0) {
        Fail(absl::InvalidArgumentError(
            absl::StrCat("--", flag, ": a multiple of 32 from 32 to 1024, or 0")));
      }
      return static_cast<uint32_t>(g);
    };
    passes::SetFastLineGroups(group(absl::GetFlag(FLAGS_line_row_group), "line_row_group"),
                              group(absl::GetFlag(FLAGS_line_column_group), "line_column_group"));
  }
  if (const int from = absl::GetFlag(FLAGS_strided_rows_from_radius); from != 0) {
    if (from < 0) Fail(absl::InvalidArgumentError("--strided_rows_from_radius: > 0, or 0"));
    passes::SetFastStridedRowsFrom(static_cast<uint32_t>(from));
  }
  if (const int blocks = absl::GetFlag(FLAGS_tiled_temp_max_blocks); blocks >= 0) {
    passes::SetFastTiledTempMaxBlocks(static_cast<uint32_t>(blocks));
  }
  if (!absl::GetFlag(FLAGS_stream_shape).empty()) {
    passes::SetFastStreamShapeOverride(
        OrDie(passes::ParseFastStreamShape(absl::GetFlag(FLAGS_stream_shape))));
  }
  auto instance = OrDie(gpu::Instance::Create({.validation = absl::GetFlag(FLAGS_validation)}));
  auto device = OrDie(gpu::Device::Create(
      *instance, {absl::GetFlag(FLAGS_device), absl::GetFlag(FLAGS_matrix_units),
                  absl::GetFlag(FLAGS_pipeline_statistics), absl::GetFlag(FLAGS_phase_clock)}));
  auto pipelines = OrDie(gpu::PipelineCache::Create(*device));
  graph::PassRegistry registry;
  passes::RegisterBuiltinPasses(registry);
  registry.Register(bench::MakeFmaProbePass());
  registry.Register(bench::MakePhaseClockPass());
  auto executor = OrDie(graph::Executor::Create(*device, *pipelines));
  const auto working = graph::ParsePixelFormat(absl::GetFlag(FLAGS_working_format));
  if (!working || !graph::IsWorkingFormat(*working)) {
    Fail(absl::InvalidArgumentError("--working_format must be rgba16f or rgba32f"));
  }
  const gpu::DeviceCaps& caps = device->caps();
  std::printf("device: %s\n", device->Describe().c_str());
  graph::CompileLimits limits;
  limits.max_pixels = 1ull << 30;

  if (absl::GetFlag(FLAGS_phase_clock)) {
    PhaseClock(registry, caps, *executor, limits, *working);
    return 0;
  }

  // The floor: copy an RGBA32F image (16-byte loads and stores, the widest
  // per-invocation access) of up to 256 MiB, or the largest the device can
  // bind; bytes read plus written over its median time. A device property,
  // measured before and after the graph so a clock change shows.
  const uint64_t bpp = graph::BytesPerPixel(*working);
  const uint64_t copy_bytes = std::min<uint64_t>(256ull << 20, caps.max_storage_buffer_range);
  const uint32_t copy_width = 4096;
  const uint32_t copy_height = static_cast<uint32_t>(copy_bytes / 16 / copy_width);
  // One pass of `type` over a w×h image (RGBA8 in and out, RGBA32F working),
  // compiled once; Median() times it and returns the pass's median µs.
  struct Probe {
    graph::GraphDesc desc;
    std::shared_ptr<const graph::CompiledGraph> compiled;
  };
  auto make_probe = [&](const std::string& type, uint32_t pw, uint32_t ph) {
    Probe p;
    p.desc.working_format = graph::PixelFormat::kRgba32F;
    p.desc.inputs.push_back({"in", {pw, ph}, graph::PixelFormat::kRgba8});
    p.desc.passes.push_back({"probe", type, {"in"}, {"out"}, {}});
    p.desc.outputs.push_back({"out", graph::PixelFormat::kRgba8});
    p.compiled = OrDie(graph::Compile(p.desc, registry, caps, limits));
    return p;
  };
  auto median_us = [&](const Probe& p) {
    for (const auto& [name, ns] : TimeGraph(p.desc, *p.compiled, *executor)) {
      if (name.rfind("probe/", 0) == 0) return Summarise(ns).median_us;
    }
    Fail(absl::InternalError("probe pass not timed"));
  };
  const Probe copy = make_probe("copy", copy_width, copy_height);
  auto measure_bandwidth = [&] {
    return 2.0 * copy_width * copy_height * 16 / (median_us(copy) * 1000.0);
  };
  const double bandwidth_before = measure_bandwidth();  // bytes per ns = GB/s

  // The arithmetic floor: fma_probe's multiply-adds over its median time,
  // unless --fma_per_ns gives the rate. A CPU device gets a small image.
  const uint32_t probe_w = caps.type == "cpu" ? 64 : 2048, probe_h = caps.type == "cpu" ? 64 : 1024;
  const Probe fma = make_probe("fma_probe", probe_w, probe_h);
  auto measure_fma_rate = [&] {
    const int repeats = absl::GetFlag(FLAGS_repeats);
    absl::SetFlag(&FLAGS_repeats, caps.type == "cpu" ? 1 : 20);  // sustained clocks
    const double rate =
        double(bench::FmaProbeFmas(uint64_t(probe_w) * probe_h)) / (median_us(fma) * 1000.0);
    absl::SetFlag(&FLAGS_repeats, repeats);
    return rate;
  };
  const double fma_given = absl::GetFlag(FLAGS_fma_per_ns);
  const double fma_per_ns = fma_given > 0 ? fma_given : measure_fma_rate();
  std::printf("fp32 multiply-add rate: %.1f G FMA/s (%s)\n", fma_per_ns,
              fma_given > 0 ? "--fma_per_ns" : "measured: fma_probe, 8 vec4 fma() chains per invocation");
  if (absl::GetFlag(FLAGS_sweep)) {
    // The floor after a warm-up copy, 20 repetitions per submission: the
    // first may run at idle clocks.
    // (A CPU device has no clocks to keep up: once.)
    const int sustained = caps.type == "cpu" ? 1 : 20;
    absl::SetFlag(&FLAGS_repeats, sustained);
    const double bandwidth = std::max(bandwidth_before, measure_bandwidth());
    std::printf("copy bandwidth: %.1f GB/s\n", bandwidth);
    Sweep(registry, caps, *executor, *pipelines, bandwidth, fma_per_ns);
    return 0;
  }

  const uint32_t w = absl::GetFlag(FLAGS_width), h = absl::GetFlag(FLAGS_height);
  graph::GraphDesc desc;
  desc.working_format = *working;
  desc.inputs.push_back({"image", {w, h}, graph::PixelFormat::kRgba8});
  graph::PassDesc blur{"blur", "gaussian_blur", {"image"}, {"soft"}, {}};
  blur.params.Set("radius", int64_t{absl::GetFlag(FLAGS_radius)});
  if (absl::GetFlag(FLAGS_sigma) > 0) blur.params.Set("sigma", absl::GetFlag(FLAGS_sigma));
  blur.params.Set("variant", absl::GetFlag(FLAGS_variant));
  blur.params.Set("min_psnr_db", absl::GetFlag(FLAGS_min_psnr_db));
  desc.passes.push_back(blur);
  desc.outputs.push_back({"soft", graph::PixelFormat::kRgba8});
  auto compiled = OrDie(graph::Compile(desc, registry, caps, limits));

  std::printf("graph: %ux%u RGBA8 -> gaussian_blur radius %d sigma %g variant %s -> RGBA8, "
              "working %s; %d runs after >= %d warm-up runs and >= %d ms, %d inputs rotated\n",
              w, h, absl::GetFlag(FLAGS_radius),
              absl::GetFlag(FLAGS_sigma) > 0 ? absl::GetFlag(FLAGS_sigma)
                                             : absl::GetFlag(FLAGS_radius) / 2.0,
              absl::GetFlag(FLAGS_variant).c_str(), absl::GetFlag(FLAGS_working_format).c_str(),
              absl::GetFlag(FLAGS_runs), absl::GetFlag(FLAGS_warmup), absl::GetFlag(FLAGS_warmup_ms),
              absl::GetFlag(FLAGS_rotate));
  // What the blur's plan chose per step (e.g. large_radius: fused or two
  // dispatches) and the accuracy it states.
  for (const graph::CompiledPass& pass : compiled->passes) {
    for (const std::string& line : passes::BlurStepDetails(pass.plan)) {
      std::printf("plan: %s\n", line.c_str());
    }
    if (const passes::BlurAccuracy* a = passes::FindBlurAccuracy(pass.plan); a && !a->exact) {
      std::printf("plan: %s\n", a->summary.c_str());
    }
  }
  const size_t pipelines_before = pipelines->size();
  const auto rows = TimeGraph(desc, *compiled, *executor);
  PrintPipelines(*pipelines, pipelines_before);
  const double bandwidth_after = measure_bandwidth();
  const double bandwidth = std::max(bandwidth_before, bandwidth_after);
  std::printf("copy bandwidth (compute shader, %.0f MiB RGBA32F, read+write): %.1f GB/s before, "
              "%.1f GB/s after the graph; floor uses %.1f GB/s\n",
              copy_width * copy_height * 16 / 1048576.0, bandwidth_before, bandwidth_after,
              bandwidth);
  std::printf("%-22s %12s %12s %12s %12s %10s\n", "pass/step", "median us", "p10 us", "p90 us",
              "floor us", "x floor");
  double total = 0;
  for (const auto& [name, ns] : rows) {
    const Stats s = Summarise(ns);
    // Each step reads its input once and writes its output once; the import
    // reads RGBA8 and the export writes RGBA8.
    double bytes = 2.0 * w * h * bpp;
    if (name.rfind("import:", 0) == 0 || name.rfind("export:", 0) == 0) {
      bytes = double(w) * h * (bpp + 4);
    }
    const double floor_us = bytes / bandwidth / 1000.0;
    total += s.median_us;
    std::printf("%-22s %12.1f %12.1f %12.1f %12.1f %10.1f\n", name.c_str(), s.median_us, s.p10_us,
                s.p90_us, floor_us, s.median_us / floor_us);
  }
  std::printf("%-22s %12.1f\n", "sum of medians", total);
  // The blur's arithmetic floor: 2·radius+1 multiply-adds per channel and
  // axis at the rate measured above.
  double blur_us = 0;
  for (const auto& [name, ns] : rows) {
    if (name.rfind("blur/", 0) == 0) blur_us += Summarise(ns).median_us;
  }
  const double fp32_floor_us =
      2.0 * w * h * 4 * (2 * absl::GetFlag(FLAGS_radius) + 1) / fma_per_ns / 1000.0;
  std::printf("blur steps %.1f us; fp32 arithmetic floor (both axes, every tap) %.1f us: %.2fx\n",
              blur_us, fp32_floor_us, blur_us / fp32_floor_us);
  return 0;
}

}  // namespace
}  // namespace rgfx

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return rgfx::Main();
}
