#pragma once
// Host-only logging through spdlog. The level comes from TCGEN_LOG
// (trace, debug, info, warn, error, off; default warn).
#if defined(__CUDA_ARCH__)
#error "tcgen/core/log.hpp is host-only"
#endif
#include <spdlog/spdlog.h>

namespace tcgen {
spdlog::logger& log();
}  // namespace tcgen
