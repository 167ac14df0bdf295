#include "svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "output_file.hpp"
#include "tcgen/core/error.hpp"

namespace tcgen::cli {

namespace {
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}
std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}
}  // namespace

void Svg::extend(double x, double y) {
  width_ = std::max(width_, x);
  height_ = std::max(height_, y);
}

void Svg::rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke,
               double stroke_width) {
  // The stylesheet gives rects a #666 0.5 outline; anything else goes in style=, which overrides it.
  const bool plain = stroke == "#666" && stroke_width == 0.5;
  body_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" + num(h) +
           "\" fill=\"" + std::string(fill) + "\"" +
           (plain ? "" : " style=\"stroke:" + std::string(stroke) + ";stroke-width:" + num(stroke_width) + "\"") +
           "/>\n";
  extend(x + w, y + h);
}

void Svg::text(double x, double y, std::string_view s, double size, std::string_view anchor, bool bold,
               std::string_view fill) {
  body_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(size) + "\"" +
           (anchor == "start" ? "" : " text-anchor=\"" + std::string(anchor) + "\"") + (bold ? " font-weight=\"bold\"" : "") +
           (fill != "#000" ? " fill=\"" + std::string(fill) + "\"" : "") + ">" + escape(s) + "</text>\n";
  // Rough extent: monospace glyphs are about 0.6 em wide.
  const double w = (bold ? 0.66 : 0.61) * size * static_cast<double>(s.size());
  extend(anchor == "start" ? x + w : anchor == "middle" ? x + w / 2 : x, y + 0.3 * size);
}

void Svg::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width) {
  body_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
           "\" stroke=\"" + std::string(stroke) + "\" stroke-width=\"" + num(width) + "\"/>\n";
  extend(std::max(x1, x2), std::max(y1, y2));
}

void Svg::cell(double x, double y, double w, double h, std::string_view fill, std::string_view label, double size) {
  rect(x, y, w, h, fill);
  if (!label.empty()) text(x + w / 2, y + h / 2 + 0.35 * size, label, size, "middle");
}

std::string Svg::str() const {
  const double w = std::ceil(width_ + 10), h = std::ceil(height_ + 10);
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(w) + "\" height=\"" + num(h) +
         "\" viewBox=\"0 0 " + num(w) + " " + num(h) + "\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\">\n" +
         "<style>rect{stroke:#666;stroke-width:0.5}</style>\n" +
         "<rect x=\"0\" y=\"0\" width=\"" + num(w) + "\" height=\"" + num(h) + "\" fill=\"#ffffff\" style=\"stroke:none\"/>\n" + body_ +
         "</svg>\n";
}

void Svg::save(const std::string& path) const { write_output("--svg", path, str()); }

std::string hsl(double hue, double s, double l) {
  const double c = (1 - std::fabs(2 * l - 1)) * s;
  const double hp = std::fmod(hue, 360.0) / 60.0;
  const double x = c * (1 - std::fabs(std::fmod(hp, 2.0) - 1));
  double r = 0, g = 0, b = 0;
  if (hp < 1) r = c, g = x;
  else if (hp < 2) r = x, g = c;
  else if (hp < 3) g = c, b = x;
  else if (hp < 4) g = x, b = c;
  else if (hp < 5) r = x, b = c;
  else r = c, b = x;
  const double m = l - c / 2;
  char buf[8];
  auto to = [&](double v) { return static_cast<unsigned>(std::lround(std::clamp(v + m, 0.0, 1.0) * 255)); };
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", to(r), to(g), to(b));
  return buf;
}

double spread_hue(int i) { return std::fmod(i * 137.508, 360.0); }

}  // namespace tcgen::cli
