// AUTO for gaussian_blur is a pure function of its table (no GPU): the
// nearest measured point, the fastest admitted variant, never an approximate
// one for an exact request; and the fallback for devices the table lacks.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "gpu/caps.h"
#include "passes/blur_variants/auto_table.h"
#include "passes/gaussian_blur.h"

namespace rgfx::passes {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A device measured at 1080p and 4096², radii 4 and 256 (large_radius and
// decimated measured approximate, as they always plan).
const AutoTableRow kTable[] = {
    {0x10de, 0x2330, "GPU", "rgba16f", 1920, 1080, 4, "exact", 50},
    {0x10de, 0x2330, "GPU", "rgba16f", 1920, 1080, 4, "fast", 60},
    {0x10de, 0x2330, "GPU", "rgba16f", 1920, 1080, 4, "large_radius", 40, true},
    {0x10de, 0x2330, "GPU", "rgba16f", 1920, 1080, 256, "fast", 900},
    {0x10de, 0x2330, "GPU", "rgba16f", 1920, 1080, 256, "tiled_halo", 1200},
    {0x10de, 0x2330, "GPU", "rgba16f", 1920, 1080, 256, "large_radius", 45, true},
    {0x10de, 0x2330, "GPU", "rgba16f", 1920, 1080, 256, "decimated", 30, true},
    {0x10de, 0x2330, "GPU", "rgba16f", 4096, 4096, 256, "tiled_halo", 3000},
    {0x10de, 0x2330, "GPU", "rgba16f", 4096, 4096, 256, "fast", 4000},
    {0x10de, 0x2330, "GPU", "rgba32f", 1920, 1080, 256, "tuned", 100},
};

AutoQuery Query(int radius, uint64_t pixels = 1920 * 1080, double min_psnr = 0) {
  AutoQuery q;
  q.vendor_id = 0x10de;
  q.device_id = 0x2330;
  q.working = "rgba16f";
  q.pixels = pixels;
  q.radius = radius;
  q.min_psnr_db = min_psnr;
  return q;
}

// Exact variants state +inf; large_radius 70 dB, decimated 43 dB.
std::optional<double> Stated(std::string_view v) {
  if (v == "large_radius") return 70.0;
  if (v == "decimated") return 43.0;
  return kInf;
}

TEST(AutoTable, FastestExactVariantAtTheNearestMeasuredPoint) {
  EXPECT_EQ(ChooseFromTable(kTable, Query(4), Stated), "exact");
  EXPECT_EQ(ChooseFromTable(kTable, Query(3), Stated), "exact");     // nearest radius: 4
  EXPECT_EQ(ChooseFromTable(kTable, Query(200), Stated), "fast");    // nearest radius: 256
  EXPECT_EQ(ChooseFromTable(kTable, Query(1000), Stated), "fast");
  // 4000x4000 is nearest to the 4096² rows.
  EXPECT_EQ(ChooseFromTable(kTable, Query(256, 4000ull * 4000), Stated), "tiled_halo");
}

TEST(AutoTable, NeverApproximateForAnExactRequest) {
  for (int radius : {1, 4, 16, 64, 256, 1024, 4096}) {
    for (uint64_t pixels : {64ull * 64, 1920ull * 1080, 8192ull * 8192}) {
      const auto chosen = ChooseFromTable(kTable, Query(radius, pixels, 0), Stated);
      ASSERT_TRUE(chosen.has_value());
      EXPECT_TRUE(std::isinf(*Stated(*chosen))) << *chosen << " at radius " << radius;
    }
  }
}

TEST(AutoTable, ApproximateOnlyWhenItsStatedPsnrIsEnough) {
  EXPECT_EQ(ChooseFromTable(kTable, Query(256, 1920 * 1080, 44), Stated), "large_radius");
  EXPECT_EQ(ChooseFromTable(kTable, Query(256, 1920 * 1080, 70), Stated), "large_radius");
  EXPECT_EQ(ChooseFromTable(kTable, Query(256, 1920 * 1080, 70.1), Stated), "fast");
  // decimated is the fastest here, but states 43 dB: admitted only at <= 43.
  EXPECT_EQ(ChooseFromTable(kTable, Query(256, 1920 * 1080, 43), Stated), "decimated");
}

// A variant measured both ways (fast in RGBA32F: fp32 line paths for an
// exact request, fp16 on matrix units where the request allows): each row
// stands only for requests whose plan of the variant is alike, so an exact
// request is never ranked by the approximate kernel's time, nor an
// approximate one by the exact kernel's.
TEST(AutoTable, RowsStandForPlansOfTheirOwnAccuracy) {
  const AutoTableRow table[] = {
      {0x10de, 0x2330, "GPU", "rgba32f", 1920, 1080, 64, "fast", 170},
      {0x10de, 0x2330, "GPU", "rgba32f", 1920, 1080, 64, "fast", 120, true},
      {0x10de, 0x2330, "GPU", "rgba32f", 1920, 1080, 64, "large_radius", 127, true},
      {0x10de, 0x2330, "GPU", "rgba32f", 1920, 1080, 64, "tuned", 150},
  };
  AutoQuery q = Query(64);
  q.working = "rgba32f";
  // fast's plan is exact when the request allows nothing, approximate (57.6
  // dB) when it allows 57.6 dB or less.
  auto fast_as_planned = [&](std::string_view v) -> std::optional<double> {
    if (v == "fast") return q.min_psnr_db > 0 && q.min_psnr_db <= 57.6 ? 57.6 : kInf;
    return Stated(v);
  };
  EXPECT_EQ(ChooseFromTable(table, q, fast_as_planned), "tuned");  // not fast's 120
  q.min_psnr_db = 50;
  EXPECT_EQ(ChooseFromTable(table, q, fast_as_planned), "fast");  // 120
  q.min_psnr_db = 60;  // fast plans exact (170); large_radius states 70
  EXPECT_EQ(ChooseFromTable(table, q, fast_as_planned), "large_radius");
}

TEST(AutoTable, SkipsVariantsThatCannotPlanAndUnknownDevices) {
  auto no_fast = [](std::string_view v) -> std::optional<double> {
    if (v == "fast") return std::nullopt;
    return Stated(v);
  };
  EXPECT_EQ(ChooseFromTable(kTable, Query(256), no_fast), "tiled_halo");
  AutoQuery other = Query(64);
  other.device_id = 1;
  EXPECT_EQ(ChooseFromTable(kTable, other, Stated), std::nullopt);
  AutoQuery f32 = Query(64);
  f32.working = "rgba32f";
  EXPECT_EQ(ChooseFromTable(kTable, f32, Stated), "tuned");
}

// The fallback (a device no table row names) and the built-in table: an
// exact request never gets an approximate variant, on any device kind.
TEST(AutoBlurVariant, ExactRequestsGetExactVariantsEverywhere) {
  std::vector<gpu::DeviceCaps> devices = {gpu::LavapipeLikeCaps(), gpu::LavapipeLikeCaps()};
  devices[1].type = "discrete";
  devices[1].max_compute_shared_memory_bytes = 48 << 10;
  // A device the table does not know, with matrix units (fast plans other
  // kernels there, and in RGBA32F an approximate one when allowed).
  devices.push_back(devices[1]);
  devices.back().vendor_id = 0x10de;
  devices.back().device_id = 1;
  devices.back().shader_float16 = true;
  devices.back().f16_matrix_product_16 = true;
  for (const AutoTableRow& row : BuiltinAutoTable()) {
    gpu::DeviceCaps caps = devices[1];
    caps.vendor_id = row.vendor_id;
    caps.device_id = row.device_id;
    devices.push_back(caps);
  }
  for (const gpu::DeviceCaps& caps : devices) {
    for (auto working : {graph::PixelFormat::kRgba16F, graph::PixelFormat::kRgba32F}) {
      for (int radius : {0, 1, 6, 7, 32, 64, 300, 1024, 4096}) {
        for (graph::Extent e : {graph::Extent{37, 29}, graph::Extent{1920, 1080},
                                graph::Extent{8192, 8192}}) {
          BlurConfig config;
          config.radius = radius;
          config.sigma = radius > 0 ? radius / 2.0 : 1.0;
          config.axes = "both";
          config.extent = e;
          config.working = working;
          config.caps = caps;
          // Exact: the variant, and its plan for this request.
          const auto planned_exact = [&](const std::string& chosen, double min_psnr_db) {
            const BlurVariant* v = FindBlurVariant(chosen);
            if (v == nullptr || !v->exact()) return false;
            graph::PassPlan plan;
            BlurPrepared prepared;
            BlurConfig request = config;
            request.min_psnr_db = min_psnr_db;
            return v->Plan(request, plan, prepared).ok() && prepared.accuracy.exact;
          };
          const std::string chosen = AutoBlurVariant(config);
          EXPECT_TRUE(planned_exact(chosen, 0.0)) << chosen << " radius " << radius;
          // Allowing approximation past its stated PSNR still gives exact.
          BlurConfig strict_request = config;
          strict_request.min_psnr_db = 1000.0;
          const std::string strict = AutoBlurVariant(strict_request);
          EXPECT_TRUE(planned_exact(strict, 1000.0)) << strict;
        }
      }
    }
  }
}

// The built-in table on each GPU it was measured on (the H100 and the
// H200), RGBA32F at 1080p r = 32 (margins of 1.4x and more in the table, so
// a re-measurement keeps them): an exact request gets fast's fp32 paths
// (H100 94 µs, H200 90, against large_radius's 106 and 94, approximate,
// and tuned's 234), one that allows 50 dB gets fast's fp16 path (71 and
// 64): the table's two fast rows each stand for their own plan.
TEST(AutoBlurVariant, EachGpuTableGivesFastRgba32FItsFp16PathOnlyWhenAllowed) {
  std::map<std::string, const AutoTableRow*> gpus;  // by name, one row each
  for (const AutoTableRow& row : BuiltinAutoTable()) gpus.emplace(row.device, &row);
  for (const char* wanted : {"H100", "H200"}) {
    EXPECT_TRUE(std::any_of(gpus.begin(), gpus.end(), [&](const auto& g) {
      return g.first.find(wanted) != std::string::npos;
    })) << "the built-in table has no " << wanted << " rows";
  }
  for (const auto& [name, row] : gpus) {
    SCOPED_TRACE(name);
    BlurConfig config;
    config.pass_name = "blur";
    config.radius = 32;
    config.sigma = 16;
    config.axes = "both";
    config.extent = {1920, 1080};
    config.working = graph::PixelFormat::kRgba32F;
    config.caps.name = name + " (as the table knows it)";
    config.caps.type = "discrete";
    config.caps.vendor_id = row->vendor_id;
    config.caps.device_id = row->device_id;
    config.caps.max_compute_shared_memory_bytes = 48 << 10;
    config.caps.shader_float16 = true;
    config.caps.f16_matrix_product_16 = true;
    for (double allowed : {0.0, 50.0}) {
      SCOPED_TRACE(allowed);
      BlurConfig request = config;
      request.min_psnr_db = allowed;
      EXPECT_EQ(AutoBlurVariant(request), "fast");
      graph::PassPlan plan;
      BlurPrepared prepared;
      ASSERT_TRUE(FindBlurVariant("fast")->Plan(request, plan, prepared).ok());
      EXPECT_EQ(prepared.accuracy.exact, allowed == 0.0);
    }
  }
}

TEST(AutoBlurVariant, FallbackAdmitsLargeRadiusWhenAllowed) {
  BlurConfig config;
  config.radius = 256;
  config.sigma = 128;
  config.axes = "both";
  config.extent = {1920, 1080};
  config.caps = gpu::LavapipeLikeCaps();
  config.caps.type = "discrete";
  BlurConfig allowed = config;
  allowed.min_psnr_db = 50.0;
  EXPECT_EQ(AutoBlurVariant(allowed), "large_radius");
  EXPECT_EQ(AutoBlurVariant(config), "fast");
  allowed.radius = 16;
  allowed.sigma = 8;
  EXPECT_EQ(AutoBlurVariant(allowed), "fast");  // below radius 64: per-tap kernels
}

// The catalog says whether "auto" chooses from measurements of the device
// (the H100 and H200 rows) or by the fallback rule (any other device).
TEST(AutoBlurVariant, CatalogNotesSayWhetherTheDeviceWasMeasured) {
  const auto auto_note = [](const gpu::DeviceCaps& caps) {
    for (const std::string& note : BlurDeviceNotes(caps)) {
      if (note.find(": auto ") != std::string::npos) return note;
    }
    return std::string();
  };
  std::map<std::pair<uint32_t, uint32_t>, size_t> rows;
  for (const AutoTableRow& row : BuiltinAutoTable()) ++rows[{row.vendor_id, row.device_id}];
  ASSERT_GE(rows.size(), 2u);
  for (const auto& [ids, count] : rows) {
    gpu::DeviceCaps caps = gpu::LavapipeLikeCaps();
    caps.type = "discrete";
    caps.name = "measured GPU";
    caps.vendor_id = ids.first;
    caps.device_id = ids.second;
    EXPECT_EQ(CountDeviceRows(BuiltinAutoTable(), ids.first, ids.second), count);
    EXPECT_NE(auto_note(caps).find(absl::StrCat("chooses from ", count, " times measured")),
              std::string::npos)
        << auto_note(caps);
  }
  gpu::DeviceCaps other = gpu::LavapipeLikeCaps();
  other.vendor_id = 0x10de;
  other.device_id = 1;
  EXPECT_EQ(CountDeviceRows(BuiltinAutoTable(), other.vendor_id, other.device_id), 0u);
  EXPECT_NE(auto_note(other).find("follows the fallback rule"), std::string::npos)
      << auto_note(other);
}

// Rows the server measured at start-up (--auto_calibration) replace the
// built-in rows of their device alone: AUTO chooses from them there (still
// never an approximate variant for an exact request), the catalog says so,
// other devices keep theirs, and dropping them restores the built-in table.
TEST(AutoBlurVariant, MeasuredRowsReplaceTheBuiltInRowsOfTheirDevice) {
  const AutoTableRow& builtin = BuiltinAutoTable()[0];
  BlurConfig config;
  config.radius = 64;
  config.sigma = 32;
  config.axes = "both";
  config.extent = {1920, 1080};
  config.working = graph::PixelFormat::kRgba16F;
  config.caps = gpu::LavapipeLikeCaps();
  config.caps.name = "measured here";
  config.caps.type = "discrete";
  config.caps.max_compute_shared_memory_bytes = 48 << 10;
  config.caps.vendor_id = builtin.vendor_id;
  config.caps.device_id = builtin.device_id;
  const std::string from_table = AutoBlurVariant(config);
  ASSERT_NE(from_table, "tuned");
  // Measured here: tuned fastest of the exact variants, large_radius faster
  // still but approximate; one size and radius, so every request maps there.
  const AutoTableRow measured[] = {
      {0, 0, "ignored: the ids given win", "rgba16f", 640, 480, 16, "tuned", 10},
      {0, 0, "", "rgba16f", 640, 480, 16, from_table.c_str(), 20},
      {0, 0, "", "rgba16f", 640, 480, 16, "large_radius", 5, true},
  };
  SetMeasuredAutoRows(config.caps.vendor_id, config.caps.device_id, measured);
  ASSERT_EQ(CountDeviceRows(*MeasuredAutoRows(), config.caps.vendor_id, config.caps.device_id), 3u);
  EXPECT_EQ(AutoBlurVariant(config), "tuned");
  BlurConfig allowed = config;
  allowed.min_psnr_db = 50;
  EXPECT_EQ(AutoBlurVariant(allowed), "large_radius");
  bool noted = false;
  for (const std::string& note : BlurDeviceNotes(config.caps)) {
    noted |= note.find("auto chooses from 3 times this server measured on this device at "
                       "start-up") != std::string::npos;
  }
  EXPECT_TRUE(noted);
  // Another device of the built-in table keeps its rows.
  for (const AutoTableRow& row : BuiltinAutoTable()) {
    if (row.device_id == builtin.device_id && row.vendor_id == builtin.vendor_id) continue;
    BlurConfig other = config;
    other.caps.vendor_id = row.vendor_id;
    other.caps.device_id = row.device_id;
    const std::string variant = AutoBlurVariant(other);
    EXPECT_NE(variant, "tuned") << "another device took these rows";
    break;
  }
  SetMeasuredAutoRows(config.caps.vendor_id, config.caps.device_id, {});
  EXPECT_EQ(CountDeviceRows(*MeasuredAutoRows(), config.caps.vendor_id, config.caps.device_id), 0u);
  EXPECT_EQ(AutoBlurVariant(config), from_table);
}

// A GPU with the H100's and H200's limits that no table row names.
gpu::DeviceCaps UnmeasuredHopperCaps() {
  gpu::DeviceCaps caps;
  caps.name = "a GPU the table does not know, with Hopper's limits";
  caps.type = "discrete";
  caps.vendor_id = 0x10de;
  caps.device_id = 1;
  caps.max_compute_shared_memory_bytes = 48 << 10;
  caps.subgroup_size = 32;
  caps.subgroup_shuffle_relative = true;
  caps.shader_float16 = true;
  caps.f16_matrix_product_16 = true;
  caps.multiprocessors = 132;
  return caps;
}

// The fallback rule against every GPU the table measured: at each point
// (format, size, radius) and for exact requests and those allowing 50 dB,
// the variant the rule picks ran within 25% of the fastest the table
// admits there (its plan's row: exact or approximate as it plans). The
// rule is drawn from those tables for devices they lack; this keeps it
// true to them (the rule before it, exact up to r = 6 and large_radius
// from r = 32 where allowed, failed 81 of these 496 comparisons, at worst
// 8.7x the fastest: exact at 4096² r = 2, large_radius under fast's
// stream).
TEST(AutoBlurVariant, FallbackRuleIsWithinAQuarterOfEachMeasuredGpusFastest) {
  const std::span<const AutoTableRow> table = BuiltinAutoTable();
  const auto time_of = [&](const AutoTableRow& at, const std::string& variant,
                           bool approximate) -> std::optional<double> {
    for (const AutoTableRow& row : table) {
      if (row.vendor_id == at.vendor_id && row.device_id == at.device_id &&
          std::string_view(row.working) == at.working && row.width == at.width &&
          row.height == at.height && row.radius == at.radius && row.variant == variant &&
          row.approximate == approximate) {
        return row.total_us;
      }
    }
    return std::nullopt;
  };
  std::map<std::tuple<uint32_t, uint32_t, std::string, uint32_t, uint32_t, int>,
           const AutoTableRow*> points;
  for (const AutoTableRow& row : table) {
    points.emplace(std::make_tuple(row.vendor_id, row.device_id, std::string(row.working),
                                   row.width, row.height, row.radius), &row);
  }
  int compared = 0;
  double worst = 0;
  for (const auto& [key, at] : points) {
    for (const double allowed : {0.0, 50.0}) {
      BlurConfig config;
      config.pass_name = "blur";
      config.radius = at->radius;
      config.sigma = at->radius / 2.0;
      config.axes = "both";
      config.extent = {at->width, at->height};
      config.working = std::string_view(at->working) == "rgba32f" ? graph::PixelFormat::kRgba32F
                                                                  : graph::PixelFormat::kRgba16F;
      config.caps = UnmeasuredHopperCaps();
      config.min_psnr_db = allowed;
      const auto planned_approximate = [&](const std::string& variant) {
        graph::PassPlan plan;
        BlurPrepared prepared;
        EXPECT_TRUE(FindBlurVariant(variant)->Plan(config, plan, prepared).ok()) << variant;
        return !prepared.accuracy.exact;
      };
      const std::string rule = FallbackBlurVariant(config);
      BlurConfig measured = config;
      measured.caps.vendor_id = at->vendor_id;
      measured.caps.device_id = at->device_id;
      const std::string best = AutoBlurVariant(measured);
      const std::optional<double> rule_us = time_of(*at, rule, planned_approximate(rule));
      const std::optional<double> best_us = time_of(*at, best, planned_approximate(best));
      SCOPED_TRACE(absl::StrCat(at->device, " ", at->working, " ", at->width, "x", at->height,
                                " r=", at->radius, " allowing ", allowed, " dB: rule ", rule,
                                ", table ", best));
      ASSERT_TRUE(best_us.has_value());
      if (!rule_us) {
        ADD_FAILURE() << "the table has no time for the rule's choice";
        continue;
      }
      ++compared;
      worst = std::max(worst, *rule_us / *best_us);
      EXPECT_LE(*rule_us, 1.25 * *best_us);
    }
  }
  EXPECT_GT(compared, 100);
  std::printf("fallback rule against %d measured points: at worst %.2fx the fastest\n", compared,
              worst);
}

}  // namespace
}  // namespace rgfx::passes
