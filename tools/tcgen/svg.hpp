#pragma once
// A hand-written SVG canvas: rectangles, text and lines, the size found from
// what was drawn. Enough for the grids the verbs draw with --svg.
#include <string>
#include <string_view>

namespace tcgen::cli {

class Svg {
 public:
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke = "#666",
            double stroke_width = 0.5);
  // anchor: "start", "middle" or "end"; y is the baseline.
  void text(double x, double y, std::string_view s, double size, std::string_view anchor = "start",
            bool bold = false, std::string_view fill = "#000");
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width);
  // A rectangle with a centred label.
  void cell(double x, double y, double w, double h, std::string_view fill, std::string_view label, double size);

  std::string str() const;
  // Throws tcgen::Error("--svg", path, ...) when the file cannot be written.
  void save(const std::string& path) const;

 private:
  void extend(double x, double y);
  std::string body_;
  double width_ = 0, height_ = 0;
};

// Fill colour #rrggbb from hue (degrees), saturation and lightness in [0, 1].
std::string hsl(double hue, double saturation, double lightness);
// The i-th of n well-separated hues (golden-angle steps).
double spread_hue(int i);

}  // namespace tcgen::cli
