#pragma once
// The registers of a cluster's warps, lane-major: slot s of a warp's lane l at s * kWarpLanes + l of
// its warp's file. A GPU issues an instruction once for a warp's lanes; laid out so, the lanes'
// values of one register lie side by side, and a warp in lockstep runs a plain-register instruction
// as one loop over them (warp_form.hpp) instead of a call per lane's Thread.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tcgen::ptx {

inline constexpr std::size_t kWarpLanes = 32;

class WarpRegisters {
 public:
  // `warps` files of `registers` slots a lane, all 0 (from slot_pool: reused across clusters).
  WarpRegisters(std::size_t warps, std::uint32_t registers);
  ~WarpRegisters();  // back to slot_pool
  WarpRegisters(const WarpRegisters&) = delete;
  WarpRegisters& operator=(const WarpRegisters&) = delete;

  // Slot 0 of lane `lane` of warp `warp`.
  std::uint64_t* lane(std::size_t warp, std::size_t lane) {
    return slots_.data() + warp * registers_ * kWarpLanes + lane;
  }
  // Warp `warp`'s lanes whose Thread is shadowed (a register pending or undefined: thread.hpp).
  std::uint32_t* shadowed(std::size_t warp) { return &shadowed_[warp]; }

 private:
  std::size_t registers_;
  std::vector<std::uint64_t> slots_;
  std::vector<std::uint32_t> shadowed_;
};

}  // namespace tcgen::ptx
