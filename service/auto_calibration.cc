#include "service/auto_calibration.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "graph/compile.h"
#include "passes/blur_variants/auto_table.h"
#include "passes/gaussian_blur.h"
#include "service/log.h"

namespace rgfx::service {
namespace {

std::string LowerFormatName(graph::PixelFormat format) {
  std::string name(graph::PixelFormatName(format));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

// FNV-1a of the running binary: a new build may time its kernels
// differently, so its measurements are its own. Read once (tens of MB).
std::string BinaryFingerprint() {
  static const std::string fingerprint = [] {
    std::ifstream in("/proc/self/exe", std::ios::binary);
    if (!in) return std::string("unknown-build");
    uint64_t hash = 1469598103934665603ull;
    std::vector<char> buffer(1 << 20);
    while (in.read(buffer.data(), buffer.size()) || in.gcount() > 0) {
      for (std::streamsize i = 0; i < in.gcount(); ++i) {
        hash = (hash ^ static_cast<unsigned char>(buffer[i])) * 1099511628211ull;
      }
    }
    return absl::StrFormat("%016x", hash);
  }();
  return fingerprint;
}

// The blur of one point: RGBA8 in and out, as a client sends.
graph::GraphDesc BlurGraph(graph::PixelFormat working, graph::Extent size, int radius,
                           const std::string& variant, double min_psnr_db) {
  graph::GraphDesc desc;
  desc.working_format = working;
  desc.inputs.push_back({"image", size, graph::PixelFormat::kRgba8});
  graph::PassDesc blur{"blur", "gaussian_blur", {"image"}, {"soft"}, {}};
  blur.params.Set("radius", int64_t{radius});
  blur.params.Set("variant", variant);
  blur.params.Set("min_psnr_db", min_psnr_db);
  desc.passes.push_back(std::move(blur));
  desc.outputs.push_back({"soft", graph::PixelFormat::kRgba8});
  return desc;
}

// Whether the compiled blur's plan is approximate (nullopt: not a blur).
std::optional<bool> PlanIsApproximate(const graph::CompiledGraph& compiled) {
  for (const auto& pass : compiled.passes) {
    if (pass.name != "blur") continue;
    const passes::BlurAccuracy* accuracy = passes::FindBlurAccuracy(pass.plan);
    return accuracy != nullptr && !accuracy->exact;
  }
  return std::nullopt;
}

class PointTimer {
 public:
  PointTimer(Engine& engine, const AutoCalibrationOptions& options)
      : engine_(engine), options_(options), on_gpu_(engine.caps().type != "cpu") {}

  // One submission after an untimed one (so that the GPU has just been
  // busy, not idle, when the timed one starts): the blur's GPU time in µs.
  absl::StatusOr<double> Probe(const graph::CompiledGraph& compiled, graph::Extent size) {
    if (input_.size() != size.pixels() * 4) {
      input_.resize(size.pixels() * 4);
      std::mt19937 rng(1);
      for (std::byte& b : input_) b = std::byte(rng() & 0xff);
    }
    if (absl::StatusOr<double> run = Submit(compiled, 1); !run.ok()) return run.status();
    if (on_gpu_ && !warmed_) {
      // Clocks up before the first point is timed.
      const absl::Time until = absl::Now() + options_.warmup;
      while (absl::Now() < until) {
        if (absl::StatusOr<double> run = Submit(compiled, 1); !run.ok()) return run.status();
      }
      warmed_ = true;
    }
    return Submit(compiled, 1);
  }

  // Median over options.runs submissions of the blur's GPU time (each
  // submission's own median over its repetitions, as many as fill
  // options.submission by `probe`), in µs.
  absl::StatusOr<double> Time(const graph::CompiledGraph& compiled, double probe) {
    const double target_us = absl::ToDoubleMicroseconds(options_.submission);
    const int repeats =
        static_cast<int>(std::clamp(target_us / std::max(probe, 1e-3), 1.0, 20.0));
    // One untimed submission at the chosen length, then the timed ones.
    if (absl::StatusOr<double> run = Submit(compiled, repeats); !run.ok()) return run.status();
    std::vector<double> times;
    for (int i = 0; i < std::max(1, options_.runs); ++i) {
      absl::StatusOr<double> run = Submit(compiled, repeats);
      if (!run.ok()) return run.status();
      times.push_back(*run);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }

 private:
  absl::StatusOr<double> Submit(const graph::CompiledGraph& compiled, int repeats) {
    const auto fill = [this](int, std::span<std::byte> dst) {
      std::copy(input_.begin(), input_.end(), dst.begin());
      return absl::OkStatus();
    };
    const auto consume = [](int, std::span<const std::byte>) { return absl::OkStatus(); };
    absl::StatusOr<graph::RunResult> result = engine_.Run(0, compiled, fill, consume, repeats);
    if (!result.ok()) return result.status();
    double ns = 0;
    for (const graph::PassTiming& pass : result->passes) {
      if (pass.pass != "blur") continue;
      for (const auto& step : pass.steps) {
        if (!step.gpu_ns) return absl::UnavailableError("the device gave no timestamps");
        ns += static_cast<double>(*step.gpu_ns);
      }
    }
    return ns / 1000.0;
  }

  Engine& engine_;
  const AutoCalibrationOptions& options_;
  const bool on_gpu_;
  bool warmed_ = false;
  std::vector<std::byte> input_;
};

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Written beside the target and renamed over it: a server stopped midway
// leaves the old file whole.
absl::Status WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(text.data(), static_cast<std::streamsize>(text.size())) ||
        !out.flush()) {
      return absl::UnavailableError(absl::StrCat("cannot write ", temporary));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    return absl::UnavailableError(absl::StrCat("cannot rename ", temporary, " to ", path));
  }
  return absl::OkStatus();
}

void Install(const gpu::DeviceCaps& caps, const std::vector<CalibratedRow>& rows) {
  std::vector<passes::AutoTableRow> table;
  table.reserve(rows.size());
  for (const CalibratedRow& row : rows) {
    table.push_back({caps.vendor_id, caps.device_id, caps.name.c_str(), row.working.c_str(),
                     row.width, row.height, row.radius, row.variant.c_str(), row.total_us,
                     row.approximate});
  }
  passes::SetMeasuredAutoRows(caps.vendor_id, caps.device_id, table);
}

}  // namespace

absl::Status ParseCalibrationGrid(absl::string_view formats, absl::string_view sizes,
                                  absl::string_view radii, AutoCalibrationOptions& options) {
  const auto bad = [](absl::string_view flag, absl::string_view item, absl::string_view want) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": '", item, "' is not ", want));
  };
  std::vector<graph::PixelFormat> parsed_formats;
  for (absl::string_view item : absl::StrSplit(formats, ',')) {
    std::string upper(item);
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::optional<graph::PixelFormat> format = graph::ParsePixelFormat(upper);
    if (!format || !graph::IsWorkingFormat(*format)) {
      return bad("auto_calibration_formats", item, "rgba16f or rgba32f");
    }
    parsed_formats.push_back(*format);
  }
  std::vector<graph::Extent> parsed_sizes;
  for (absl::string_view item : absl::StrSplit(sizes, ',')) {
    const std::vector<absl::string_view> wh = absl::StrSplit(item, 'x');
    graph::Extent e;
    if (wh.size() != 2 || !absl::SimpleAtoi(wh[0], &e.width) ||
        !absl::SimpleAtoi(wh[1], &e.height) || e.width < 1 || e.height < 1 ||
        e.width > 16384 || e.height > 16384) {
      return bad("auto_calibration_sizes", item, "WxH with each side 1 to 16384");
    }
    parsed_sizes.push_back(e);
  }
  std::vector<int> parsed_radii;
  for (absl::string_view item : absl::StrSplit(radii, ',')) {
    int r = 0;
    if (!absl::SimpleAtoi(item, &r) || r < 1 || r > passes::kMaxBlurRadius) {
      return bad("auto_calibration_radii", item,
                 absl::StrCat("a radius from 1 to ", passes::kMaxBlurRadius));
    }
    parsed_radii.push_back(r);
  }
  options.formats = std::move(parsed_formats);
  options.sizes = std::move(parsed_sizes);
  options.radii = std::move(parsed_radii);
  return absl::OkStatus();
}

