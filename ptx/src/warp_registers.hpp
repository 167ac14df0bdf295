#pragma once
// The registers of a cluster's warps, lane-major: slot s of a warp's lane l at s * kWarpLanes + l of
// its warp's file. A GPU issues an instruction once for a warp's lanes; laid out so, the lanes'
// values of one register lie side by side, and a warp in lockstep runs a plain-register instruction
// as one loop over them (warp_form.hpp) instead of a call per lane's Thread.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace tcgen::ptx {

inline constexpr std::size_t kWarpLanes = 32;

// Provenance of a lane's st.shared: its last global loads (ld.global, cp.async's read). A store of
// the bytes one of them brought came from its address; of bytes two of them brought, or none, from
// an unknown place (Thread::origin_of).
struct RecentLoads {
  struct Load {
    std::uint64_t addr = 0;
    std::uint32_t n = 0;
    std::uint8_t bytes[16] = {};
  };
  std::array<Load, 4> ring{};
  unsigned next = 0;
  void note(std::uint64_t addr, const void* data, std::uint32_t n) {
    Load& r = ring[next++ % ring.size()];
    r.addr = addr;
    r.n = n;
    std::memcpy(r.bytes, data, n);
  }
  // A load of n <= 8 bytes, its value `v` (zero above them): a copy of fixed size.
  void note_value(std::uint64_t addr, std::uint64_t v, std::uint32_t n) {
    Load& r = ring[next++ % ring.size()];
    r.addr = addr;
    r.n = n;
    std::memcpy(r.bytes, &v, sizeof v);
  }
};

// A cluster's warps' lanes as a warp form reads them: registers, shadowed lanes, recent loads.
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
  RecentLoads* loads(std::size_t warp, std::size_t lane) { return &loads_[warp * kWarpLanes + lane]; }

 private:
  std::size_t registers_;
  std::vector<std::uint64_t> slots_;
  std::vector<std::uint32_t> shadowed_;
  std::vector<RecentLoads> loads_;
};

}  // namespace tcgen::ptx
