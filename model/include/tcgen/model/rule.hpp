#pragma once
// Every rule the host model and its PTX interpreter check: one row each, with
// the PTX section (by anchor,
// https://docs.nvidia.com/cuda/parallel-thread-execution/#<anchor>) that
// states it, the sentence an error prints, and its severity. A ModelError
// carries one; Cta::raise throws or counts it by its severity, so
// reclassifying a rule is a change of its row alone.
#include "tcgen/core/rule_table.hpp"

namespace tcgen::model {

// A fault: the hardware traps or computes garbage, so the run stops. A PTX
// letter: the text asks for it, but kernels that run on B200s omit it, so
// by default it is a counted warning and the run goes on as if it had been
// obeyed (CtaConfig::letters_as_errors makes it an error). A convention:
// PTX allows it, but no silicon-proven kernel does it, so it is warned of
// the same way. docs/model.md gives the evidence for each; a row's comment
// names it.
enum class Severity { fault, letter, convention };

#define TCGEN_MODEL_RULES(X)                                                                                         \
  X(tmem_outside_allocation, "tcgen05-instructions-tcgen05-alloc",                                                   \
    "Tensor Memory may be accessed only in columns allocated by tcgen05.alloc and not yet freed", fault)             \
  /* 77_blackwell_fmha_bwd frees from a compute warp while its MMA warp writes dQ */                                 \
  X(tmem_used_after_free, "tcgen05-instructions-tcgen05-alloc",                                                      \
    "Tensor Memory may be accessed only in columns allocated by tcgen05.alloc and not yet freed by tcgen05.dealloc", \
    letter)                                                                                                          \
  X(lane_quarter, "tcgen05-tensor-memory-ld-st-access-restrictions",                                                 \
    "with tcgen05.ld/st, warp w may access only Tensor Memory lanes 32*(w%4) to 32*(w%4)+31", fault)                 \
  /* FlashMLA's MODEL1 decode gives the column alone from every quarter; DeepGEMM's sm100 kernels too */          \
  X(lane_quarter_implied, "tcgen05-tensor-memory-ld-st-access-restrictions",                                         \
    "a tcgen05.ld/st taddr names the lanes it accesses: warp w's lie in 32*(w%4) to 32*(w%4)+31",                    \
    letter)                                                                                                          \
  /* gau-nernst's 2-SM GEMMs read the odd CTA's rows at lanes 128-255 */                                             \
  X(tmem_lane_past_127, "tcgen05-tensor-memory-ld-st-access-restrictions",                                           \
    "a tcgen05.ld/st taddr's lane field names one of the CTA's 128 Tensor Memory lanes, 0 to 127", letter)           \
  X(taddr_not_uniform, "tcgen05-instructions-tcgen05-ld",                                                            \
    "all threads of the warp must give the same taddr, the base address of the collective access", fault)            \
  X(ldst_access, "tcgen05-instructions-tcgen05-ld",                                                                  \
    ".num is a power of two giving at most 128 registers per thread (Tables 49/50), and each thread supplies "       \
    "exactly that many", fault)                                                                                      \
  X(uninitialized_tmem, "tcgen05-instructions-tcgen05-alloc",                                                        \
    "Tensor Memory holds no defined value after tcgen05.alloc until an MMA, tcgen05.st or tcgen05.cp writes it",     \
    fault)                                                                                                           \
  /* a B200 returns stale bits for such cells: a kernel may load them and discard them (Memcheck's rule) */          \
  X(undefined_value_used, "tcgen05-instructions-tcgen05-alloc",                                                      \
    "a value loaded from Tensor Memory that holds none (never written since tcgen05.alloc, or computed by an MMA "   \
    "from such cells), or from shared or local memory never written since the CTA or thread started, "             \
    "may be loaded, moved and discarded, but not stored to global memory nor used as an address, "                  \
    "a guard or selp predicate, or an operand of a tcgen05, mbarrier or TMA instruction (PTX interpreter)", fault)   \
  X(mma_not_complete, "tcgen05-memory-consistency-model",                                                            \
    "the result of tcgen05.mma or tcgen05.cp may be accessed only after tcgen05.commit arrives on an mbarrier and "  \
    "the accessing warp has waited on that phase", fault)                                                            \
  /* CUTLASS's GEMM and FMHA, ThunderKittens: no tcgen05.fence::* at all */                                          \
  X(missing_after_thread_sync, "tcgen05-instructions-tcgen05-fence",                                                 \
    "after the wait that observes an asynchronous tcgen05 operation, tcgen05.fence::after_thread_sync must come "    \
    "before the tcgen05 access that depends on it", letter)                                                          \
  X(st_without_wait, "tcgen05-instructions-tcgen05-wait",                                                            \
    "cells written by tcgen05.st may be read by tcgen05.ld or tcgen05.mma only after tcgen05.wait::st", fault)       \
  /* B200s run a .sync.aligned tcgen05.ld or wait for the lanes that reach it, the others later (see docs) */       \
  X(aligned_lanes_apart, "tcgen05-instructions-tcgen05-ld",                                                          \
    "all 32 threads of the warp must execute the same .sync.aligned tcgen05 instruction together", letter)          \
  /* CUTLASS's stream-K tile scheduler (sm100_tile_scheduler_stream_k.hpp, tmem_fixup) stores the reduced */         \
  /* accumulators and its epilogue, the same warps, loads them with no wait::st between */                            \
  X(st_read_back_unwaited, "tcgen05-instructions-tcgen05-wait",                                                      \
    "cells a warp wrote with tcgen05.st may be read by its own tcgen05.ld only after tcgen05.wait::st", letter)     \
  /* 77_blackwell_fmha arrives right after its statistics' tcgen05.st */                                             \
  X(st_published_unwaited, "tcgen05-instructions-tcgen05-wait",                                                      \
    "cells written by tcgen05.st may be read by another warp only after the writing warp's tcgen05.wait::st, "       \
    "not merely after its next barrier or mbarrier arrival", letter)                                                 \
  /* 77_blackwell_fmha_gen's correction warp loads the final row statistics and releases them at once */            \
  X(ld_published_unwaited, "tcgen05-instructions-tcgen05-wait",                                                      \
    "cells read by tcgen05.ld may be overwritten by another warp only after the reading warp's tcgen05.wait::ld, "   \
    "not merely after its next barrier or mbarrier arrival", letter)                                                 \
  X(ld_without_wait, "tcgen05-instructions-tcgen05-wait",                                                            \
    "cells that tcgen05.ld reads may be overwritten by tcgen05.mma or tcgen05.cp only after tcgen05.wait::ld", fault)\
  X(unordered_tmem_access, "tcgen05-memory-consistency-model",                                                       \
    "a tcgen05 access to cells another thread's tcgen05 operation touched must be ordered after it: "                \
    "tcgen05.fence::before_thread_sync (or tcgen05.commit), a barrier or mbarrier, then "                            \
    "tcgen05.fence::after_thread_sync", fault)                                                                       \
  /* 77_blackwell_fmha, Triton 3.9's tl.dot: st, wait::st, barrier, no fence */                                      \
  X(missing_before_thread_sync, "tcgen05-memory-consistency-model",                                                  \
    "a tcgen05.st or tcgen05.ld, complete after its wait::st or wait::ld, is ordered before another thread's "       \
    "tcgen05 access by tcgen05.fence::before_thread_sync, then a barrier or mbarrier, then "                         \
    "tcgen05.fence::after_thread_sync in that thread", letter)                                                       \
  /* a fault checked only under strict mma pipelining: FA4 and 77 pipeline mixed shapes */                           \
  X(mma_not_pipelined, "tcgen05-memory-consistency-model-pipelined-instructions",                                    \
    "two tcgen05.mma are pipelined (ordered without a wait) only with the same .cta_group, accumulator and shape "   \
    "(newer PTX: and kind); otherwise the later may touch cells the earlier wrote or read only once the earlier is " \
    "complete (checked in strict mma pipelining mode)", fault)                                                       \
  /* CUTLASS's block-scaled GEMMs recopy scale factors from the MMA thread */                                        \
  X(cp_not_pipelined, "tcgen05-memory-consistency-model-pipelined-instructions",                                     \
    "tcgen05.cp is pipelined only after tcgen05.shift (.4x256b); a tcgen05.cp that rewrites cells the same thread's "\
    "earlier tcgen05.cp or tcgen05.mma touched is ordered after it only once that one is complete", letter)          \
  X(alloc_address_before_barrier, "tcgen05-instructions-tcgen05-alloc",                                              \
    "tcgen05.alloc stores the address with a weak store: another warp may read it only after a barrier", fault)      \
  X(alloc_after_relinquish, "tcgen05-instructions-tcgen05-alloc",                                                    \
    "tcgen05.alloc is illegal after any thread of the CTA executed tcgen05.relinquish_alloc_permit", fault)          \
  X(alloc_columns, "tcgen05-instructions-tcgen05-alloc",                                                             \
    "nCols must be a power of two in [32, 512]", fault)                                                              \
  /* PTX's own words: "should not" */                                                                                \
  X(alloc_increase, "tcgen05-instructions-tcgen05-alloc",                                                            \
    "the number of columns allocated should not increase between two allocations of the CTA", letter)                \
  X(alloc_unavailable, "tcgen05-instructions-tcgen05-alloc",                                                         \
    "tcgen05.alloc blocks until enough Tensor Memory is free, so with the CTA's own allocations holding it the "     \
    "warp never resumes", fault)                                                                                     \
  X(dealloc_mismatch, "tcgen05-instructions-tcgen05-alloc",                                                          \
    "tcgen05.dealloc's taddr and nCols must name a previous, live allocation", fault)                                \
  X(tmem_not_freed, "tcgen05-instructions-tcgen05-alloc",                                                            \
    "all Tensor Memory allocated by tcgen05.alloc must be freed by tcgen05.dealloc before the kernel exits", fault)  \
  X(mixed_cta_group, "tcgen05-instructions-tcgen05-alloc",                                                           \
    "all tcgen05 instructions within a kernel must specify the same .cta_group", fault)                              \
  X(pair_missing, "tcgen05-issue-granularity",                                                                       \
    "a .cta_group::2 instruction acts on a CTA pair, two CTAs of one cluster whose %cluster_ctarank differs in "     \
    "the last bit only: the issuing CTA needs its peer in the cluster", fault)                                       \
  X(pair_alloc_mismatch, "tcgen05-issue-granularity",                                                                \
    "tcgen05.alloc/dealloc .cta_group::2 are performed collectively by one warp in each CTA of the pair, with the "  \
    "same nCols", fault)                                                                                             \
  /* CUTLASS and CuTe issue pair MMAs from the even CTA only */                                                      \
  X(pair_mma_by_odd_cta, "tcgen05-issue-granularity",                                                                \
    "PTX lets either CTA of the pair issue a .cta_group::2 tcgen05.mma, but CUTLASS and the public 2-CTA kernels "   \
    "issue them from the even CTA (%cluster_ctarank & 1 = 0) only", convention)                                      \
  /* legal descriptors that read the wrong bytes: no silicon-proven kernel's operands are anything but tiles */      \
  X(operand_not_a_tile, "tcgen05-shared-memory-descriptor",                                                          \
    "an MMA operand its descriptor reads is a tile of one tensor: element (r, k) from the tensor's (r0 + r, k0 + k) " \
    "or its transpose's, as the TMA or copy that filled shared memory wrote them", convention)                       \
  X(k_block_read_twice, "tcgen05-mma-instructions-mma",                                                              \
    "each tcgen05.mma of one accumulation (enable-input-d set since the last clear) adds another K block: the "     \
    "same A and B from the same places in global memory twice is a stage reused or a K step not advanced; A and B "  \
    "each overlapping what an earlier one read, a K step advanced by the wrong count", convention)                   \
  X(descriptor_invalid, "tcgen05-shared-memory-descriptor",                                                          \
    "a shared-memory matrix descriptor needs valid fields: fixed bits, reserved bits, swizzle code", fault)          \
  X(idesc_invalid, "tcgen05-instruction-descriptor",                                                                 \
    "the instruction descriptor's fields must be valid for the MMA kind: types, shape (Table 39), reserved bits",    \
    fault)                                                                                                           \
  X(smem_outside_image, "tcgen05-shared-memory-descriptor",                                                          \
    "every shared-memory byte an instruction reads or writes must lie in the CTA's shared memory", fault)            \
  /* CuTe tutorial 01: st.shared, __syncthreads, UMMA, no fence.proxy.async */                                       \
  X(proxy_fence_missing, "tcgen05-memory-consistency-model-smem-access",                                             \
    "tcgen05.mma and tcgen05.cp read shared memory through the async proxy: bytes written by ordinary stores need "  \
    "fence.proxy.async by the writing warp first", letter)                                                           \
  X(mma_lane_offset, "tcgen05-data-path-layout-organization",                                                        \
    "d-tmem's lane must be 0 for Layout D (M = 128) and 0 or 16 for Layout F (M = 64); [a-tmem] must use the same "  \
    "lane as d-tmem", fault)                                                                                         \
  X(ts_a_major, "tcgen05-matrices-majorness",                                                                        \
    "A in Tensor Memory is K-major: idesc transpose-A must be 0", fault)                                             \
  X(scale_factors, "tcgen05-block-scaling",                                                                          \
    "the scale factors of a block-scaled tcgen05.mma start at lane 0 of [scale-A-tmem] and [scale-B-tmem], are "     \
    "duplicated to all four 32-lane partitions of Tensor Memory, and are UE8M0 values or (kind::mxf4nvf4) UE4M3 "    \
    "values, which have no sign bit", fault)                                                                         \
  X(sparse_metadata_value, "tcgen05-sparse-matrices",                                                                \
    "each 4-bit sparsity metadata entry of tcgen05.mma.sp names where its chunk's kept values of A came from, with " \
    "one of the values PTX lists for the kind; the rest result in undefined behavior", fault)                        \
  /* CUTLASS's sparse compressor (83_blackwell_sparse_gemm) writes 0b0000 for a chunk of zeros */                    \
  X(sparse_metadata_zero_chunk, "tcgen05-sparse-matrices",                                                           \
    "a sparsity metadata entry is one of the values PTX lists for the kind, also for a chunk whose kept values are " \
    "zero", letter)                                                                                                  \
  X(sparse_metadata_lane, "tcgen05-sparse-matrices-alignment-restriction",                                           \
    "the sparsity metadata of tcgen05.mma.sp uses the lane alignment of A and D: [sp-meta-tmem] names lane 0 for "   \
    "the layouts of the whole datapath (M = 128 and 256)", fault)                                                    \
  X(mbarrier_address, "parallel-synchronization-and-communication-instructions-mbarrier-size-alignment",             \
    "an mbarrier is an 8-byte-aligned 64-bit object in the CTA's shared memory", fault)                              \
  X(mbarrier_uninitialized, "parallel-synchronization-and-communication-instructions-mbarrier-init",                 \
    "an mbarrier must be initialized by mbarrier.init before any other operation on it", fault)                      \
  X(mbarrier_reinit, "parallel-synchronization-and-communication-instructions-mbarrier-init",                        \
    "mbarrier.init on a valid mbarrier is undefined: invalidate it with mbarrier.inval first", fault)                \
  X(mbarrier_count, "parallel-synchronization-and-communication-instructions-mbarrier-contents",                     \
    "the expected arrival count lies in [1, 2^20 - 1]", fault)                                                       \
  X(mbarrier_arrivals, "parallel-synchronization-and-communication-instructions-mbarrier-contents",                  \
    "an arrival may not exceed the pending arrival count of the current phase", fault)                               \
  X(mbarrier_tx, "parallel-synchronization-and-communication-instructions-mbarrier-contents",                        \
    "the tx-count stays within [-(2^20 - 1), 2^20 - 1]", fault)                                                      \
  /* B200s' waiters poll faster than a phase completes; the model's schedule may run a producer that never */        \
  /* waits through two phases while a waiter sleeps (programs outside the corpus that run on B200s) */               \
  X(mbarrier_phase_overtaken, "parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait", \
    "try_wait.parity tests the current phase or the one before it: a waiter sees the phase it waits for "            \
    "complete before the mbarrier completes the next", letter)                                                       \
  /* CuTe's tutorials and 77_blackwell_fmha issue no tcgen05.wait::ld */                                             \
  X(ld_register_before_wait, "tcgen05-instructions-tcgen05-wait",                                                    \
    "tcgen05.wait::ld comes between a tcgen05.ld and any use of its destination registers", letter)                  \
  /* 77_blackwell_fmha and fmha_gen step their idle warps another way */                                             \
  X(setmaxnreg_not_uniform, "miscellaneous-instructions-setmaxnreg",                                                 \
    "the four warps of a warpgroup run the same setmaxnreg sequence", letter)                                        \
  /* a public B200 GEMM commits to __cvta_generic_to_shared's value */                                               \
  X(shared_offset_as_generic, "generic-addressing",                                                                  \
    "a generic address given for shared memory lies in the shared window", letter)                                   \
  X(unsupported, "",                                                                                                 \
    "the host model does not execute this form", fault)

TCGEN_RULE_ENUM(Rule, TCGEN_MODEL_RULES);
TCGEN_RULE_LOOKUPS(Rule, TCGEN_MODEL_RULES)

#define TCGEN_MODEL_RULE_SEVERITY_(code, anchor, sentence, severity)                                                 \
  case Rule::code: return Severity::severity;
constexpr Severity severity(Rule r) {
  switch (r) {
    case Rule::ok: return Severity::fault;
      TCGEN_MODEL_RULES(TCGEN_MODEL_RULE_SEVERITY_)
  }
  return Severity::fault;
}
#undef TCGEN_MODEL_RULE_SEVERITY_

constexpr const char* name(Rule r) { return rule_code(r); }
// The PTX anchor, "" for Rule::unsupported (a limit of the model, not of PTX).
constexpr const char* anchor(Rule r) { return rule_field(r); }
constexpr const char* sentence(Rule r) { return rule_sentence(r); }

}  // namespace tcgen::model