bool NeedsAutoCalibration(AutoCalibrationMode mode, const gpu::DeviceCaps& caps) {
  switch (mode) {
    case AutoCalibrationMode::kOff:
      return false;
    case AutoCalibrationMode::kAlways:
      return true;
    case AutoCalibrationMode::kMissing:
      return caps.type != "cpu" &&
             passes::CountDeviceRows(passes::BuiltinAutoTable(), caps.vendor_id,
                                     caps.device_id) == 0;
  }
  return false;
}

std::string CalibrationKey(const gpu::DeviceCaps& caps, const AutoCalibrationOptions& options) {
  std::vector<std::string> formats, sizes;
  for (graph::PixelFormat f : options.formats) formats.push_back(LowerFormatName(f));
  for (const graph::Extent& e : options.sizes) sizes.push_back(absl::StrCat(e.width, "x", e.height));
  std::string key = absl::StrFormat(
      "%s | %04x:%04x | %s | Vulkan %s | build %s | %s | %s | r %s | %s | allowed %.1f dB | "
      "runs %d | %.1f ms | full within %.1fx",
      caps.name, caps.vendor_id, caps.device_id, caps.driver, caps.api_version,
      BinaryFingerprint(), absl::StrJoin(formats, ","), absl::StrJoin(sizes, ","),
      absl::StrJoin(options.radii, ","), absl::StrJoin(options.variants, ","),
      options.allowed_psnr_db, options.runs, absl::ToDoubleMilliseconds(options.submission),
      options.full_timing_within);
  std::replace(key.begin(), key.end(), '\n', ' ');
  return key;
}

