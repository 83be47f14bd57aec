// What `rgfx bench` measured, and how it is shown: aligned text tables on
// stdout, CSV files and an SVG bar chart (no plotting library: the chart is
// a few rectangles and labels).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace rgfx::client {

// A table: a title, column names and rows of cells already formatted.
struct Table {
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

std::string FormatTable(const Table& table);
absl::Status WriteCsv(const Table& table, const std::string& path);

// A horizontal bar per label, bars stacked from `segments` (e.g. the
// horizontal and vertical steps of a blur), with a dashed line at `floor`.
struct BarChart {
  std::string title;
  std::string unit;  // axis label, e.g. "GPU µs"
  std::vector<std::string> segment_names;
  std::vector<std::string> labels;
  std::vector<std::vector<double>> segments;  // per label, per segment
  double floor = 0;                           // 0: no floor line
};

std::string RenderSvg(const BarChart& chart);
absl::Status WriteFile(const std::string& path, const std::string& contents);

}  // namespace rgfx::client
