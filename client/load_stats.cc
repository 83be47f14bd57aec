#include "client/load_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rgfx::client {

std::string StatusCodeName(int code) {
  // gRPC's status codes are the canonical ones, numbered as absl::StatusCode.
  std::string name = absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
  return name.empty() ? absl::StrCat("CODE_", code) : name;
}

double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  // Rank ceil(q * n), 1-based; q = 0 is the minimum. The small epsilon keeps
  // 0.9 * 10 = 9.000000000000002 at rank 9.
  const double rank = std::ceil(q * static_cast<double>(sorted.size()) - 1e-9);
  const size_t i = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(sorted.size())));
  return sorted[i - 1];
}

Distribution Summarize(std::vector<double> values) {
  Distribution d;
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  d.count = static_cast<int64_t>(values.size());
  d.min = values.front();
  d.max = values.back();
  d.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  d.p50 = Percentile(values, 0.50);
  d.p90 = Percentile(values, 0.90);
  d.p95 = Percentile(values, 0.95);
  d.p99 = Percentile(values, 0.99);
  d.p999 = Percentile(values, 0.999);
  return d;
}

std::vector<HistogramBucket> LinearHistogram(const std::vector<double>& values, int buckets) {
  std::vector<HistogramBucket> out;
  if (values.empty() || buckets < 1) return out;
  const auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  const double lo = *lo_it, hi = *hi_it;
  if (hi == lo) return {{hi, static_cast<int64_t>(values.size())}};
  const double width = (hi - lo) / buckets;
  out.resize(buckets);
  for (int i = 0; i < buckets; ++i) out[i].upper = lo + width * (i + 1);
  out.back().upper = hi;  // exact, whatever the rounding of lo + width * n
  for (double v : values) {
    // (upper[i-1], upper[i]]: ceil, minus one; the minimum goes to bucket 0.
    int i = static_cast<int>(std::ceil((v - lo) / width)) - 1;
    i = std::clamp(i, 0, buckets - 1);
    // Rounding may put a value on the wrong side of a boundary: fix it.
    while (i > 0 && v <= out[i - 1].upper) --i;
    while (i + 1 < buckets && v > out[i].upper) ++i;
    out[i].count++;
  }
  return out;
}

std::string FormatHistogram(const std::vector<HistogramBucket>& histogram, int width,
                            const char* unit) {
  int64_t most = 0;
  for (const HistogramBucket& b : histogram) most = std::max(most, b.count);
  std::string out;
  for (const HistogramBucket& b : histogram) {
    const int bar = most == 0 ? 0
                              : static_cast<int>(std::lround(static_cast<double>(b.count) * width /
                                                             static_cast<double>(most)));
    std::string bars;
    for (int i = 0; i < bar; ++i) bars += "\u220e";  // ∎, as ghz draws them
    absl::StrAppendFormat(&out, "  %10.3f %s [%d]\t|%s\n", b.upper, unit, b.count, bars);
  }
  return out;
}

}  // namespace rgfx::client
