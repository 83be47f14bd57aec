// The arithmetic of `rgfx load`'s report and the Prometheus text parser the
// load tests read /metrics with; no GPU, no server.
#include <gtest/gtest.h>

#include <numeric>

#include "client/load_stats.h"
#include "tests/e2e/prometheus_text.h"

namespace rgfx::client {
namespace {

TEST(LoadStats, PercentileIsNearestRank) {
  std::vector<double> v(100);
  std::iota(v.begin(), v.end(), 1.0);  // 1..100
  EXPECT_EQ(Percentile(v, 0.50), 50);
  EXPECT_EQ(Percentile(v, 0.90), 90);
  EXPECT_EQ(Percentile(v, 0.99), 99);
  EXPECT_EQ(Percentile(v, 0.999), 100);  // rank ceil(99.9) = 100
  EXPECT_EQ(Percentile(v, 1.0), 100);
  EXPECT_EQ(Percentile(v, 0.0), 1);
  const std::vector<double> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(Percentile(ten, 0.9), 9);  // 0.9 * 10 rounds to 9.000000000000002
  EXPECT_EQ(Percentile(ten, 0.95), 10);
  EXPECT_EQ(Percentile({7}, 0.5), 7);
  EXPECT_EQ(Percentile({}, 0.5), 0);
}

TEST(LoadStats, SummarizeSortsAndAverages) {
  const Distribution d = Summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(d.count, 5);
  EXPECT_EQ(d.min, 1);
  EXPECT_EQ(d.max, 5);
  EXPECT_DOUBLE_EQ(d.mean, 3);
  EXPECT_EQ(d.p50, 3);
  EXPECT_EQ(d.p90, 5);
  EXPECT_EQ(d.p99, 5);
  EXPECT_EQ(Summarize({}).count, 0);
}

TEST(LoadStats, LinearHistogramBucketsAreHalfOpenAndCoverEverything) {
  // Range 0..10 in 5 buckets of 2: (0,2] holds 0 too, boundaries go down.
  const std::vector<double> values = {0, 2, 2.0001, 4, 5, 9.99, 10, 10};
  const std::vector<HistogramBucket> h = LinearHistogram(values, 5);
  ASSERT_EQ(h.size(), 5u);
  EXPECT_DOUBLE_EQ(h[0].upper, 2);
  EXPECT_DOUBLE_EQ(h[4].upper, 10);
  EXPECT_EQ(h[0].count, 2);  // 0, 2
  EXPECT_EQ(h[1].count, 2);  // 2.0001, 4
  EXPECT_EQ(h[2].count, 1);  // 5
  EXPECT_EQ(h[3].count, 0);
  EXPECT_EQ(h[4].count, 3);  // 9.99, 10, 10
  int64_t total = 0;
  for (const HistogramBucket& b : h) total += b.count;
  EXPECT_EQ(total, static_cast<int64_t>(values.size()));
}

TEST(LoadStats, LinearHistogramOfEqualValuesIsOneBucket) {
  const std::vector<HistogramBucket> h = LinearHistogram({3, 3, 3}, 10);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].count, 3);
  EXPECT_TRUE(LinearHistogram({}, 10).empty());
}

TEST(LoadStats, LinearHistogramOfRoundingProneValuesCountsEachOnce) {
  std::vector<double> values;
  for (int i = 0; i <= 1000; ++i) values.push_back(0.1 * i);
  const std::vector<HistogramBucket> h = LinearHistogram(values, 7);
  int64_t total = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    total += h[i].count;
    // Every value counted in bucket i lies in (upper[i-1], upper[i]].
    const double lo = i == 0 ? -1 : h[i - 1].upper;
    int64_t expected = 0;
    for (double v : values) expected += (v > lo && v <= h[i].upper) ? 1 : 0;
    EXPECT_EQ(h[i].count, expected) << "bucket " << i;
  }
  EXPECT_EQ(total, 1001);
}

TEST(LoadStats, FormatHistogramScalesBarsToTheFullestBucket) {
  const std::string text = FormatHistogram({{1, 4}, {2, 2}, {3, 0}}, 8, "ms");
  EXPECT_NE(text.find("[4]\t|\u220e\u220e\u220e\u220e\u220e\u220e\u220e\u220e\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("[2]\t|\u220e\u220e\u220e\u220e\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[0]\t|\n"), std::string::npos) << text;
}

TEST(LoadStats, StatusCodesByName) {
  EXPECT_EQ(StatusCodeName(0), "OK");
  EXPECT_EQ(StatusCodeName(3), "INVALID_ARGUMENT");
  EXPECT_EQ(StatusCodeName(8), "RESOURCE_EXHAUSTED");
  EXPECT_EQ(StatusCodeName(14), "UNAVAILABLE");
  EXPECT_EQ(StatusCodeName(16), "UNAUTHENTICATED");
  EXPECT_EQ(StatusCodeName(17), "CODE_17");
  EXPECT_EQ(StatusCodeName(-1), "CODE_-1");
}

TEST(PrometheusText, ParsesSamplesLabelsAndEscapes) {
  const std::string text =
      "# HELP rgfx_requests_total Requests\n"
      "# TYPE rgfx_requests_total counter\n"
      "rgfx_requests_total{code=\"OK\",method=\"Process\"} 12\n"
      "rgfx_requests_total{code=\"INVALID_ARGUMENT\",method=\"Process\"} 3 1700000000000\n"
      "rgfx_x{a=\"q\\\"uote\"} 1.5e-3\n"
      "rgfx_queue_seconds_bucket{le=\"+Inf\"} 15\n"
      "rgfx_gpu_submissions_total 7\n";
  absl::StatusOr<std::vector<testing::MetricSample>> samples = testing::ParsePrometheusText(text);
  ASSERT_TRUE(samples.ok()) << samples.status();
  ASSERT_EQ(samples->size(), 5u);
  const testing::Scrape scrape(*samples);
  EXPECT_EQ(scrape.Sum("rgfx_requests_total"), 15);
  EXPECT_EQ(scrape.Sum("rgfx_requests_total", {{"code", "OK"}}), 12);
  EXPECT_EQ(scrape.Sum("rgfx_requests_total", {{"code", "UNAVAILABLE"}}), 0);
  EXPECT_EQ((*samples)[2].labels.at("a"), "q\"uote");
  EXPECT_DOUBLE_EQ((*samples)[2].value, 1.5e-3);
  EXPECT_EQ(scrape.Sum("rgfx_queue_seconds_bucket", {{"le", "+Inf"}}), 15);
  EXPECT_EQ(scrape.Sum("rgfx_gpu_submissions_total"), 7);
  EXPECT_FALSE(testing::ParsePrometheusText("rgfx_x{a=\"1\" 2\n").ok());
  EXPECT_FALSE(testing::ParsePrometheusText("rgfx_x twelve\n").ok());
}

}  // namespace
}  // namespace rgfx::client
