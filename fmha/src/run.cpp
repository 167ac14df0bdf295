#include "tcgen/fmha/run.hpp"

namespace tcgen::fmha {

template FmhaRun run(const CheckedFmhaProblem&, const FmhaOperands&, const FmhaOptions&, const exec::HostModel&);

}  // namespace tcgen::fmha
