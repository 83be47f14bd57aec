#include "tests/soak/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"

namespace rgfx::soak {
namespace {

std::string Escape(const std::string& text) {
  return absl::StrReplaceAll(text, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}});
}

std::string Number(double v) {
  if (std::fabs(v) >= 100 || v == std::floor(v)) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.3g", v);
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void Add(double v) {
    if (std::isnan(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return lo > hi; }
};

}  // namespace

std::vector<double> NiceTicks(double lo, double hi, int target_count) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(1, target_count);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  // Multiples of the step (not a running sum, which drifts: 0.2 * 3 != 0.6).
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1) {
    ticks.push_back(k == 0 ? 0.0 : k * step);
  }
  return ticks;
}

std::string RenderSvg(const Chart& chart, int width, int panel_height) {
  const int left = 80, right = 180, top = 56, gap = 50, bottom = 50;
  const int plot_w = width - left - right;
  const int plot_h = panel_height - gap;
  const int height = top + static_cast<int>(chart.panels.size()) * panel_height + bottom - gap;

  Range xr;
  for (const Panel& p : chart.panels) {
    for (const Series& s : p.series) {
      for (double x : s.x) xr.Add(x);
    }
  }
  if (xr.empty()) xr = {0, 1};
  if (xr.hi <= xr.lo) xr.hi = xr.lo + 1;
  const auto px = [&](double x) { return left + (x - xr.lo) / (xr.hi - xr.lo) * plot_w; };

  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>\n",
      width, height, left, Escape(chart.title));

  for (size_t pi = 0; pi < chart.panels.size(); ++pi) {
    const Panel& panel = chart.panels[pi];
    const int y0 = top + static_cast<int>(pi) * panel_height;  // panel's top
    Range yr;
    for (const Series& s : panel.series) {
      for (double y : s.y) yr.Add(y);
    }
    const bool has_data = !yr.empty();
    if (!has_data) yr = {0, 1};
    // Memory charts start at zero so a small growth looks small.
    yr.lo = std::min(0.0, yr.lo);
    const std::vector<double> yticks = NiceTicks(yr.lo, yr.hi * 1.05);
    const double ylo = yticks.front(), yhi = std::max(yticks.back(), yr.hi);
    const auto py = [&](double y) { return y0 + plot_h - (y - ylo) / (yhi - ylo) * plot_h; };

    absl::StrAppendFormat(&svg, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>\n", left,
                          y0 - 6, Escape(panel.title));
    absl::StrAppendFormat(&svg,
                          "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                          "stroke=\"#888\"/>\n",
                          left, y0, plot_w, plot_h);
    for (double t : yticks) {
      const double y = py(t);
      absl::StrAppendFormat(&svg,
                            "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
                            "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                            left, left + plot_w, y, y, left - 6, y + 4, Number(t));
    }
    absl::StrAppendFormat(&svg,
                          "<text transform=\"translate(%d,%d) rotate(-90)\" "
                          "text-anchor=\"middle\">%s</text>\n",
                          18, y0 + plot_h / 2, Escape(panel.y_label));
    for (double t : NiceTicks(xr.lo, xr.hi, 10)) {
      absl::StrAppendFormat(&svg,
                            "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", px(t),
                            y0 + plot_h + 16, Number(t));
    }
    for (const Marker& m : chart.markers) {
      absl::StrAppendFormat(&svg,
                            "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#999\" "
                            "stroke-dasharray=\"4,3\"/><text x=\"%.1f\" y=\"%d\" "
                            "fill=\"#666\">%s</text>\n",
                            px(m.x), px(m.x), y0, y0 + plot_h, px(m.x) + 3, y0 + 12,
                            Escape(m.label));
    }
    if (!has_data) {
      absl::StrAppendFormat(&svg,
                            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#a00\">%s</text>\n",
                            left + plot_w / 2, y0 + plot_h / 2,
                            Escape(panel.note.empty() ? "no data" : panel.note));
    }
    int legend_y = y0 + 14;
    for (const Series& s : panel.series) {
      std::string path;
      bool pen_down = false;
      for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
        if (std::isnan(s.y[i])) {
          pen_down = false;
          continue;
        }
        absl::StrAppendFormat(&path, "%s%.1f,%.1f ", pen_down ? "L" : "M", px(s.x[i]),
                              py(s.y[i]));
        pen_down = true;
      }
      if (!path.empty()) {
        absl::StrAppendFormat(&svg,
                              "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                              path, s.color);
      }
      absl::StrAppendFormat(&svg,
                            "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" "
                            "stroke-width=\"3\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
                            left + plot_w + 10, left + plot_w + 30, legend_y - 4, legend_y - 4,
                            s.color, left + plot_w + 35, legend_y, Escape(s.label));
      legend_y += 18;
    }
  }
  absl::StrAppendFormat(&svg, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                        left + plot_w / 2, height - 12, Escape(chart.x_label));
  svg += "</svg>\n";
  return svg;
}

}  // namespace rgfx::soak
