#include "tcgen/core/log.hpp"

#include <cstdlib>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace tcgen {

spdlog::logger& log() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto l = spdlog::stderr_color_mt("tcgen");
    const char* level = std::getenv("TCGEN_LOG");
    l->set_level(level ? spdlog::level::from_str(level) : spdlog::level::warn);
    return l;
  }();
  return *logger;
}

}  // namespace tcgen
