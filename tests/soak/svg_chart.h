// A small SVG line-chart writer for the soak's report (RSS and GPU memory
// over time): panels stacked vertically, each with its own y axis, sharing
// the x axis (seconds), with vertical markers for the soak's phases.
#pragma once

#include <string>
#include <vector>

namespace rgfx::soak {

struct Series {
  std::string label;
  std::string color;  // any SVG colour, e.g. "#1f77b4"
  std::vector<double> x;
  std::vector<double> y;  // same length as x; NaN leaves a gap
};

struct Marker {
  double x = 0;
  std::string label;
};

struct Panel {
  std::string title;
  std::string y_label;  // unit included, e.g. "MiB"
  std::vector<Series> series;
  std::string note;  // shown in the panel when it has no data (why)
};

struct Chart {
  std::string title;
  std::string x_label;
  std::vector<Panel> panels;
  std::vector<Marker> markers;
};

// A complete SVG document, `width` pixels wide, each panel `panel_height` high.
std::string RenderSvg(const Chart& chart, int width = 900, int panel_height = 260);

// "Nice" axis ticks inside [lo, hi]: multiples of 1, 2 or 5 times a power of ten.
std::vector<double> NiceTicks(double lo, double hi, int target_count = 6);

}  // namespace rgfx::soak
