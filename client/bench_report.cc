#include "client/bench_report.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace rgfx::client {
namespace {

std::string CsvCell(const std::string& cell) {
  if (cell.find_first_of(",\"\n") == std::string::npos) return cell;
  return absl::StrCat("\"", absl::StrReplaceAll(cell, {{"\"", "\"\""}}), "\"");
}

std::string XmlEscape(const std::string& text) {
  return absl::StrReplaceAll(text, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}});
}

}  // namespace

std::string FormatTable(const Table& table) {
  std::vector<size_t> widths(table.columns.size());
  for (size_t c = 0; c < table.columns.size(); ++c) widths[c] = table.columns[c].size();
  for (const auto& row : table.rows) {
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < widths.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      // First column left-aligned (names), the rest right-aligned (numbers).
      out += c == 0 ? absl::StrFormat("%-*s", widths[c], cell)
                    : absl::StrFormat("  %*s", widths[c], cell);
    }
    return out + "\n";
  };
  std::string out = table.title.empty() ? "" : table.title + "\n";
  out += line(table.columns);
  size_t total = 0;
  for (size_t w : widths) total += w + 2;
  out += std::string(total - 2, '-') + "\n";
  for (const auto& row : table.rows) out += line(row);
  return out;
}

absl::Status WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::Status WriteCsv(const Table& table, const std::string& path) {
  std::string out;
  auto row_text = [](const std::vector<std::string>& cells) {
    std::vector<std::string> escaped;
    for (const auto& c : cells) escaped.push_back(CsvCell(c));
    return absl::StrJoin(escaped, ",") + "\n";
  };
  out += row_text(table.columns);
  for (const auto& row : table.rows) out += row_text(row);
  return WriteFile(path, out);
}

std::string RenderSvg(const BarChart& chart) {
  const double label_width = 150, bar_area = 560, bar_height = 22, gap = 8, top = 50;
  const double height = top + chart.labels.size() * (bar_height + gap) + 60;
  double max_total = chart.floor;
  for (const auto& segs : chart.segments) {
    double total = 0;
    for (double v : segs) total += v;
    max_total = std::max(max_total, total);
  }
  if (max_total <= 0) max_total = 1;
  const double scale = bar_area / max_total;
  static const char* kColors[] = {"#4C78A8", "#F58518", "#54A24B", "#B279A2", "#9D755D"};
  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>\n",
      label_width + bar_area + 120, height, XmlEscape(chart.title));
  for (size_t i = 0; i < chart.labels.size(); ++i) {
    const double y = top + i * (bar_height + gap);
    svg += absl::StrFormat("<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                           label_width - 8, y + bar_height * 0.7, XmlEscape(chart.labels[i]));
    double x = label_width;
    double total = 0;
    for (size_t s = 0; s < chart.segments[i].size(); ++s) {
      const double w = chart.segments[i][s] * scale;
      svg += absl::StrFormat(
          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"/>\n", x, y, w,
          bar_height, kColors[s % 5]);
      x += w;
      total += chart.segments[i][s];
    }
    svg += absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\">%.1f</text>\n", x + 4,
                           y + bar_height * 0.7, total);
  }
  const double axis_y = top + chart.labels.size() * (bar_height + gap);
  if (chart.floor > 0) {
    const double fx = label_width + chart.floor * scale;
    svg += absl::StrFormat(
        "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#E45756\" "
        "stroke-dasharray=\"4 3\"/>\n<text x=\"%.1f\" y=\"%.0f\" fill=\"#E45756\">copy floor</text>\n",
        fx, top - 6, fx, axis_y, fx + 3, top - 8);
  }
  svg += absl::StrFormat("<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", label_width, axis_y + 18,
                         XmlEscape(chart.unit));
  double legend_x = label_width;
  for (size_t s = 0; s < chart.segment_names.size(); ++s) {
    svg += absl::StrFormat(
        "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
        "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
        legend_x, axis_y + 30, kColors[s % 5], legend_x + 16, axis_y + 40,
        XmlEscape(chart.segment_names[s]));
    legend_x += 24 + 8 * chart.segment_names[s].size();
  }
  return svg + "</svg>\n";
}

}  // namespace rgfx::client
