#pragma once
// A CTA's shared memory as a byte image, plus, per 16-byte chunk, the last
// write through the generic proxy (st.shared): tcgen05.mma and tcgen05.cp
// read through the async proxy, so such bytes need fence.proxy.async by the
// writer first (PTX #tcgen05-memory-consistency-model-smem-access); and
// where the chunk's bytes came from in global memory, when a TMA load or a
// copy through registers says so (its provenance: Cta::check_tile); and,
// per byte, whether anything has written it since the CTA started (the
// image is zero-filled, silicon's holds whatever was there: Definedness).
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "tcgen/tma/sm100_limits.hpp"

namespace tcgen::model {

class SharedMemory {
 public:
  static constexpr std::uint32_t kMaxBytes = tma::kSmemBytesPerCta;
  // An image may hold the system's reserved KiB beside the 227 KB, as the SM's 228 KB do.
  static constexpr std::uint32_t kReservedBytes = tma::kSmemReservedBytes;
  static constexpr std::uint32_t kMaxImageBytes = kMaxBytes + kReservedBytes;
  static constexpr std::uint32_t kWindow = tma::kDescriptorWindowBytes;

  // base: the shared address of the first byte. Throws tcgen::Error unless
  // base is 1024-aligned (so the swizzle patterns start on the image's
  // atoms), bytes ≤ kMaxImageBytes and the image fits the descriptors' window.
  SharedMemory(std::uint32_t base, std::uint32_t bytes);

  std::uint32_t base() const { return base_; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(bytes_.size()); }
  bool contains(std::uint32_t addr, std::uint64_t n) const {
    return addr >= base_ && std::uint64_t{addr} - base_ + n <= bytes_.size();
  }
  std::span<const std::uint8_t> image() const { return bytes_; }
  // Precondition: contains(addr, n).
  std::span<std::uint8_t> bytes(std::uint32_t addr, std::uint32_t n) { return {bytes_.data() + (addr - base_), n}; }
  // The same bytes, to be written: whatever was known of where they came from is forgotten.
  // Every writer of the image goes through here (or mark_written): the bytes count as written.
  std::span<std::uint8_t> write(std::uint32_t addr, std::uint32_t n) {
    mark_written(addr, n);
    set_origin(addr, n, 0);
    if (undefined_count_) [[unlikely]] set_undefined(addr, n, 0);
    return bytes(addr, n);
  }
  // Provenance: [addr, addr + n) holds global memory's bytes from host address `global` on (0:
  // unknown). origin(): the global address of a chunk's first byte when all 16 of its bytes came
  // from one run of global memory (a TMA row, or pieces copied through registers, in any order), else 0.
  void set_origin(std::uint32_t addr, std::uint32_t n, std::uint64_t global);
  std::uint64_t origin(std::uint32_t chunk_addr) const {
    const std::uint32_t c = (chunk_addr - base_) / 16;
    return known_[c] == 0xFFFF ? origins_[c] : 0;
  }
  // Whether origin() is known for any chunk: while none is, an operand's chunks need no lookup.
  bool any_origin() const { return known_chunks_ != 0; }

  // Definedness: per byte, the origin of the undefined value stored there (0: defined), kept only
  // once one is stored (the PTX interpreter's shadow; any write through write() defines the bytes).
  void set_undefined(std::uint32_t addr, std::uint32_t n, std::uint32_t origin);
  bool any_undefined() const { return undefined_count_ != 0; }
  std::uint32_t undefined(std::uint32_t addr, std::uint32_t n) const {
    if (!undefined_count_) return 0;
    for (std::uint32_t i = addr - base_; i < addr - base_ + n; ++i)
      if (undefined_[i]) return undefined_[i];
    return 0;
  }

  // Written since the CTA started: one bit per byte, set by write() and mark_written (an object
  // the model keeps elsewhere, as an mbarrier's state, whose bytes hold its value on silicon).
  void mark_written(std::uint32_t addr, std::uint32_t n);
  // The first byte of [addr, addr + n) never written (a shared address), or kAllWritten.
  static constexpr std::uint32_t kAllWritten = ~std::uint32_t{0};
  std::uint32_t first_unwritten(std::uint32_t addr, std::uint32_t n) const {
    const std::uint32_t i = addr - base_;
    if (n == 0) return kAllWritten;
    if (n <= 64 && (i & 63) + n <= 64) [[likely]] {  // one word of the bitmap
      const std::uint64_t want = (n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1)) << (i & 63);
      const std::uint64_t missing = want & ~written_[i >> 6];
      return missing ? base_ + (i & ~63u) + static_cast<std::uint32_t>(std::countr_zero(missing)) : kAllWritten;
    }
    return first_unwritten_slow(addr, n);
  }

  // Who last wrote a chunk with st.shared, and how many fence.proxy.async
  // that warp had executed then; warp -1: no generic write since the async
  // proxy last wrote it (or ever).
  struct GenericWrite {
    int warp = -1;
    std::uint64_t proxy_fences = 0;
  };
  GenericWrite& generic_write(std::uint32_t addr) { return chunks_[(addr - base_) / 16]; }

 private:
  std::uint32_t base_;
  std::vector<std::uint8_t> bytes_;
  std::vector<GenericWrite> chunks_;
  std::vector<std::uint64_t> origins_;  // per 16-byte chunk: the global address its first byte came from
  std::vector<std::uint16_t> known_;    // per chunk, a bit per byte whose source agrees with origins_
  std::uint32_t known_chunks_ = 0;      // chunks whose 16 bytes' source is known
  std::vector<std::uint32_t> undefined_;  // per byte, once any is undefined: its origin (0: defined)
  std::uint32_t undefined_count_ = 0;     // bytes whose origin is not 0
  std::vector<std::uint64_t> written_;    // a bit per byte: written since the CTA started
  std::uint32_t first_unwritten_slow(std::uint32_t addr, std::uint32_t n) const;
};

}  // namespace tcgen::model
