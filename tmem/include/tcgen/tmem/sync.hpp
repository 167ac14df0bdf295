#pragma once
// Waits and fences for Tensor Memory accesses (device code, sm_100a).
//
// tcgen05.ld / st are asynchronous: wait_ld() / wait_st() block until every
// earlier ld / st of the calling thread has completed
// (PTX #tcgen05-instructions-tcgen05-wait). A st followed by an ld or an MMA
// of the same cells needs wait_st() between them; a TMEM read must complete
// (wait_ld()) before an MMA may overwrite the cells (tcgen05-facts.md §7).
//
// The fences order a thread's tcgen05 operations around a thread
// synchronisation (a barrier, an mbarrier): fence_before_thread_sync()
// before it, fence_after_thread_sync() after it, on the other side
// (PTX #tcgen05-memory-consistency-model, tcgen05.fence).
#if !defined(__CUDACC__)
#error "tcgen/tmem/sync.hpp is device code: include it from a .cu file compiled by nvcc for sm_100a"
#endif

namespace tcgen::tmem {

__device__ inline void wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }
__device__ inline void wait_st() { asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory"); }

__device__ inline void fence_before_thread_sync() { asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory"); }
__device__ inline void fence_after_thread_sync() { asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory"); }

}  // namespace tcgen::tmem
