#pragma once
// Every rule the host model checks: one row each, with the PTX section (by
// anchor, https://docs.nvidia.com/cuda/parallel-thread-execution/#<anchor>)
// that states it and the sentence an error prints. A ModelError carries one.
#include "tcgen/core/rule_table.hpp"

namespace tcgen::model {

#define TCGEN_MODEL_RULES(X)                                                                                         \
  X(tmem_outside_allocation, "tcgen05-instructions-tcgen05-alloc",                                                   \
    "Tensor Memory may be accessed only in columns allocated by tcgen05.alloc and not yet freed")                    \
  X(tmem_used_after_free, "tcgen05-instructions-tcgen05-alloc",                                                      \
    "Tensor Memory may be accessed only in columns allocated by tcgen05.alloc and not yet freed by tcgen05.dealloc") \
  X(lane_quarter, "tcgen05-tensor-memory-ld-st-access-restrictions",                                                 \
    "with tcgen05.ld/st, warp w may access only Tensor Memory lanes 32*(w%4) to 32*(w%4)+31")                        \
  X(lane_quarter_implied, "tcgen05-tensor-memory-ld-st-access-restrictions",                                        \
    "a tcgen05.ld/st taddr names the lanes it accesses: warp w's lie in 32*(w%4) to 32*(w%4)+31, not at lane 0")   \
  X(tmem_lane_past_127, "tcgen05-tensor-memory-ld-st-access-restrictions",                                          \
    "a tcgen05.ld/st taddr's lane field names one of the CTA's 128 Tensor Memory lanes, 0 to 127")                 \
  X(taddr_not_uniform, "tcgen05-instructions-tcgen05-ld",                                                            \
    "all threads of the warp must give the same taddr, the base address of the collective access")                   \
  X(ldst_access, "tcgen05-instructions-tcgen05-ld",                                                                  \
    ".num is a power of two giving at most 128 registers per thread (Tables 49/50), and each thread supplies "       \
    "exactly that many")                                                                                             \
  X(uninitialized_tmem, "tcgen05-instructions-tcgen05-alloc",                                                        \
    "Tensor Memory holds no defined value after tcgen05.alloc until an MMA, tcgen05.st or tcgen05.cp writes it")     \
  X(mma_not_complete, "tcgen05-memory-consistency-model",                                                            \
    "the result of tcgen05.mma or tcgen05.cp may be accessed only after tcgen05.commit arrives on an mbarrier and "  \
    "the accessing warp has waited on that phase")                                                                   \
  X(missing_after_thread_sync, "tcgen05-instructions-tcgen05-fence",                                                 \
    "after the wait that observes an asynchronous tcgen05 operation, tcgen05.fence::after_thread_sync must come "    \
    "before the tcgen05 access that depends on it")                                                                  \
  X(st_without_wait, "tcgen05-instructions-tcgen05-wait",                                                            \
    "cells written by tcgen05.st may be read by tcgen05.ld or tcgen05.mma only after tcgen05.wait::st")              \
  X(st_published_unwaited, "tcgen05-instructions-tcgen05-wait",                                                     \
    "cells written by tcgen05.st may be read by another warp only after the writing warp's tcgen05.wait::st, "      \
    "not merely after its next barrier or mbarrier arrival")                                                        \
  X(ld_without_wait, "tcgen05-instructions-tcgen05-wait",                                                            \
    "cells that tcgen05.ld reads may be overwritten by tcgen05.mma or tcgen05.cp only after tcgen05.wait::ld")       \
  X(unordered_tmem_access, "tcgen05-memory-consistency-model",                                                       \
    "a tcgen05 access to cells another thread's tcgen05 operation touched must be ordered after it: "                \
    "tcgen05.fence::before_thread_sync (or tcgen05.commit), a barrier or mbarrier, then "                            \
    "tcgen05.fence::after_thread_sync")                                                                              \
  X(missing_before_thread_sync, "tcgen05-memory-consistency-model",                                                  \
    "a tcgen05.st or tcgen05.ld, complete after its wait::st or wait::ld, is ordered before another thread's "      \
    "tcgen05 access by tcgen05.fence::before_thread_sync, then a barrier or mbarrier, then "                        \
    "tcgen05.fence::after_thread_sync in that thread")                                                              \
  X(mma_not_pipelined, "tcgen05-memory-consistency-model-pipelined-instructions",                                     \
    "two tcgen05.mma are pipelined (ordered without a wait) only with the same .cta_group, accumulator and shape "   \
    "(newer PTX: and kind); otherwise the later may touch cells the earlier wrote or read only once the earlier is " \
    "complete (checked in strict mma pipelining mode)")                                                              \
  X(cp_not_pipelined, "tcgen05-memory-consistency-model-pipelined-instructions",                                      \
    "tcgen05.cp is pipelined only after tcgen05.shift (.4x256b); a tcgen05.cp that rewrites cells the same thread's " \
    "earlier tcgen05.cp or tcgen05.mma touched is ordered after it only once that one is complete")                 \
  X(alloc_address_before_barrier, "tcgen05-instructions-tcgen05-alloc",                                              \
    "tcgen05.alloc stores the address with a weak store: another warp may read it only after a barrier")             \
  X(alloc_after_relinquish, "tcgen05-instructions-tcgen05-alloc",                                                    \
    "tcgen05.alloc is illegal after any thread of the CTA executed tcgen05.relinquish_alloc_permit")                 \
  X(alloc_columns, "tcgen05-instructions-tcgen05-alloc", "nCols must be a power of two in [32, 512]")                \
  X(alloc_increase, "tcgen05-instructions-tcgen05-alloc",                                                            \
    "the number of columns allocated should not increase between two allocations of the CTA")                        \
  X(alloc_unavailable, "tcgen05-instructions-tcgen05-alloc",                                                         \
    "tcgen05.alloc blocks until enough Tensor Memory is free, so with the CTA's own allocations holding it the "     \
    "warp never resumes")                                                                                            \
  X(dealloc_mismatch, "tcgen05-instructions-tcgen05-alloc",                                                          \
    "tcgen05.dealloc's taddr and nCols must name a previous, live allocation")                                       \
  X(tmem_not_freed, "tcgen05-instructions-tcgen05-alloc",                                                            \
    "all Tensor Memory allocated by tcgen05.alloc must be freed by tcgen05.dealloc before the kernel exits")         \
  X(mixed_cta_group, "tcgen05-instructions-tcgen05-alloc",                                                           \
    "all tcgen05 instructions within a kernel must specify the same .cta_group")                                     \
  X(pair_missing, "tcgen05-issue-granularity",                                                                     \
    "a .cta_group::2 instruction acts on a CTA pair, two CTAs of one cluster whose %cluster_ctarank differs in "     \
    "the last bit only: the issuing CTA needs its peer in the cluster")                                              \
  X(pair_alloc_mismatch, "tcgen05-issue-granularity",                                                                \
    "tcgen05.alloc/dealloc .cta_group::2 are performed collectively by one warp in each CTA of the pair, with the "  \
    "same nCols")                                                                                                    \
  X(pair_mma_by_odd_cta, "tcgen05-issue-granularity",                                                                \
    "PTX lets either CTA of the pair issue a .cta_group::2 tcgen05.mma, but CUTLASS and the public 2-CTA kernels "   \
    "issue them from the even CTA (%cluster_ctarank & 1 = 0) only")                                                  \
  X(descriptor_invalid, "tcgen05-shared-memory-descriptor",                                                          \
    "a shared-memory matrix descriptor needs valid fields: fixed bits, reserved bits, swizzle code")                 \
  X(idesc_invalid, "tcgen05-instruction-descriptor",                                                                 \
    "the instruction descriptor's fields must be valid for the MMA kind: types, shape (Table 39), reserved bits")    \
  X(smem_outside_image, "tcgen05-shared-memory-descriptor",                                                          \
    "every shared-memory byte an instruction reads or writes must lie in the CTA's shared memory")                   \
  X(proxy_fence_missing, "tcgen05-memory-consistency-model-smem-access",                                             \
    "tcgen05.mma and tcgen05.cp read shared memory through the async proxy: bytes written by ordinary stores need "  \
    "fence.proxy.async by the writing warp first")                                                                   \
  X(mma_lane_offset, "tcgen05-data-path-layout-organization",                                                        \
    "d-tmem's lane must be 0 for Layout D (M = 128) and 0 or 16 for Layout F (M = 64); [a-tmem] must use the same "  \
    "lane as d-tmem")                                                                                                \
  X(ts_a_major, "tcgen05-matrices-majorness", "A in Tensor Memory is K-major: idesc transpose-A must be 0")          \
  X(scale_factors, "tcgen05-block-scaling",                                                                          \
    "the scale factors of a block-scaled tcgen05.mma start at lane 0 of [scale-A-tmem] and [scale-B-tmem], are "    \
    "duplicated to all four 32-lane partitions of Tensor Memory, and are UE8M0 values or (kind::mxf4nvf4) UE4M3 "   \
    "values, which have no sign bit")                                                                               \
  X(mbarrier_address, "parallel-synchronization-and-communication-instructions-mbarrier-size-alignment",             \
    "an mbarrier is an 8-byte-aligned 64-bit object in the CTA's shared memory")                                     \
  X(mbarrier_uninitialized, "parallel-synchronization-and-communication-instructions-mbarrier-init",                 \
    "an mbarrier must be initialized by mbarrier.init before any other operation on it")                             \
  X(mbarrier_reinit, "parallel-synchronization-and-communication-instructions-mbarrier-init",                        \
    "mbarrier.init on a valid mbarrier is undefined: invalidate it with mbarrier.inval first")                       \
  X(mbarrier_count, "parallel-synchronization-and-communication-instructions-mbarrier-contents",                     \
    "the expected arrival count lies in [1, 2^20 - 1]")                                                              \
  X(mbarrier_arrivals, "parallel-synchronization-and-communication-instructions-mbarrier-contents",                  \
    "an arrival may not exceed the pending arrival count of the current phase")                                      \
  X(mbarrier_tx, "parallel-synchronization-and-communication-instructions-mbarrier-contents",                        \
    "the tx-count stays within [-(2^20 - 1), 2^20 - 1]")                                                             \
  X(unsupported, "", "the host model does not execute this form")

TCGEN_RULE_ENUM(Rule, TCGEN_MODEL_RULES);
TCGEN_RULE_LOOKUPS(Rule, TCGEN_MODEL_RULES)

// A fault: the hardware traps or computes garbage, so the run stops. A PTX
// letter: the text asks for it, but kernels that run on B200s omit it, so
// by default it is a counted warning and the run goes on as if it had been
// obeyed (CtaConfig::letters_as_errors makes it an error). A convention:
// PTX allows it, but no silicon-proven kernel does it, so it is warned of
// the same way. docs/model.md gives the evidence for each.
enum class Severity { fault, letter, convention };

constexpr Severity severity(Rule r) {
  switch (r) {
    // NVIDIA's CUTLASS Blackwell GEMM and FMHA examples and ThunderKittens'
    // B200 GEMM issue no tcgen05.fence::* at all (ptx-opcodes/README.md).
    case Rule::missing_after_thread_sync:
    // CuTe's Blackwell tutorial 01 (cutlass examples/cute/tutorial/blackwell/
    // 01_mma_sm100.cu) writes its operands with st.shared, then
    // __syncthreads, then UMMA: no fence.proxy.async.
    case Rule::proxy_fence_missing:
    // CUTLASS's FMHA (77_blackwell_fmha, B200s): softmax warps tcgen05.st P, wait::st and arrive on an
    // mbarrier; the MMA warp waits and reads P in a TS-MMA; no fence on either side. Triton 3.9's
    // tl.dot zeroes its accumulator so, through bar.sync. The store, complete, is taken as published.
    case Rule::missing_before_thread_sync:
    // CUTLASS's FMHA (77_blackwell_fmha) stores the softmax row statistics with tcgen05.st and signals
    // its correction warps through an mbarrier at once, with no tcgen05.wait::st between.
    case Rule::st_published_unwaited:
    // "should not increase": PTX's own words are a recommendation.
    case Rule::alloc_increase:
    // gau-nernst's 2-SM GEMMs (learn-cuda 02e_matmul_sm100 v5-v7, checked
    // against PyTorch on B200s) read the odd CTA's rows of an M = 256 D at
    // lanes 128-255: the hardware takes the lane modulo 128.
    case Rule::tmem_lane_past_127:
    // FlashMLA's MODEL1 sparse decode (csrc/sm100/decode/head64, run on
    // B200s by DeepSeek) gives tcgen05.ld/st the column alone from warps of
    // every quarter: the hardware takes the warp's own lanes.
    case Rule::lane_quarter_implied:
    // CUTLASS's block-scaled GEMMs (72b_blackwell_nvfp4_nvfp4_gemm, B200s) copy each k-block's scale
    // factors into the columns the previous k-block's tcgen05.cp filled and its MMA read, from the one
    // MMA thread, with no commit and wait between: one thread's tcgen05 operations run in issue order.
    case Rule::cp_not_pipelined:
    // CUTLASS's FMHA backward (77_blackwell_fmha_bwd, B200s) frees Tensor Memory from its compute warps
    // while its MMA warp, unordered with them, issues its last dQ MMAs: freed cells keep their values.
    case Rule::tmem_used_after_free: return Severity::letter;
    // CUTLASS's 2-SM MMAs run under `if (is_mma_leader_cta)` (rank & 1 = 0),
    // as do tutorials 04 and 05 and ThunderKittens' 2-CTA GEMM.
    case Rule::pair_mma_by_odd_cta: return Severity::convention;
    // mma_not_pipelined: FA4 and CUTLASS example 77 pipeline mma pairs of
    // different shapes, so it is checked only when asked (strict mma
    // pipelining), and then it is an error.
    default: return Severity::fault;
  }
}

constexpr const char* name(Rule r) { return rule_code(r); }
// The PTX anchor, "" for Rule::unsupported (a limit of the model, not of PTX).
constexpr const char* anchor(Rule r) { return rule_field(r); }
constexpr const char* sentence(Rule r) { return rule_sentence(r); }

}  // namespace tcgen::model
