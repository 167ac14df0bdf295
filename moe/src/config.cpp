#include "tcgen/moe/config.hpp"

namespace tcgen::moe {

std::string describe(const Config& c) {
  return std::string(name(c.a)) + " x " + name(c.w) + " -> bf16" + (c.swiglu ? ", SwiGLU" : "") + ", " +
         std::to_string(c.stages) + " stages";
}

}  // namespace tcgen::moe
