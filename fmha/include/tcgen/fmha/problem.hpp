#pragma once
// One FMHA forward problem: the shapes of Q, K, V in global memory, the
// element type, the mask and the softmax scale. Everything that runs an FMHA
// (the kernel on the host model or a B200, the fp64 reference, the CLI) takes
// this one description.
//
// Arrays (row-major, head_dim contiguous):
//   Q, O  [batch, heads, seq_q, head_dim]       LSE [batch, heads, seq_q], natural log
//   K, V  [batch, heads_kv, seq_k, head_dim]
// Grouped-query attention: query head h reads K/V head h / (heads / heads_kv).
//
// Mask: query row i sees key j iff
//   j <= diagonal(i) + right   and   j >= diagonal(i) - left,
// where an extent of -1 is unbounded; causal is right = 0. The diagonal is
// aligned to a corner of the seq_q x seq_k score matrix:
//   bottom-right  diagonal(i) = i + (seq_k - seq_q): the last query sees the
//                 last key (FlashAttention's causal=True, PyTorch's
//                 causal_lower_right); the default;
//   top-left      diagonal(i) = i: query i sees keys 0..i (PyTorch's
//                 scaled_dot_product_attention(is_causal=True), causal_upper_left).
// The two agree when seq_q == seq_k. A row that sees no key (bottom-right
// causal with seq_q > seq_k) has O = 0, LSE = -inf.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tcgen/attention/softmax_scale.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/backend.hpp"

namespace tcgen::fmha {

// The keys one query row sees: [begin, end), empty when begin >= end.
struct KeyRange {
  int begin = 0, end = 0;
};

// The corner of the score matrix that a mask's diagonal passes through.
enum class MaskCorner { bottom_right, top_left };

struct FmhaMask {
  int left = -1, right = -1;  // window extents in keys; -1: unbounded
  MaskCorner corner = MaskCorner::bottom_right;

  static constexpr FmhaMask none() { return {}; }
  static constexpr FmhaMask causal(MaskCorner corner = MaskCorner::bottom_right) { return {-1, 0, corner}; }
  static constexpr FmhaMask window(int left, int right, MaskCorner corner = MaskCorner::bottom_right) {
    return {left, right, corner};
  }

  constexpr TCGEN_HD bool is_causal() const { return left < 0 && right == 0; }
  // Query row `row` of seq_q against seq_k keys. In 64 bits: an extent up
  // to INT_MAX must not wrap.
  constexpr TCGEN_HD KeyRange keys(int row, int seq_q, int seq_k) const {
    const long long diagonal = static_cast<long long>(row) + (corner == MaskCorner::top_left ? 0 : seq_k - seq_q);
    long long begin = 0, end = seq_k;
    if (left >= 0 && diagonal - left > begin) begin = diagonal - left;
    if (right >= 0 && diagonal + right + 1 < end) end = diagonal + right + 1;
    return {static_cast<int>(begin < seq_k ? begin : seq_k), static_cast<int>(end > 0 ? end : 0)};
  }
};

// When the MMA warp may overwrite P_t(j−1) with S_t(j) = Q_t·K_jᵀ, right
// after issuing the P·V that reads it (docs/fmha.md, Ordering):
//   issue_order  at once, as FA4 and CUTLASS example 77 do: one thread's MMAs
//                run in issue order (UNCONFIRMED beyond PTX, which promises it
//                only for the same accumulator and shape);
//   wait_for_pv  once that P·V has completed (its commit waited on): PTX's
//                letter, at the cost of a tensor-pipe bubble per block. The
//                host model's strict mode (LaunchOptions::strict_mma_pipelining)
//                accepts only this one.
enum class PReuse { issue_order, wait_for_pv };

struct FmhaProblem {
  int batch = 1, heads = 1, heads_kv = 1;
  int seq_q = 0, seq_k = 0, head_dim = 128;
  ElementType dtype = ElementType::bf16;  // Q, K, V, O (and P in TMEM): bf16 or fp16
  FmhaMask mask;
  attention::SoftmaxScale scale = attention::SoftmaxScale::for_head_dim(128);  // make() sets 1/sqrt(head_dim)

  // The usual problem, with the default scale 1/sqrt(head_dim) (set `scale`
  // after it for another; it is always printed by the tools).
  static FmhaProblem make(int batch, int heads, int heads_kv, int seq_q, int seq_k, int head_dim,
                          FmhaMask mask = FmhaMask::none(), ElementType dtype = ElementType::bf16);

  // Throws tcgen::Error naming the field ("batch", "heads", "heads_kv",
  // "seq_q", "seq_k", "head_dim", "dtype", "mask.left", "mask.right") with the
  // value and what was expected. head_dim must be 64, 128 or 256; batch and
  // heads at most 65535 (the launch grid's z and y).
  void validate() const;

  std::size_t q_elements() const;   // batch · heads · seq_q · head_dim (also O)
  std::size_t kv_elements() const;  // batch · heads_kv · seq_k · head_dim (each of K, V)
  std::size_t lse_elements() const; // batch · heads · seq_q
  // Throws tcgen::Error naming "q", "k" or "v" when an array does not hold
  // q_elements() / kv_elements() values.
  void check_sizes(std::size_t q, std::size_t k, std::size_t v) const;
  // Grouped-query attention: the K/V head that query head `head` (of one
  // batch entry) reads.
  constexpr TCGEN_HD int kv_head(int head) const { return head / (heads / heads_kv); }
  // FLOPs of the two GEMMs over the keys the mask lets through (4 · Σ_rows keys · head_dim).
  double flops() const;
};

// A problem validate() has accepted. Everything that runs or checks an FMHA
// (the runners, the reference, the inputs, the check) takes one, so a caller
// that validates once (the CLI) passes the checked problem on and nothing
// validates again; passing a plain FmhaProblem validates it on the way.
class CheckedFmhaProblem {
 public:
  CheckedFmhaProblem(const FmhaProblem& p) : p_(p) { p_.validate(); }  // implicit: validates
  operator const FmhaProblem&() const { return p_; }

 private:
  FmhaProblem p_;
};

// The kernel's choices, apart from the maths: the reference never sees them.
struct FmhaOptions {
  PReuse p_reuse = PReuse::issue_order;
};

// What an FMHA run reads: Q, K, V as problem.dtype bit patterns, in the layouts above.
struct FmhaOperands {
  std::span<const std::uint16_t> q, k, v;
};

// What an FMHA run returns, in the layouts above.
struct FmhaOutput {
  std::vector<std::uint16_t> o;  // [batch, heads, seq_q, head_dim], problem.dtype bits
  std::vector<float> lse;        // [batch, heads, seq_q], natural log
};

// What a runner returns (run.hpp, sm100_runner.hpp).
struct FmhaRun {
  FmhaOutput out;
  exec::RunStats stats;
};

}  // namespace tcgen::fmha
