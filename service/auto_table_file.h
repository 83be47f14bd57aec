// The file --auto_calibration_file keeps a server's start-up measurements
// in (service/auto_calibration.h), so that a restart on the same device and
// build reads them instead of measuring again. Plain text, one section per
// device:
//
//   rgfx-auto-calibration 1
//   device <key>
//   <working> <width> <height> <radius> <variant> <approximate 0|1> <total µs>
//   ...
//
// The key names everything the times depend on (the device, its driver,
// this build and the grid measured; CalibrationKey), so a section is used
// only where its key equals the device's now. Pure text in and out: tested
// without a GPU (tests/service/auto_table_file_test.cc).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"

namespace rgfx::service {

// One measured point: a variant's median GPU time of both axes.
struct CalibratedRow {
  std::string working;  // "rgba16f" or "rgba32f"
  uint32_t width = 0, height = 0;
  int radius = 0;
  std::string variant;
  bool approximate = false;  // the measured plan was approximate
  double total_us = 0;
  bool operator==(const CalibratedRow&) const = default;
};

struct CalibrationSection {
  std::string key;  // one line, no line breaks
  std::vector<CalibratedRow> rows;
  bool operator==(const CalibrationSection&) const = default;
};

std::string FormatAutoTableFile(std::span<const CalibrationSection> sections);

// The sections of a file FormatAutoTableFile wrote; an error naming the
// line and what is wrong with it for anything else.
absl::StatusOr<std::vector<CalibrationSection>> ParseAutoTableFile(absl::string_view text);

}  // namespace rgfx::service
