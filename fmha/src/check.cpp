#include "tcgen/fmha/check.hpp"

#include <vector>

#include "tcgen/core/element_type.hpp"

namespace tcgen::fmha {

FmhaCheck check_fmha(const CheckedFmhaProblem& p, const FmhaInputs& in, const FmhaOutput& out) {
  return check_fmha(p, fmha_reference(p, in.q, in.k, in.v), out);
}

FmhaCheck check_fmha(const CheckedFmhaProblem& checked, const FmhaResult<double>& reference, const FmhaOutput& out) {
  const FmhaProblem& p = checked;
  std::vector<float> o(out.o.size());
  for (std::size_t i = 0; i < o.size(); ++i) o[i] = decode(p.dtype, out.o[i]);
  const int rows = static_cast<int>(p.lse_elements());
  return {compare(o, reference.o, rows, p.head_dim, kFmhaOBound, ErrorMeasure::row_norm),
          compare(out.lse, reference.lse, rows, 1, kFmhaLseBound)};
}

}  // namespace tcgen::fmha
