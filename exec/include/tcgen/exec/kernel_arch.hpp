#pragma once
// The contract between a kernel body and the architecture it runs on: the
// members HostArch (host_arch.hpp, the model) and DeviceArch (device_arch.hpp,
// inline PTX) both provide, as a C++20 concept. Each face is checked against
// it where it is defined, and kernels take `template <exec::KernelArch Arch>`
// parameters, so a missing or mistyped member is a compile error
// that names the member ("the required expression 'a.mbarrier_wait(bar,
// parity)' is invalid").
//
// The templated members (tcgen05.mma, commit, ld/st, alloc) are checked with
// one representative instruction each: a kind::f16 M128 N64 atom on
// 128B-swizzled K-major bf16 tiles, a 32x32b.x1 access, a 64-column plan;
// tcgen05.cp with the shape block-scale factors take, .32x128b.warpx4.
#include <concepts>
#include <cstdint>

#include "tcgen/exec/dim3.hpp"
#include "tcgen/exec/ld_st.hpp"
#include "tcgen/mma/mma_atom.hpp"
#include "tcgen/mma/smem_matrix.hpp"
#include "tcgen/tmem/copy.hpp"
#include "tcgen/tmem/plan.hpp"

namespace tcgen::exec {

namespace contract {
inline constexpr mma::InstrDescriptorSpec kSpec{.kind = mma::MmaKind::f16, .a = ElementType::bf16,
                                                 .b = ElementType::bf16, .d = ElementType::f32, .m = 128, .n = 64};
using Atom = mma::Mma<kSpec>;
inline constexpr layout::SmemOperandSpec kA{layout::dense_element(16), layout::Major::K, layout::SmemSwizzle::b128,
                                            128, 64};
inline constexpr layout::SmemOperandSpec kB{layout::dense_element(16), layout::Major::K, layout::SmemSwizzle::b128,
                                            64, 64};
using ATile = mma::SmemMatrix<kA>;
using BTile = mma::SmemMatrix<kB>;
using Plan = tmem::Plan<tmem::accumulator("D", {128, 64})>;
using DTile = Plan::Tile<"D">;
using Access = LdSt<layout::TmemAccess{layout::TmemShape::s32x32b, 1u}>;
}  // namespace contract

template <class A>
concept KernelArch = requires(A a, const A& c, const typename A::TensorMap& map, std::uint32_t bar,
                              std::uint32_t parity, std::uint32_t smem, bool predicate, float& value,
                              contract::DTile d, contract::ATile ta, contract::BTile tb, tmem::TmemAddress taddr,
                              const typename contract::Access::Registers& registers, std::uint64_t desc) {
  // indices
  { c.thread_index() } -> std::same_as<unsigned>;
  { c.warp_index() } -> std::same_as<unsigned>;
  { c.lane_index() } -> std::same_as<unsigned>;
  { c.block_threads() } -> std::same_as<unsigned>;
  { c.block_index() } -> std::same_as<Dim3>;
  { c.grid_dim() } -> std::same_as<Dim3>;
  // barriers, votes, shuffles
  a.sync_threads();
  a.sync_warp(parity);
  { a.ballot_sync(parity, predicate) } -> std::same_as<std::uint32_t>;
  { a.any_sync(parity, predicate) } -> std::same_as<bool>;
  { a.all_sync(parity, predicate) } -> std::same_as<bool>;
  { a.elect_one() } -> std::same_as<bool>;
  { a.shfl_sync(parity, value, 0) } -> std::same_as<float>;
  // shared memory
  { c.smem_base() } -> std::same_as<std::uint32_t>;
  a.smem_store(smem, value);
  a.smem_load(smem, value);
  a.fence_proxy_async();
  // mbarriers
  a.mbarrier_init(bar, parity);
  a.fence_mbarrier_init();
  a.mbarrier_arrive(bar);
  a.mbarrier_arrive_expect_tx(bar, parity);
  { a.mbarrier_try_wait(bar, parity) } -> std::same_as<bool>;
  a.mbarrier_wait(bar, parity);
  // TMA
  a.tma_load(map, smem, bar, 0, 0);
  a.tma_load(map, smem, bar, 0, 0, 0);
  // Tensor Memory and tcgen05
  a.alloc(contract::Plan{}, smem);
  a.relinquish_alloc_permit(contract::Plan{});
  a.dealloc(contract::Plan{}, taddr);
  a.mma(contract::Atom{}, d, ta, tb, 0, predicate);
  a.commit(contract::Atom{}, bar);
  a.cp(tmem::CopyShape::s32x128b_warpx4, taddr, desc, 1);
  { a.ld(contract::Access{}, taddr) } -> std::same_as<typename contract::Access::Registers>;
  a.st(contract::Access{}, taddr, registers);
  a.wait_ld();
  a.wait_st();
  a.fence_before_thread_sync();
  a.fence_after_thread_sync();
};

}  // namespace tcgen::exec