std::vector<bool> TimedInFull(const std::vector<bool>& approximate,
                              const std::vector<double>& probe_us, double within) {
  // The fastest probe of each accuracy: a request's winner is the fastest
  // exact row or an approximate one, so each is timed in full.
  double fastest[2] = {std::numeric_limits<double>::infinity(),
                       std::numeric_limits<double>::infinity()};
  for (size_t i = 0; i < probe_us.size(); ++i) {
    fastest[approximate[i]] = std::min(fastest[approximate[i]], probe_us[i]);
  }
  std::vector<bool> in_full(probe_us.size());
  for (size_t i = 0; i < probe_us.size(); ++i) {
    in_full[i] = probe_us[i] <= within * fastest[approximate[i]];
  }
  return in_full;
}

namespace {

// One variant at one point, as an exact request plans it or as one
// allowing approximation.
struct Candidate {
  std::string variant;
  bool approximate;
  std::shared_ptr<const graph::CompiledGraph> compiled;
};

struct GridPoint {
  graph::PixelFormat working;
  graph::Extent size;
  int radius;
  std::vector<Candidate> candidates;
};

// Every point of the grid with every variant that plans it: each as an
// exact request plans it, and again as one allowing approximation where
// that plans another kernel.
std::vector<GridPoint> PlanGrid(Engine& engine, const AutoCalibrationOptions& options) {
  std::vector<GridPoint> points;
  for (graph::PixelFormat working : options.formats) {
    for (const graph::Extent& size : options.sizes) {
      for (int radius : options.radii) {
        GridPoint point{working, size, radius, {}};
        for (const std::string& variant : options.variants) {
          std::optional<bool> planned;
          for (double min_psnr_db : {0.0, options.allowed_psnr_db}) {
            absl::StatusOr<std::shared_ptr<const graph::CompiledGraph>> compiled =
                graph::Compile(BlurGraph(working, size, radius, variant, min_psnr_db),
                               engine.registry(), engine.caps(), engine.options().limits);
            if (!compiled.ok()) continue;  // the variant cannot plan this point
            const std::optional<bool> approximate = PlanIsApproximate(**compiled);
            if (!approximate || approximate == planned) continue;
            planned = approximate;
            point.candidates.push_back({variant, *approximate, *std::move(compiled)});
          }
        }
        points.push_back(std::move(point));
      }
    }
  }
  return points;
}

absl::Status TimingFailed(const GridPoint& point, const Candidate& candidate,
                          const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat("timing ", candidate.variant, " at ", point.size.width, "x",
                                   point.size.height, " r=", point.radius, " ",
                                   LowerFormatName(point.working), ": ", status.message()));
}

// Runs every candidate once, untimed, on all of the engine's workers at
// once. A cold start spends most of its time creating pipelines (two
// thirds of a minute on an H200 without driver caches); the pipeline cache
// creates them outside its lock, so the workers create them in parallel.
// Best effort: the workers' images at once may not fit a small GPU where
// one worker's do, so a failure stops this stage (logged) and the timing,
// which runs every candidate again on one worker, creates the rest and
// reports what truly fails.
void CreatePipelinesInParallel(Engine& engine, const std::vector<GridPoint>& points) {
  std::vector<std::pair<const GridPoint*, const Candidate*>> all;
  for (const GridPoint& point : points) {
    for (const Candidate& candidate : point.candidates) all.push_back({&point, &candidate});
  }
  std::atomic<size_t> next{0};
  absl::Mutex mu;
  absl::Status first_failure;
  const auto work = [&](int worker) {
    const auto fill = [](int, std::span<std::byte> dst) {
      std::fill(dst.begin(), dst.end(), std::byte{0});
      return absl::OkStatus();
    };
    const auto consume = [](int, std::span<const std::byte>) { return absl::OkStatus(); };
    for (size_t i = next++; i < all.size(); i = next++) {
      const auto [point, candidate] = all[i];
      absl::StatusOr<graph::RunResult> run =
          engine.Run(worker, *candidate->compiled, fill, consume, 1);
      if (!run.ok()) {
        absl::MutexLock lock(&mu);
        if (first_failure.ok()) first_failure = TimingFailed(*point, *candidate, run.status());
        next = all.size();  // the others stop too
      }
    }
  };
  std::vector<std::thread> threads;
  for (int worker = 1; worker < engine.workers(); ++worker) threads.emplace_back(work, worker);
  work(0);
  for (std::thread& thread : threads) thread.join();
  if (!first_failure.ok()) {
    ServerLog().Warning("auto calibration: creating pipelines on all workers stopped; the rest "
                        "are created one by one as they are timed",
                        {Field("device", engine.caps().name),
                         Field("error", first_failure.ToString())});
  }
}

}  // namespace

