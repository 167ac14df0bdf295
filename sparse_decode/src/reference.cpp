#include "tcgen/sparse_decode/reference.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::sparse_decode {

namespace {

// The tokens row (b, s) takes from `keys`, dequantised, appended to `out` (512 values each).
void gather(const SparseDecodeShape& shape, const SparseKeys& keys, int b, int s,
            std::vector<float>& out) {
  const int n = keys.lengths.empty() ? keys.topk : keys.lengths[static_cast<std::size_t>(b)];
  std::array<float, Model1Layout::kDim> token;
  for (int j = 0; j < n; ++j) {
    const std::int32_t index =
        keys.indices[(static_cast<std::size_t>(b) * shape.s_q + static_cast<std::size_t>(s)) * keys.topk + j];
    if (index == -1) continue;  // check_sparse_keys has checked the rest
    dequantize_model1(keys.layout, keys.cache, index, token);
    out.insert(out.end(), token.begin(), token.end());
  }
}

}  // namespace

SparseDecodeResult sparse_decode_reference(const SparseDecodeShape& shape, std::span<const float> q,
                                           const SparseKeys& keys, const std::optional<SparseKeys>& extra,
                                           std::span<const float> sink, double scale) {
  constexpr int D = Model1Layout::kDim;
  const std::size_t rows = static_cast<std::size_t>(shape.batch) * shape.s_q * shape.heads;
  if (q.size() != rows * D)
    fail("q", std::to_string(q.size()) + " values", "expected " + std::to_string(rows * D) + ": [batch, s_q, heads, 512]");
  if (!sink.empty() && sink.size() != static_cast<std::size_t>(shape.heads))
    fail("sink", std::to_string(sink.size()) + " values", "expected one per head, " + std::to_string(shape.heads));
  check_sparse_keys(keys, shape.batch, shape.s_q, "keys");
  if (extra) check_sparse_keys(*extra, shape.batch, shape.s_q, "extra");

  SparseDecodeResult r{std::vector<double>(rows * D, 0.0), std::vector<double>(rows, 0.0)};
  std::vector<float> kv;
  std::vector<double> x;
  for (int b = 0; b < shape.batch; ++b)
    for (int s = 0; s < shape.s_q; ++s) {
      kv.clear();
      gather(shape, keys, b, s, kv);
      if (extra) gather(shape, *extra, b, s, kv);
      const std::size_t n = kv.size() / D;
      for (int h = 0; h < shape.heads; ++h) {
        const std::size_t row = (static_cast<std::size_t>(b) * shape.s_q + s) * shape.heads + h;
        double* o = r.o.data() + row * D;
        if (n == 0) {
          r.lse[row] = std::numeric_limits<double>::infinity();
          continue;
        }
        const float* qr = q.data() + row * D;
        x.assign(n, 0.0);
        double top = -std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < n; ++j) {
          double dot = 0;
          for (int d = 0; d < D; ++d) dot += double(qr[d]) * double(kv[j * D + d]);
          x[j] = scale * dot;
          top = std::max(top, x[j]);
        }
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) sum += std::exp(x[j] - top);
        const double lse = top + std::log(sum);
        for (std::size_t j = 0; j < n; ++j) {
          const double p = std::exp(x[j] - lse);
          for (int d = 0; d < D; ++d) o[d] += p * double(kv[j * D + d]);
        }
        if (!sink.empty()) {
          const double keep = 1.0 / (1.0 + std::exp(double(sink[static_cast<std::size_t>(h)]) - lse));
          for (int d = 0; d < D; ++d) o[d] *= keep;
        }
        r.lse[row] = lse;
      }
    }
  return r;
}

}  // namespace tcgen::sparse_decode
