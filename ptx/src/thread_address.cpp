// Where a thread's global, local and param accesses land: a generic address resolved to its space
// (PTX #generic-addressing), then the bytes of the caller's allocation, the thread's local memory or
// the parameter buffer, each access checked against their bounds and writability.
#include "thread.hpp"

#include <algorithm>

#include "tcgen/core/hex.hpp"

namespace tcgen::ptx {

std::size_t Thread::allocation_below(std::uint64_t addr) const {
  const auto after = std::upper_bound(grid_.by_start.begin(), grid_.by_start.end(), addr, [&](std::uint64_t x, std::size_t i) {
    return x < reinterpret_cast<std::uint64_t>(grid_.memory[i].data);
  });
  if (after != grid_.by_start.begin()) last_allocation_ = *(after - 1);
  return last_allocation_;
}

std::uint32_t Thread::load_global_lanes(std::uint32_t lanes, const Instruction& in, std::uint32_t n, bool sign) {
  if (touched_) return lanes;  // under timing each access is traced (Thread::load)
  const Operand& a = in.ops[1];
  const std::uint64_t* address = warp_registers() + std::size_t{a.slot} * kWarpLanes;
  std::uint64_t* dest = warp_registers() + std::size_t{in.ops[0].slot} * kWarpLanes;
  RecentLoads* loads = recent_ - lane();
  const bool note = n <= 16 && grid_.provenance;
  // Every lane tries the allocation this lane's last access hit; a lane outside it, the one that
  // starts last below its address (which becomes the one tried); a lane outside both, or
  // misaligned, is the handler's, which searches and reports.
  std::uint32_t left = 0;
  for (std::uint32_t m = lanes; m; m &= m - 1) {
    const auto lane = static_cast<std::size_t>(std::countr_zero(m));
    const std::uint64_t addr = address[lane] + static_cast<std::uint64_t>(a.ival);
    const bool aligned = (addr & (n - 1)) == 0;
    bool found = aligned && in_last_allocation(addr, n, false);
    if (aligned && !found) {
      allocation_below(addr);
      found = in_last_allocation(addr, n, false);
    }
    if (!found) {
      left |= m & (0u - m);
      continue;
    }
    const std::uint64_t v = little_endian(reinterpret_cast<const std::uint8_t*>(addr), n);
    if (note) loads[lane].note_value(addr, v, n);
    dest[lane] = sign ? sign_extend(v, n) : v;
  }
  return left;
}

const std::uint8_t* Thread::host_bytes_search(std::uint64_t addr, std::uint64_t n, bool write,
                                              const Instruction& in) const {
  // From the allocation the thread's last access hit: a loop's accesses mostly stay in one (--profile
  // of CUTLASS's initialisation kernels: half their time in global loads, most of it this search).
  // The search wraps around by a compare, not `%`: a division per access was a tenth of its cost.
  const auto holds = [&](std::size_t i) {
    const Allocation& a = grid_.memory[i];
    const auto begin = reinterpret_cast<std::uint64_t>(a.data);
    if (addr < begin || addr - begin > a.bytes || n > a.bytes - (addr - begin)) return false;  // no wrap-around
    if (write && !a.writable)
      fault("global address", hex(addr) + " (" + in.opcode + ", " + std::to_string(n) + " bytes)",
            "memory the kernel may write: it lies in " + a.name + ", which is read-only", FaultKind::illegal_address);
    last_allocation_ = i;
    return true;
  };
  // Then the allocation that starts last at or below addr (Grid::by_start): a reference GEMM's loads
  // alternate between A and B, and a scan from the last one was a sixth of its time.
  if (holds(allocation_below(addr))) return reinterpret_cast<const std::uint8_t*>(addr);
  // Allocations that overlap (or none that holds it): each in turn.
  const std::size_t count = grid_.memory.size();
  for (std::size_t k = 0, i = last_allocation_; k < count; ++k, i = i + 1 == count ? 0 : i + 1)
    if (holds(i)) return reinterpret_cast<const std::uint8_t*>(addr);
  // The allocation nearest to the access, when it lies within 4 KiB of it.
  std::string near;
  std::uint64_t best = 4096;
  for (const Allocation& a : grid_.memory) {
    const auto begin = reinterpret_cast<std::uint64_t>(a.data), end = begin + a.bytes;
    const std::uint64_t gap = addr + n <= begin ? begin - (addr + n) : addr >= end ? addr - end : 0;
    if (gap < best) {
      best = gap;
      near = "; nearest: " + a.name + " [" + hex(begin) + ", " + hex(end) + ")";
    }
  }
  fault("global address", hex(addr) + " (" + in.opcode + ", " + std::to_string(n) + " bytes)",
        "an address inside memory the kernel was given (out of bounds" + near + ")", FaultKind::illegal_address);
}

void Thread::misaligned(std::uint64_t addr, std::uint32_t n, const Instruction& in) const {
  fault("address", hex(addr) + " (" + in.opcode + ")",
        "a multiple of the access size, " + std::to_string(n) + " bytes (PTX #addresses-as-operands)");
}

// The bytes of a local, param or global access (shared goes to the model).
std::uint8_t* Thread::bytes(Space space, std::uint64_t addr, std::uint32_t n, bool write, const Instruction& in) {
  cta_.writes += write;  // progress, for the watchdog
  switch (space) {
    case Space::local:
      if (addr + n > local_.size())
        fault("local address", hex(addr) + " (" + in.opcode + ")",
              "inside the thread's " + std::to_string(local_.size()) + " bytes of local memory");
      return local_.data() + addr;
    case Space::param:
      if (addr >= kCallParams && addr - kCallParams + n <= call_params_.size())
        return call_params_.data() + (addr - kCallParams);  // a call's argument or return value
      if (write)
        fault("param address", hex(addr) + " (" + in.opcode + ")",
              "a call's argument or return value: kernel parameters are read-only");
      if (addr + n > grid_.params.size())
        fault("param address", hex(addr) + " (" + in.opcode + ")",
              "inside the kernel's " + std::to_string(grid_.params.size()) + " bytes of parameters");
      return grid_.params.data() + addr;
    default: return const_cast<std::uint8_t*>(host_bytes(addr, n, write, in));
  }
}

}  // namespace tcgen::ptx
