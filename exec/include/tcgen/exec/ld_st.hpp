#pragma once
// A tcgen05.ld / tcgen05.st access as a value a kernel passes to its
// architecture, and the registers it moves, for host and device code:
//
//   using Ld = exec::LdSt<layout::TmemAccess{layout::TmemShape::s32x32b, 32}>;
//   Ld::Registers r = a.ld(Ld{}, taddr);   // thread t's 32 registers
//   a.wait_ld();
//
// The shape, .num and packing are the type's (an illegal one does not
// compile, with the layout rule's sentence); DeviceArch issues tmem::Atom<A>,
// HostArch the model's tcgen05.ld/st with the same access.
#include <cstdint>

#include "tcgen/core/host_device.hpp"
#include "tcgen/layout/tmem_thread_map.hpp"

namespace tcgen::exec {

// One thread's registers of an access: r[i] is register i, in PTX order.
template <int N>
struct Registers {
  std::uint32_t r[N];

  constexpr TCGEN_HD std::uint32_t& operator[](int i) { return r[i]; }
  constexpr TCGEN_HD const std::uint32_t& operator[](int i) const { return r[i]; }
};

template <layout::TmemAccess A>
struct LdSt {
  static constexpr layout::TmemAccess access = A;
  // (thread, register[, half]) -> cell from taddr; refuses an illegal A with its sentence.
  static constexpr layout::Layout map = layout::thread_map<A>();
  static constexpr int registers = static_cast<int>(A.registers());
  using Registers = exec::Registers<registers>;
};

}  // namespace tcgen::exec
