// --auto_calibration without a GPU: the file its measurements are kept in
// (round trip, and every malformed line refused with its number), the grid
// flags, which devices each mode measures, and the key that keeps a
// section from another device, driver, build or grid from being used.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpu/caps.h"
#include "passes/blur_variants/auto_table.h"
#include "service/auto_calibration.h"
#include "service/auto_table_file.h"

namespace rgfx::service {
namespace {

using ::testing::HasSubstr;

std::vector<CalibrationSection> TwoDevices() {
  return {{"GPU A | 10de:2330 | driver 1 | build x",
           {{"rgba16f", 1920, 1080, 64, "fast", false, 37.412},
            {"rgba16f", 1920, 1080, 64, "large_radius", true, 69.6},
            {"rgba32f", 512, 512, 1024, "tuned", false, 1234.5}}},
          {"GPU B | 1002:73bf | driver 2 | build y", {{"rgba32f", 3840, 2160, 2, "exact", false, 9.25}}}};
}

TEST(AutoTableFile, RoundTripsEverySectionAndRow) {
  const std::vector<CalibrationSection> sections = TwoDevices();
  const std::string text = FormatAutoTableFile(sections);
  absl::StatusOr<std::vector<CalibrationSection>> parsed = ParseAutoTableFile(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, sections);
  // Empty: a header and nothing else.
  parsed = ParseAutoTableFile(FormatAutoTableFile({}));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->empty());
}

TEST(AutoTableFile, RefusesMalformedLinesNamingThem) {
  const std::string good = FormatAutoTableFile(TwoDevices());
  struct Case {
    std::string text;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"", "line 1: expected 'rgfx-auto-calibration 1'"},
      {"rgfx-auto-calibration 2\n", "line 1"},
      {"rgfx-auto-calibration 1\nrgba16f 8 8 1 exact 0 1.0\n", "line 2: a row before any"},
      {"rgfx-auto-calibration 1\ndevice \n", "line 2: a device without a key"},
      {"rgfx-auto-calibration 1\ndevice k\nrgba16f 8 8 1 exact 0\n", "line 3: expected"},
      {"rgfx-auto-calibration 1\ndevice k\nrgba16f 8 x 1 exact 0 1.0\n", "line 3: expected"},
      {"rgfx-auto-calibration 1\ndevice k\nrgba8 8 8 1 exact 0 1.0\n", "unknown working format 'rgba8'"},
      {"rgfx-auto-calibration 1\ndevice k\nrgba16f 0 8 1 exact 0 1.0\n", "out of range"},
      {"rgfx-auto-calibration 1\ndevice k\nrgba16f 8 8 -1 exact 0 1.0\n", "out of range"},
      {"rgfx-auto-calibration 1\ndevice k\nrgba16f 8 8 1 exact 2 1.0\n", "out of range"},
      {"rgfx-auto-calibration 1\ndevice k\nrgba16f 8 8 1 exact 0 -3\n", "out of range"},
      {"rgfx-auto-calibration 1\ndevice k\nrgba16f 8 8 1 exact 0 nan\n", "out of range"},
      {good + "rgba16f 8 8 1 exact 0 1.0 extra\n", "line 8: expected"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<CalibrationSection>> parsed = ParseAutoTableFile(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(c.says)) << c.text;
  }
}

TEST(AutoCalibrationGrid, ParsesTheFlagsAndNamesWhatItCannotTake) {
  AutoCalibrationOptions options;
  ASSERT_TRUE(ParseCalibrationGrid("rgba32f", "64x48,1920x1080", "2,1024", options).ok());
  EXPECT_EQ(options.formats, std::vector<graph::PixelFormat>{graph::PixelFormat::kRgba32F});
  EXPECT_EQ(options.sizes, (std::vector<graph::Extent>{{64, 48}, {1920, 1080}}));
  EXPECT_EQ(options.radii, (std::vector<int>{2, 1024}));
  struct Case {
    std::string formats, sizes, radii, says;
  };
  const std::vector<Case> cases = {
      {"rgba8", "8x8", "1", "--auto_calibration_formats: 'rgba8'"},
      {"", "8x8", "1", "--auto_calibration_formats: ''"},
      {"rgba16f", "8", "1", "--auto_calibration_sizes: '8'"},
      {"rgba16f", "0x8", "1", "--auto_calibration_sizes: '0x8'"},
      {"rgba16f", "8x16385", "1", "--auto_calibration_sizes: '8x16385'"},
      {"rgba16f", "8x8", "0", "--auto_calibration_radii: '0'"},
      {"rgba16f", "8x8", "4097", "--auto_calibration_radii: '4097'"},
      {"rgba16f", "8x8", "1,,2", "--auto_calibration_radii: ''"},
  };
  for (const Case& c : cases) {
    AutoCalibrationOptions untouched;
    const absl::Status s = ParseCalibrationGrid(c.formats, c.sizes, c.radii, untouched);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.says;
    EXPECT_THAT(std::string(s.message()), HasSubstr(c.says));
    EXPECT_EQ(untouched.radii, AutoCalibrationOptions().radii) << "changed on error: " << c.says;
  }
}

TEST(AutoCalibrationMode, MissingMeasuresOnlyGpusTheBuiltInTableLacks) {
  gpu::DeviceCaps measured_gpu;  // a device the built-in table has rows for
  measured_gpu.type = "discrete";
  ASSERT_FALSE(passes::BuiltinAutoTable().empty());
  measured_gpu.vendor_id = passes::BuiltinAutoTable()[0].vendor_id;
  measured_gpu.device_id = passes::BuiltinAutoTable()[0].device_id;
  gpu::DeviceCaps other_gpu = measured_gpu;
  other_gpu.device_id = 0xfffe;
  ASSERT_EQ(passes::CountDeviceRows(passes::BuiltinAutoTable(), other_gpu.vendor_id,
                                    other_gpu.device_id),
            0u);
  const gpu::DeviceCaps cpu = gpu::LavapipeLikeCaps();
  using Mode = AutoCalibrationMode;
  EXPECT_FALSE(NeedsAutoCalibration(Mode::kOff, other_gpu));
  EXPECT_TRUE(NeedsAutoCalibration(Mode::kMissing, other_gpu));
  EXPECT_FALSE(NeedsAutoCalibration(Mode::kMissing, measured_gpu));
  EXPECT_FALSE(NeedsAutoCalibration(Mode::kMissing, cpu));
  EXPECT_TRUE(NeedsAutoCalibration(Mode::kAlways, measured_gpu));
  EXPECT_TRUE(NeedsAutoCalibration(Mode::kAlways, cpu));
}

TEST(AutoCalibrationKey, ChangesWithTheDeviceDriverAndGrid) {
  gpu::DeviceCaps caps = gpu::LavapipeLikeCaps();
  caps.driver = "Mesa 22.3.6";
  const AutoCalibrationOptions options;
  const std::string key = CalibrationKey(caps, options);
  EXPECT_THAT(key, HasSubstr(caps.name));
  EXPECT_THAT(key, HasSubstr("Mesa 22.3.6"));
  EXPECT_THAT(key, HasSubstr("build "));  // the running binary's hash
  EXPECT_EQ(key.find('\n'), std::string::npos);
  EXPECT_EQ(CalibrationKey(caps, options), key) << "not a pure function of its inputs";
  gpu::DeviceCaps newer_driver = caps;
  newer_driver.driver = "Mesa 23.0";
  EXPECT_NE(CalibrationKey(newer_driver, options), key);
  gpu::DeviceCaps other_id = caps;
  other_id.device_id += 1;
  EXPECT_NE(CalibrationKey(other_id, options), key);
  AutoCalibrationOptions fewer_radii = options;
  fewer_radii.radii.pop_back();
  EXPECT_NE(CalibrationKey(caps, fewer_radii), key);
  AutoCalibrationOptions other_sizes = options;
  other_sizes.sizes[0].width += 1;
  EXPECT_NE(CalibrationKey(caps, other_sizes), key);
  AutoCalibrationOptions timed_in_full = options;
  timed_in_full.full_timing_within = 100;
  EXPECT_NE(CalibrationKey(caps, timed_in_full), key);
}

TEST(AutoCalibrationProbe, TimesInFullTheCandidatesNearTheFastestOfTheirAccuracy) {
  // Exact probes 10, 29, 31, 100 µs; approximate 40 and 130 (slower than
  // every exact one, yet the fastest of their kind: a request's PSNR floor
  // may refuse the other approximate rows, never the exact ones).
  const std::vector<bool> approximate = {false, false, false, false, true, true};
  const std::vector<double> probes = {29, 10, 31, 100, 130, 40};
  EXPECT_EQ(TimedInFull(approximate, probes, 3.0),
            (std::vector<bool>{true, true, false, false, false, true}));
  // Within 1x: only the fastest of each accuracy (ties included).
  EXPECT_EQ(TimedInFull({false, false, true}, {5, 5, 7}, 1.0),
            (std::vector<bool>{true, true, true}));
  // A wide margin times everything.
  EXPECT_EQ(TimedInFull(approximate, probes, 100.0), std::vector<bool>(6, true));
  EXPECT_TRUE(TimedInFull({}, {}, 3.0).empty());
}

}  // namespace
}  // namespace rgfx::service
