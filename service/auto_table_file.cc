#include "service/auto_table_file.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace rgfx::service {
namespace {

constexpr absl::string_view kHeader = "rgfx-auto-calibration 1";
constexpr absl::string_view kDevice = "device ";

absl::Status LineError(size_t line, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("auto calibration file, line ", line, ": ", what));
}

}  // namespace

std::string FormatAutoTableFile(std::span<const CalibrationSection> sections) {
  std::string text = absl::StrCat(kHeader, "\n");
  for (const CalibrationSection& section : sections) {
    absl::StrAppend(&text, kDevice, section.key, "\n");
    for (const CalibratedRow& row : section.rows) {
      absl::StrAppendFormat(&text, "%s %u %u %d %s %d %.3f\n", row.working, row.width, row.height,
                            row.radius, row.variant, row.approximate ? 1 : 0, row.total_us);
    }
  }
  return text;
}

absl::StatusOr<std::vector<CalibrationSection>> ParseAutoTableFile(absl::string_view text) {
  std::vector<CalibrationSection> sections;
  size_t number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    if (number == 1) {
      if (line != kHeader) return LineError(number, absl::StrCat("expected '", kHeader, "'"));
      continue;
    }
    if (line.empty()) continue;
    if (absl::ConsumePrefix(&line, kDevice)) {
      if (line.empty()) return LineError(number, "a device without a key");
      sections.push_back({std::string(line), {}});
      continue;
    }
    if (sections.empty()) return LineError(number, "a row before any 'device' line");
    const std::vector<absl::string_view> fields = absl::StrSplit(line, ' ');
    CalibratedRow row;
    int approximate = 0;
    if (fields.size() != 7 || !absl::SimpleAtoi(fields[1], &row.width) ||
        !absl::SimpleAtoi(fields[2], &row.height) || !absl::SimpleAtoi(fields[3], &row.radius) ||
        !absl::SimpleAtoi(fields[5], &approximate) || !absl::SimpleAtod(fields[6], &row.total_us)) {
      return LineError(number, "expected: working width height radius variant approximate µs");
    }
    row.working = std::string(fields[0]);
    row.variant = std::string(fields[4]);
    row.approximate = approximate != 0;
    if (row.working != "rgba16f" && row.working != "rgba32f") {
      return LineError(number, absl::StrCat("unknown working format '", row.working, "'"));
    }
    if (row.width == 0 || row.height == 0 || row.radius < 0 || (approximate != 0 && approximate != 1) ||
        !std::isfinite(row.total_us) || row.total_us <= 0) {
      return LineError(number, "a size, radius, flag or time out of range");
    }
    sections.back().rows.push_back(std::move(row));
  }
  return sections;
}

}  // namespace rgfx::service
