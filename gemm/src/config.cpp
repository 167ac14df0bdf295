#include "tcgen/gemm/config.hpp"

namespace tcgen::gemm {

std::string describe(const Config& c) {
  return std::string(name(c.ab)) + " x " + name(c.ab) + " -> " + name(c.d) + ", A " + layout::name(c.a_major) +
         "-major, B " + layout::name(c.b_major) + "-major, tile " + std::to_string(128 * c.cta_group) +
         "x" + std::to_string(c.tile_n) + (c.cta_group == 2 ? " on a CTA pair" : "") + ", " + std::to_string(c.stages) +
         " stages";
}

}  // namespace tcgen::gemm
