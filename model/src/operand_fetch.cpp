#include "tcgen/core/hex.hpp"
#include "tcgen/model/operand_fetch.hpp"

#include <array>
#include <bit>
#include <cstdio>
#include <string>
#include <vector>

#include "tcgen/core/error.hpp"
#include "tcgen/model/smem_descriptor_decode.hpp"
#include "operand_fetch_into.hpp"

namespace tcgen::model {

namespace {

// Elements per 16-byte chunk, the PTX "T" (T elements = 16 B): 128 / bits, and
// 16 for the padded 6- and 4-bit formats, "16 elements ... followed by 4 (8)
// bytes of padding" (PTX #tcgen05-packing-formats); 32 for 4-bit values
// packed two to a byte (kind::mxf4 and mxf4nvf4).
int per_chunk(ElementType t, Fp4Storage fp4) {
  if (bits(t) == 4 && fp4 == Fp4Storage::packed) return 32;
  return bits(t) < 8 ? 16 : 128 / bits(t);
}

// Every value of each type of at most 16 bits, decoded once with core's exact
// decode(): one table look-up per element afterwards, so the fetch of a tile
// costs little beside its multiply-adds.
const float* value_table(ElementType t) {
  static const auto tables = [] {
    std::array<std::vector<float>, std::size(all_element_types)> v;
    for (ElementType e : all_element_types) {
      if (bits(e) > 16) continue;
      auto& table = v[static_cast<std::size_t>(e)];
      table.resize(std::size_t{1} << bits(e));
      for (std::uint32_t x = 0; x < table.size(); ++x) table[x] = decode(e, x);
    }
    return v;
  }();
  return tables[static_cast<std::size_t>(t)].data();
}

// tf32 is the top 19 bits of an f32 (sign, 8 exponent bits, 10 mantissa
// bits), so a finite tf32 value is that f32 with the low 13 bits cleared;
// infinities and NaNs go through decode() for its canonical NaN.
float tf32_value(std::uint32_t word) {
  if (((word >> 23) & 0xFFu) != 0xFFu) return std::bit_cast<float>(word & 0xFFFFE000u);
  return decode(ElementType::tf32, word);
}

// The values of one 16-byte chunk, little-endian, element i at bit i * bits,
// written to dst[0], dst[stride], ... (the padded formats leave their tail
// unused). Bits: 32, 16, 8, 4 (packed, element i in bits [4i, 4i + 4)), or 0
// for the 6- and 4-bit padded formats (b bits each).
template <int Bits>
void decode_chunk(const std::uint8_t* p, int b, const float* table, float* dst, std::ptrdiff_t stride) {
  if constexpr (Bits == 32) {
    for (int i = 0; i < 4; ++i, p += 4)
      dst[i * stride] = tf32_value(p[0] | p[1] << 8 | p[2] << 16 | std::uint32_t(p[3]) << 24);
  } else if constexpr (Bits == 16) {
    for (int i = 0; i < 8; ++i, p += 2) dst[i * stride] = table[p[0] | p[1] << 8];
  } else if constexpr (Bits == 8) {
    for (int i = 0; i < 16; ++i) dst[i * stride] = table[p[i]];
  } else if constexpr (Bits == 4) {
    for (int i = 0; i < 16; ++i) {
      dst[2 * i * stride] = table[p[i] & 0xF];
      dst[(2 * i + 1) * stride] = table[p[i] >> 4];
    }
  } else {  // 6 or 4 bits, 16 values packed from bit 0
    for (int i = 0; i < 16; ++i) {
      const int bit = i * b;
      const unsigned two = p[bit / 8] | p[bit / 8 + 1] << 8;  // a value spans at most two bytes
      dst[i * stride] = table[(two >> (bit % 8)) & ((1u << b) - 1)];
    }
  }
}

// Swizzle width W in bytes (facts §2.1): a K-major atom row, an MN-major atom's
// MN span; 16 for no swizzle (one core-matrix row).
std::uint32_t swizzle_width(int layout_type) {
  switch (layout_type) {
    case 6: return 32;
    case 4: return 64;
    case 0: return 16;
    default: return 128;  // 2 (128B) and 1 (128B with 32-byte atoms)
  }
}

// The swizzle XOR on the absolute shared-memory address (facts §2.3, CuTe
// Swizzle<B,M,3> and Swizzle<2,5,2>): B bits taken from bit 7 up, the 128-byte
// row, are XORed in at bit M. The base offset (PTX Table 41, "(pattern start
// addr >> 0x7) & 0x7") says in which 128-byte row the pattern starts, so the
// row is counted from there: with 0 the pattern is anchored on the absolute
// address; with the PTX formula's value, data swizzled relative to an
// unaligned pattern start reads back right. Both were checked on an H200 with
// wgmma for 32B, 64B and 128B (hardware-checks.md, docs/validation.md); for
// 128B_base32B, which Table 41 does not cover, this is an assumption.
std::uint32_t swizzle(std::uint32_t a, int layout_type, int base_offset) {
  int b = 0, m = 4;
  switch (layout_type) {
    case 6: b = 1; break;           // 32B:  Swizzle<1,4,3>
    case 4: b = 2; break;           // 64B:  Swizzle<2,4,3>
    case 2: b = 3; break;           // 128B: Swizzle<3,4,3>
    case 1: b = 2; m = 5; break;    // 128B with 32B atoms: Swizzle<2,5,2>
    default: return a;
  }
  const std::uint32_t row = ((a >> 7) - static_cast<std::uint32_t>(base_offset)) & ((1u << b) - 1);
  return a ^ (row << m);
}

constexpr const char* kLegal = " (PTX #tcgen05-canonical-layouts, Table 52)";

void check_request(const SmemDescriptorFields& f, int rows, int k, ElementType type, bool mn_major, Fp4Storage fp4) {
  if (type == ElementType::f32 || type == ElementType::s32)  // accumulator types, never MMA operands
    fail("type", name(type), "expected an MMA operand type: bf16, fp16, tf32, e4m3, e5m2, e2m3, e3m2, e2m1, s8 or u8");
  if (fp4 == Fp4Storage::packed && type != ElementType::e2m1)
    fail("type", name(type),
         "expected e2m1: only kind::mxf4 and mxf4nvf4 pack 4-bit values (PTX #tcgen05-packing-formats)");
  const int T = per_chunk(type, fp4);
  if (k != 2 * T && k != 4 * T)
    fail("k", std::to_string(k),
         "expected " + std::to_string(2 * T) + " for " + name(type) +
             ": one instruction reads 256 bits of K (PTX #tcgen05-kind-shapes), or " + std::to_string(4 * T) +
             ", the 512 bits of a sparse instruction's B (PTX #tcgen05-sparse-matrices)");
  if (rows <= 0) fail("rows", std::to_string(rows), "expected a positive row count (M or N)");
  const bool base32b = f.layout_type == 1;
  if (!mn_major && base32b)
    fail("layout_type", "1 (128B_base32B)", std::string("expected another swizzle: K-major operands cannot use 128B with 32-byte atoms") + kLegal);
  if (mn_major && bits(type) < 8)
    fail("major", "MN", std::string("expected K-major: ") + name(type) + " exists only K-major" + kLegal);
  if (mn_major && bits(type) == 32 && !base32b)
    fail("layout_type", std::to_string(f.layout_type),
         std::string("expected 1 (128B_base32B): MN-major tf32 needs 128B swizzling with 32-byte atomicity") + kLegal);
  if (base32b && bits(type) != 32)
    fail("layout_type", "1 (128B_base32B)", std::string("expected another swizzle: 128B_base32B is for MN-major tf32 only") + kLegal);
  if (mn_major && rows % T != 0)
    fail("rows", std::to_string(rows),
         "expected a multiple of " + std::to_string(T) + ": an MN-major operand is read in 16-byte chunks of " +
             std::to_string(T) + " rows (PTX #tcgen05-kind-shapes-8b-transpose-b for 8-bit B)");
}

[[noreturn, gnu::noinline]] void outside_image(std::uint32_t phys, std::uint32_t image_base, std::size_t size,
                                                std::uint64_t desc) {
  fail("address", hex(phys),
       "expected a 16-byte operand chunk inside the shared-memory image [" + hex(image_base) + ", " +
           hex(image_base + size) + ") (descriptor " + hex(desc) + ", PTX #tcgen05-shared-memory-descriptor)");
}

// The chunk walk of one operand for elements of `Bits` bits (see decode_chunk).
template <int Bits>
void walk(std::span<const std::uint8_t> image, std::uint32_t image_base, std::uint64_t desc,
          const SmemDescriptorFields& f, int rows, int k, ElementType type, bool mn_major, Fp4Storage fp4, float* out,
          std::ptrdiff_t row_stride, std::ptrdiff_t k_stride, std::vector<std::uint32_t>* chunks_read) {
  const int T = per_chunk(type, fp4), b = bits(type);
  const std::uint32_t W = swizzle_width(f.layout_type);
  const float* table = value_table(type);

  // One 16-byte chunk at physical address phys: check, record, decode.
  const auto read_at = [&](std::uint32_t phys, float* dst, std::ptrdiff_t stride) {
    if (phys < image_base || phys - image_base > image.size() || image.size() - (phys - image_base) < 16)
      outside_image(phys, image_base, image.size(), desc);
    if (chunks_read) chunks_read->push_back(phys);
    decode_chunk<Bits>(image.data() + (phys - image_base), b, table, dst, stride);
  };
  // The same at logical address a (before the swizzle).
  const auto read = [&](std::uint32_t a, float* dst, std::ptrdiff_t stride) {
    read_at(swizzle(a, f.layout_type, f.base_offset), dst, stride);
  };

  // Facts §2.1, per 16-byte chunk; r = row, c = which of the row's K chunks
  // (2, or 4 for a sparse MMA's B), j = chunk index along M/N, kk = K row
  // (all unsigned, so / and % by the powers of two are shifts and masks).
  if (!mn_major) {
    const std::uint32_t chunks = static_cast<std::uint32_t>(k / T);
    for (std::uint32_t r = 0; r < static_cast<std::uint32_t>(rows); ++r)
      for (std::uint32_t c = 0; c < chunks; ++c)
        read_at(kmajor_chunk_address(f, r, c), out + r * row_stride + static_cast<std::ptrdiff_t>(c * T) * k_stride,
                k_stride);
    return;
  }
  const std::uint32_t chunks = static_cast<std::uint32_t>(rows / T), per_w = W / 16;
  // K rows per atom: 8, or 4 in the 128B_base32B atom ((T,8,m),(4,k)), derived from CUTLASS (facts §2.1).
  const std::uint32_t g = f.layout_type == 1 ? 4 : 8;
  for (std::uint32_t kk = 0; kk < static_cast<std::uint32_t>(k); ++kk)
    for (std::uint32_t j = 0; j < chunks; ++j) {
      std::uint32_t a = f.start_address;
      if (f.layout_type == 0)  // MN-major none: start + j*SBO + (kk%8)*16 + (kk/8)*LBO
        a += j * f.sbo + (kk % 8) * 16 + (kk / 8) * f.lbo;
      else  // MN-major swizzled: start + (j%(W/16))*16 + (j/(W/16))*LBO + (kk%g)*W + (kk/g)*SBO
        a += (j % per_w) * 16 + (j / per_w) * f.lbo + (kk % g) * W + (kk / g) * f.sbo;
      read(a, out + static_cast<std::ptrdiff_t>(j * T) * row_stride + kk * k_stride, row_stride);
    }
}

}  // namespace

std::uint32_t kmajor_chunk_address(const SmemDescriptorFields& f, std::uint32_t row, std::uint32_t chunk) {
  // K-major none:     start + (r%8)*16 + (r/8)*SBO + c*LBO
  // K-major swizzled: start + (r%8)*W + (r/8)*SBO + c*16 (LBO "not used, assumed to be 1")
  const std::uint32_t W = swizzle_width(f.layout_type), kstride = f.layout_type == 0 ? f.lbo : 16;
  return swizzle(f.start_address + (row % 8) * W + (row / 8) * f.sbo + chunk * kstride, f.layout_type, f.base_offset);
}

namespace detail {

void fetch_operand_into(std::span<const std::uint8_t> image, std::uint32_t image_base, std::uint64_t desc, int rows,
                        int k, ElementType type, bool mn_major, Fp4Storage fp4, float* out, std::ptrdiff_t row_stride,
                        std::ptrdiff_t k_stride, std::vector<std::uint32_t>* chunks_read) {
  const SmemDescriptorFields f = decode_smem_descriptor(desc);
  check_request(f, rows, k, type, mn_major, fp4);
  const auto run = [&](auto walker) {
    walker(image, image_base, desc, f, rows, k, type, mn_major, fp4, out, row_stride, k_stride, chunks_read);
  };
  switch (bits(type)) {
    case 32: return run(walk<32>);
    case 16: return run(walk<16>);
    case 8: return run(walk<8>);
    case 4:
      if (fp4 == Fp4Storage::packed) return run(walk<4>);
      [[fallthrough]];
    default: return run(walk<0>);
  }
}

}  // namespace detail

Operand fetch_operand(std::span<const std::uint8_t> image, std::uint32_t image_base, std::uint64_t desc, int rows, int k,
                      ElementType type, bool mn_major, Fp4Storage fp4, std::vector<std::uint32_t>* chunks_read) {
  Operand out{rows, k, {}};
  // The checks first (fetch_operand_into repeats them), so that a bad rows or
  // k throws its own error rather than a failed allocation.
  check_request(decode_smem_descriptor(desc), rows, k, type, mn_major, fp4);
  out.values.resize(static_cast<std::size_t>(rows) * k);
  detail::fetch_operand_into(image, image_base, desc, rows, k, type, mn_major, fp4, out.values.data(), k, 1,
                             chunks_read);
  return out;
}

}  // namespace tcgen::model
