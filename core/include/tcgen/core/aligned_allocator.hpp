#pragma once
// An allocator for std::vector whose storage starts on an `Align`-byte
// boundary: host arrays TMA reads with a type that needs more than the
// 16 bytes malloc gives (16U4_ALIGN16B: a 32-byte globalAddress, DRV's
// cuTensorMapEncodeTiled).
#include <cstddef>
#include <new>

namespace tcgen {

template <class T, std::size_t Align>
struct AlignedAllocator {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = AlignedAllocator<U, Align>;
  };
  AlignedAllocator() = default;
  template <class U>
  constexpr AlignedAllocator(const AlignedAllocator<U, Align>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{Align})); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t{Align}); }
  template <class U>
  friend constexpr bool operator==(const AlignedAllocator&, const AlignedAllocator<U, Align>&) {
    return true;
  }
};

}  // namespace tcgen
