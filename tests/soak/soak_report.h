// The soak's samples over time, the checks made on them, and the CSV and SVG
// files they are written to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace rgfx::soak {

enum class Phase { kWarmUp, kLoad, kIdle };
const char* PhaseName(Phase phase);

struct Sample {
  double t_s = 0;  // since the load started
  Phase phase = Phase::kWarmUp;
  int64_t rss_kib = -1;  // -1: not readable (server given by address)
  int fds = -1;
  double gpu_bytes = -1;  // -1: no gauge
  double requests_per_s = 0;
  int64_t completed = 0;  // requests answered so far
};

struct CheckResult {
  std::string name;
  bool skipped = false;  // with the reason in `detail`
  bool passed = false;
  std::string detail;
};

struct Thresholds {
  double max_rss_growth = 0.05;  // fraction, after warm-up
  int fd_slack = 2;              // descriptors above the warm-up level once idle
};

// RSS growth from the end of warm-up to the end of the load, descriptors
// after idle against the end of warm-up, GPU memory after idle against its
// floor before any request (`gpu_floor` < 0: unknown).
std::vector<CheckResult> CheckSamples(const std::vector<Sample>& samples, double gpu_floor,
                                      const Thresholds& thresholds,
                                      const std::string& gpu_skip_reason);

absl::Status WriteCsv(const std::string& path, const std::vector<Sample>& samples);
absl::Status WriteSvg(const std::string& path, const std::string& title,
                      const std::vector<Sample>& samples, const std::string& gpu_note);

}  // namespace rgfx::soak
