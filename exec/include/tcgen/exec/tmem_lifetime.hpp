#pragma once
// The Tensor Memory allocation every tcgen05 kernel opens and closes with,
// written once over Arch (HostArch or DeviceArch):
//
//   allocate_tmem<Plan>(a, owner, slot);   // warp `owner`: alloc + relinquish
//   ... thread 0 initialises the kernel's mbarriers ...
//   base = publish_tmem(a, slot);          // every thread: the address, ordered
//   ... the kernel's roles ...
//   free_tmem<Plan>(a, owner, base);       // after every TMEM access has completed
//
// PTX #tcgen05-instructions-tcgen05-alloc, #tcgen05-memory-consistency-model.
#include <cstdint>

#include "tcgen/core/host_device.hpp"
#include "tcgen/tmem/address.hpp"

namespace tcgen::exec {

// One whole warp allocates the plan's columns (the address goes to shared
// memory at `slot`) and gives up the permit: the CTA allocates no more.
template <class Plan, class Arch>
TCGEN_HD void allocate_tmem(Arch& a, unsigned owner, std::uint32_t slot) {
  if (a.warp_index() == owner) {
    a.alloc(Plan{}, slot);
    a.relinquish_alloc_permit(Plan{});
  }
}

// The fences around one CTA barrier order the allocation before every later
// tcgen05 operation, and the barrier makes the address that alloc wrote (a
// weak store) readable by every thread.
template <class Arch>
TCGEN_HD tmem::TmemAddress publish_tmem(Arch& a, std::uint32_t slot) {
  a.fence_before_thread_sync();
  a.sync_threads();
  a.fence_after_thread_sync();
  std::uint32_t raw = 0;
  a.smem_load(slot, raw);
  return tmem::TmemAddress::from_raw(raw);
}

// Every thread's last TMEM access has completed (wait::ld / wait::st done);
// the barrier orders them before the owner frees the columns, as PTX
// requires before the kernel exits.
template <class Plan, class Arch>
TCGEN_HD void free_tmem(Arch& a, unsigned owner, tmem::TmemAddress base) {
  a.fence_before_thread_sync();
  a.sync_threads();
  if (a.warp_index() == owner) {
    a.fence_after_thread_sync();
    a.dealloc(Plan{}, base);
  }
}

}  // namespace tcgen::exec
