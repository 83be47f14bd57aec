// The soak's report without a server: chart ticks and SVG, and the checks on
// made-up samples (a flat server passes, a leaking one fails).
#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/soak/soak_report.h"
#include "tests/soak/svg_chart.h"

namespace rgfx::soak {
namespace {

using ::testing::HasSubstr;

TEST(SvgChart, NiceTicksAreRoundSteps) {
  const auto is = [](std::vector<double> v) {
    return ::testing::Pointwise(::testing::DoubleNear(1e-9), v);
  };
  EXPECT_THAT(NiceTicks(0, 100, 5), is({0, 20, 40, 60, 80, 100}));
  EXPECT_THAT(NiceTicks(0, 0.8, 4), is({0, 0.2, 0.4, 0.6, 0.8}));
  EXPECT_THAT(NiceTicks(0, 0.9, 4), is({0, 0.5}));  // ticks stay inside the range
  // An empty range widens to one unit.
  EXPECT_THAT(NiceTicks(5, 5, 4), is({5, 5.5, 6}));
}

TEST(SvgChart, DrawsSeriesAndNotes) {
  Chart chart{.title = "a <b> & c", .x_label = "s"};
  chart.panels.push_back({.title = "RSS", .y_label = "MiB",
                          .series = {{.label = "rss", .color = "#123", .x = {0, 1, 2},
                                      .y = {1, NAN, 3}}}});
  chart.panels.push_back({.title = "GPU", .y_label = "MiB", .note = "no gauge"});
  chart.markers.push_back({1, "warm-up ends"});
  const std::string svg = RenderSvg(chart);
  EXPECT_THAT(svg, HasSubstr("a &lt;b&gt; &amp; c"));
  EXPECT_THAT(svg, HasSubstr("no gauge"));
  EXPECT_THAT(svg, HasSubstr("warm-up ends"));
  // The NaN breaks the line: two separate moves, no line to the gap.
  const size_t path = svg.find("<path d=\"M");
  ASSERT_NE(path, std::string::npos);
  EXPECT_NE(svg.find(" M", path), std::string::npos);
  EXPECT_EQ(svg.rfind("</svg>"), svg.size() - 7);
}

std::vector<Sample> Samples(double rss_end_factor, int idle_fds, double gpu_idle) {
  std::vector<Sample> s;
  for (int i = 0; i < 30; ++i) {
    const Phase phase = i < 10 ? Phase::kWarmUp : i < 25 ? Phase::kLoad : Phase::kIdle;
    const double f = i < 15 ? 1.0 : rss_end_factor;
    s.push_back({.t_s = double(i), .phase = phase, .rss_kib = int64_t(100000 * f),
                 .fds = phase == Phase::kIdle ? idle_fds : 40,
                 .gpu_bytes = phase == Phase::kIdle ? gpu_idle : 5e8});
  }
  return s;
}

TEST(SoakChecks, FlatServerPasses) {
  for (const CheckResult& c : CheckSamples(Samples(1.02, 40, 1e8), 1e8, {}, "")) {
    EXPECT_TRUE(c.passed && !c.skipped) << c.name << ": " << c.detail;
  }
}

TEST(SoakChecks, GrowthLeakedDescriptorsAndHeldGpuMemoryFail) {
  const std::vector<CheckResult> r = CheckSamples(Samples(1.10, 45, 2e8), 1e8, {}, "");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_FALSE(r[0].passed) << r[0].detail;
  EXPECT_THAT(r[0].detail, HasSubstr("+10.00%"));
  EXPECT_FALSE(r[1].passed) << r[1].detail;
  EXPECT_FALSE(r[2].passed) << r[2].detail;
}

TEST(SoakChecks, NoGaugeIsSkippedWithTheReason) {
  std::vector<Sample> s = Samples(1.0, 40, -1);
  const std::vector<CheckResult> r = CheckSamples(s, -1, {}, "skipped: no gauge");
  EXPECT_TRUE(r[2].skipped);
  EXPECT_EQ(r[2].detail, "skipped: no gauge");
}

}  // namespace
}  // namespace rgfx::soak
