// The arithmetic of `rgfx load`'s report, apart from any gRPC so it is tested
// alone (tests/e2e/load_stats_test.cc): nearest-rank percentiles, the text
// histogram of latencies, and gRPC status codes by name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rgfx::client {

// gRPC's name of a status code ("RESOURCE_EXHAUSTED"), "CODE_<n>" outside the
// canonical 0..16. Every `rgfx` subcommand prints codes this way.
std::string StatusCodeName(int code);

// The nearest-rank percentile of `sorted` (ascending): the smallest value
// with at least q of the values at or below it, q in [0, 1]. Always one of
// the values (never interpolated), so a reported p99 was measured. 0 when
// empty.
double Percentile(const std::vector<double>& sorted, double q);

// Percentiles and extremes of one sample.
struct Distribution {
  int64_t count = 0;
  double min = 0, mean = 0, max = 0;
  double p50 = 0, p90 = 0, p95 = 0, p99 = 0, p999 = 0;
};
Distribution Summarize(std::vector<double> values);

// Equal-width buckets from the smallest to the largest value (like ghz):
// bucket i holds values in (upper[i-1], upper[i]], the first also the
// minimum itself. One bucket when all values are equal; none when empty.
struct HistogramBucket {
  double upper = 0;
  int64_t count = 0;
};
std::vector<HistogramBucket> LinearHistogram(const std::vector<double>& values, int buckets);

// One line per bucket: "  upper [count] |∎∎∎∎", bars scaled to `width`
// characters for the fullest bucket.
std::string FormatHistogram(const std::vector<HistogramBucket>& histogram, int width,
                            const char* unit);

}  // namespace rgfx::client
