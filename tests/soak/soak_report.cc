#include "tests/soak/soak_report.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tests/soak/svg_chart.h"

namespace rgfx::soak {
namespace {

// Median of `values` (empty: -1).
double Median(std::vector<double> values) {
  if (values.empty()) return -1;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

template <typename Get>
std::vector<double> Collect(const std::vector<Sample>& samples, size_t from, size_t to, Get get) {
  std::vector<double> out;
  for (size_t i = from; i < to && i < samples.size(); ++i) {
    const double v = get(samples[i]);
    if (v >= 0) out.push_back(v);
  }
  return out;
}

}  // namespace

const char* PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kWarmUp: return "warmup";
    case Phase::kLoad: return "load";
    case Phase::kIdle: return "idle";
  }
  return "?";
}

std::vector<CheckResult> CheckSamples(const std::vector<Sample>& samples, double gpu_floor,
                                      const Thresholds& thresholds,
                                      const std::string& gpu_skip_reason) {
  // Index ranges of the phases.
  size_t load_begin = samples.size(), idle_begin = samples.size();
  for (size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].phase == Phase::kLoad && load_begin == samples.size()) load_begin = i;
    if (samples[i].phase == Phase::kIdle && idle_begin == samples.size()) idle_begin = i;
  }
  constexpr size_t kWindow = 5;  // samples per median: one slow sample is no trend
  const size_t base_from = load_begin >= kWindow ? load_begin - kWindow : 0;
  const size_t end_from = idle_begin >= kWindow ? idle_begin - kWindow : 0;
  std::vector<CheckResult> results;

  const auto rss = [](const Sample& s) { return static_cast<double>(s.rss_kib); };
  const double rss_base = Median(Collect(samples, base_from, load_begin, rss));
  const double rss_end = Median(Collect(samples, end_from, idle_begin, rss));
  const std::vector<double> all_rss = Collect(samples, 0, samples.size(), rss);
  CheckResult r{.name = "resident memory growth after warm-up"};
  if (rss_base <= 0 || rss_end <= 0 || idle_begin <= load_begin) {
    r.skipped = true;
    r.detail = "no RSS samples (server not local, or no load phase)";
  } else {
    const double growth = (rss_end - rss_base) / rss_base;
    r.passed = growth < thresholds.max_rss_growth;
    r.detail = absl::StrFormat(
        "%.1f MiB at the end of warm-up -> %.1f MiB at the end of the load: %+.2f%% "
        "(limit %.0f%%); peak %.1f MiB",
        rss_base / 1024, rss_end / 1024, 100 * growth, 100 * thresholds.max_rss_growth,
        *std::max_element(all_rss.begin(), all_rss.end()) / 1024);
  }
  results.push_back(r);

  const auto fds = [](const Sample& s) { return static_cast<double>(s.fds); };
  const double fd_base = Median(Collect(samples, base_from, load_begin, fds));
  const std::vector<double> load_fds = Collect(samples, load_begin, idle_begin, fds);
  const std::vector<double> idle_fds = Collect(samples, idle_begin, samples.size(), fds);
  CheckResult f{.name = "open descriptors flat"};
  if (fd_base < 0 || idle_fds.empty()) {
    f.skipped = true;
    f.detail = "no descriptor samples (server not local, or no idle phase)";
  } else {
    const double fd_idle = idle_fds.back();
    const double fd_max = load_fds.empty() ? fd_base
                                           : *std::max_element(load_fds.begin(), load_fds.end());
    f.passed = fd_idle <= fd_base + thresholds.fd_slack;
    f.detail = absl::StrFormat("%.0f at the end of warm-up, at most %.0f under load, %.0f after idle "
                               "(allowed %.0f)",
                               fd_base, fd_max, fd_idle, fd_base + thresholds.fd_slack);
  }
  results.push_back(f);

  const auto gpu = [](const Sample& s) { return s.gpu_bytes; };
  const std::vector<double> idle_gpu = Collect(samples, idle_begin, samples.size(), gpu);
  const std::vector<double> all_gpu = Collect(samples, 0, samples.size(), gpu);
  CheckResult g{.name = "GPU memory back to its floor after idle"};
  if (gpu_floor < 0 || idle_gpu.empty()) {
    g.skipped = true;
    g.detail = gpu_skip_reason.empty() ? "no GPU memory samples" : gpu_skip_reason;
  } else {
    const double after = idle_gpu.back();
    g.passed = after <= gpu_floor;
    g.detail = absl::StrFormat("floor %.1f MiB before any request, peak %.1f MiB, %.1f MiB after "
                               "idle",
                               gpu_floor / (1 << 20),
                               *std::max_element(all_gpu.begin(), all_gpu.end()) / (1 << 20),
                               after / (1 << 20));
  }
  results.push_back(g);
  return results;
}

absl::Status WriteCsv(const std::string& path, const std::vector<Sample>& samples) {
  std::ofstream out(path, std::ios::trunc);
  out << "time_s,phase,rss_kib,fds,gpu_memory_bytes,requests_per_s,completed\n";
  for (const Sample& s : samples) {
    out << absl::StrFormat("%.1f,%s,%d,%d,%s,%.1f,%d\n", s.t_s, PhaseName(s.phase), s.rss_kib,
                           s.fds, s.gpu_bytes < 0 ? "" : absl::StrFormat("%.0f", s.gpu_bytes),
                           s.requests_per_s, s.completed);
  }
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::Status WriteSvg(const std::string& path, const std::string& title,
                      const std::vector<Sample>& samples, const std::string& gpu_note) {
  Series rss{.label = "server RSS", .color = "#1f77b4"};
  Series gpu{.label = "GPU memory", .color = "#d62728"};
  Series rps{.label = "requests/s", .color = "#2ca02c"};
  Chart chart{.title = title, .x_label = "seconds since the load started"};
  Phase last = samples.empty() ? Phase::kWarmUp : samples.front().phase;
  for (const Sample& s : samples) {
    rss.x.push_back(s.t_s);
    rss.y.push_back(s.rss_kib < 0 ? NAN : s.rss_kib / 1024.0);
    gpu.x.push_back(s.t_s);
    gpu.y.push_back(s.gpu_bytes < 0 ? NAN : s.gpu_bytes / (1 << 20));
    rps.x.push_back(s.t_s);
    rps.y.push_back(s.requests_per_s);
    if (s.phase != last) {
      chart.markers.push_back({s.t_s, s.phase == Phase::kLoad ? "warm-up ends" : "idle"});
      last = s.phase;
    }
  }
  chart.panels.push_back({.title = "Server resident memory (VmRSS)", .y_label = "MiB",
                          .series = {rss}, .note = "RSS not readable"});
  chart.panels.push_back({.title = "GPU memory (rgfx_gpu_memory_bytes)", .y_label = "MiB",
                          .series = {gpu}, .note = gpu_note});
  chart.panels.push_back({.title = "Throughput", .y_label = "requests/s", .series = {rps}});
  std::ofstream out(path, std::ios::trunc);
  out << RenderSvg(chart);
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace rgfx::soak