absl::StatusOr<std::vector<CalibratedRow>> MeasureAutoRows(Engine& engine,
                                                           const AutoCalibrationOptions& options) {
  if (!engine.caps().timestamps_supported) {
    return absl::FailedPreconditionError(
        absl::StrCat(engine.caps().name, " has no timestamps on its compute queue: nothing to "
                     "measure AUTO's table with"));
  }
  const std::vector<GridPoint> points = PlanGrid(engine, options);
  CreatePipelinesInParallel(engine, points);
  PointTimer timer(engine, options);
  std::vector<CalibratedRow> rows;
  for (const GridPoint& point : points) {
    std::vector<bool> approximate;
    std::vector<double> probes;
    for (const Candidate& c : point.candidates) {
      absl::StatusOr<double> probe = timer.Probe(*c.compiled, point.size);
      if (!probe.ok()) return TimingFailed(point, c, probe.status());
      approximate.push_back(c.approximate);
      probes.push_back(*probe);
    }
    const std::vector<bool> in_full = TimedInFull(approximate, probes, options.full_timing_within);
    for (size_t i = 0; i < point.candidates.size(); ++i) {
      const Candidate& c = point.candidates[i];
      double us = probes[i];
      if (in_full[i]) {
        absl::StatusOr<double> timed = timer.Time(*c.compiled, probes[i]);
        if (!timed.ok()) return TimingFailed(point, c, timed.status());
        us = *timed;
      }
      rows.push_back({LowerFormatName(point.working), point.size.width, point.size.height,
                      point.radius, c.variant, c.approximate, us});
    }
  }
  return rows;
}

absl::StatusOr<AutoCalibrationReport> CalibrateAuto(Engine& engine,
                                                    const AutoCalibrationOptions& options) {
  const absl::Time start = absl::Now();
  const gpu::DeviceCaps& caps = engine.caps();
  const std::string key = CalibrationKey(caps, options);
  AutoCalibrationReport report;
  report.device = caps.name;
  std::vector<CalibrationSection> sections;
  if (!options.file.empty()) {
    absl::StatusOr<std::string> text = ReadFile(options.file);
    absl::StatusOr<std::vector<CalibrationSection>> parsed =
        text.ok() ? ParseAutoTableFile(*text) : text.status();
    if (parsed.ok()) {
      sections = *std::move(parsed);
    } else if (!absl::IsNotFound(parsed.status())) {
      ServerLog().Warning("auto calibration file unusable; measuring again",
                          {Field("file", options.file), Field("error", parsed.status().ToString())});
    }
    for (const CalibrationSection& section : sections) {
      if (section.key != key || section.rows.empty()) continue;
      Install(caps, section.rows);
      report.source = "file";
      report.rows = section.rows.size();
      report.took = absl::Now() - start;
      return report;
    }
  }
  ServerLog().Info("auto calibration: measuring the blur variants on this device",
                   {Field("device", caps.name)});
  absl::StatusOr<std::vector<CalibratedRow>> rows = MeasureAutoRows(engine, options);
  if (!rows.ok()) return rows.status();
  if (rows->empty()) {
    return absl::FailedPreconditionError("no blur variant could plan any point of the grid");
  }
  Install(caps, *rows);
  report.source = "measured";
  report.rows = rows->size();
  if (!options.file.empty()) {
    // This device's section replaces any of the same ids (an older build
    // or driver); other devices' sections stay.
    const std::string ids = absl::StrFormat(" | %04x:%04x | ", caps.vendor_id, caps.device_id);
    std::erase_if(sections, [&](const CalibrationSection& s) {
      return s.key.find(ids) != std::string::npos;
    });
    sections.push_back({key, *rows});
    if (absl::Status s = WriteFileAtomically(options.file, FormatAutoTableFile(sections)); !s.ok()) {
      ServerLog().Warning("auto calibration file not written; the next start measures again",
                          {Field("file", options.file), Field("error", s.ToString())});
    }
  }
  report.took = absl::Now() - start;
  return report;
}

}  // namespace rgfx::service
