#include "warp_registers.hpp"

#include "slot_pool.hpp"

namespace tcgen::ptx {

WarpRegisters::WarpRegisters(std::size_t warps, std::uint32_t registers)
    : registers_(registers), slots_(slot_pool::take(warps * registers * kWarpLanes)), shadowed_(warps, 0),
      loads_(warps * kWarpLanes) {}

WarpRegisters::~WarpRegisters() { slot_pool::give(std::move(slots_), false); }

}  // namespace tcgen::ptx
