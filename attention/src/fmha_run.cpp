#include "tcgen/attention/fmha_run.hpp"

namespace tcgen::attention {

template FmhaRun run(const CheckedFmhaProblem&, const FmhaOperands&, const FmhaOptions&, const exec::HostModel&);

}  // namespace tcgen::attention
