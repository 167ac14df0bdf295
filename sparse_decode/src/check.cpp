#include "tcgen/sparse_decode/check.hpp"

#include <vector>

#include "tcgen/core/element_type.hpp"

namespace tcgen::sparse_decode {

SparseDecodeCheck check_sparse_decode(const SparseDecodeResult& reference, const SparseDecodeOutput& out) {
  std::vector<float> o(out.o.size());
  for (std::size_t i = 0; i < o.size(); ++i) o[i] = decode(ElementType::bf16, out.o[i]);
  const int rows = static_cast<int>(out.lse.size());
  return {compare(o, reference.o, rows, Model1Layout::kDim, kSparseOBound, ErrorMeasure::row_norm),
          compare(out.lse, reference.lse, rows, 1, kSparseLseBound)};
}

}  // namespace tcgen::sparse_decode
