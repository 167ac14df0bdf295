#pragma once
// Canonical shared-memory operand layouts of tcgen05.mma (and wgmma): a whole
// operand tile of rows (M or N) × cols (K) elements, built from the PTX swizzle
// atom tiled M/N-first: where each element lies, byte (and bit), and the
// swizzle. The matrix descriptor's fields (LBO, SBO, layout type, base
// offset) are read off this layout by mma/smem_descriptor.hpp.
//
// PTX ISA anchors: #tcgen05-canonical-layouts (the layouts), Table 52/53 in
// #tcgen05-smem-layout (legal combinations, atom sizes). Facts:
// ../shared/reference/tcgen05-facts.md §1, §2.
#include "tcgen/core/rule_table.hpp"
#include "tcgen/layout/algebra.hpp"
#include "tcgen/layout/swizzle.hpp"

namespace tcgen::layout {

enum class Major { K, MN };
enum class SmemSwizzle { none, b32, b64, b128, b128_base32b };

constexpr const char* name(Major m) { return m == Major::K ? "K" : "MN"; }
constexpr const char* name(SmemSwizzle s) {
  switch (s) {
    case SmemSwizzle::none: return "none";
    case SmemSwizzle::b32: return "32B";
    case SmemSwizzle::b64: return "64B";
    case SmemSwizzle::b128: return "128B";
    case SmemSwizzle::b128_base32b: return "128B_base32B";
  }
  return "?";
}

// Swizzle width W in bytes: a K-major atom row, or an MN-major atom's MN span.
// "none" is one 16-byte chunk (the core matrix row).
constexpr Int swizzle_bytes(SmemSwizzle s) {
  switch (s) {
    case SmemSwizzle::none: return 16;
    case SmemSwizzle::b32: return 32;
    case SmemSwizzle::b64: return 64;
    default: return 128;
  }
}

// The XOR pattern on byte addresses (tcgen05-facts.md §2.3; CuTe's GMMA/UMMA atoms).
constexpr Swizzle swizzle_function(SmemSwizzle s) {
  switch (s) {
    case SmemSwizzle::none: return {0, 4, 3};
    case SmemSwizzle::b32: return {1, 4, 3};
    case SmemSwizzle::b64: return {2, 4, 3};
    case SmemSwizzle::b128: return {3, 4, 3};
    case SmemSwizzle::b128_base32b: return {2, 5, 2};  // 32-byte granules (CUTLASS Layout_MN_SW128_32B_Atom)
  }
  return {};
}

// How elements sit in 16-byte chunks. T = per_chunk is the PTX "T" of the
// canonical layouts (T elements = 16 B). Dense types: 128/bits per chunk.
// The f8f6f4 sub-byte formats are padded: 16 six-bit values + 4 B
// (.b6x16_p32) or 16 four-bit values + 8 B (.b4x16_p64) per chunk
// (#tcgen05-packing-formats), so their T is 16, like 8-bit types.
struct SmemElement {
  int bits = 16;
  int per_chunk = 8;
  friend constexpr bool operator==(const SmemElement&, const SmemElement&) = default;
};
constexpr SmemElement dense_element(int bits) { return {bits, bits > 0 ? 128 / bits : 0}; }
constexpr SmemElement padded_element(int bits) { return {bits, 16}; }

// Which address the swizzle XOR is computed on (see SmemOperand::address).
enum class SwizzleAnchor { absolute, tile };

// The order whole swizzle atoms are tiled in. M/N first is CuTe's
// tile_to_shape order and every TMA-loaded stage here. K first lays the atoms
// of one M/N block next to each other along K: an MN-major B operand in this
// order is, byte for byte, the K-major operand of the transposed matrix cut
// into 64-element K chunks (a tile of keys × latent dims is both attention's
// K, K-major, and its V, MN-major). The descriptor's LBO and SBO are read off
// either layout (PTX #tcgen05-matrix-descriptors: strides between atoms).
enum class AtomOrder { mn_first, k_first };

struct SmemOperandSpec {
  SmemElement element;
  Major major = Major::K;
  SmemSwizzle swizzle = SmemSwizzle::none;
  Int rows = 0;  // M for A, N for B
  Int cols = 0;  // K
  AtomOrder order = AtomOrder::mn_first;
  friend constexpr bool operator==(const SmemOperandSpec&, const SmemOperandSpec&) = default;
};

// Elements of K per MMA instruction: always 256 bits of K, i.e. two chunks
// (#tcgen05-kind-shapes: K = 16 for 16-bit, 8 for tf32, 32 for 8-bit and f8f6f4).
constexpr Int kstep_elements(SmemElement e) { return 2 * e.per_chunk; }

// Extent of one swizzle atom (PTX Table 53), in elements: {rows, cols}.
constexpr std::array<Int, 2> atom_extent(const SmemOperandSpec& s) {
  const Int T = s.element.per_chunk, w = swizzle_bytes(s.swizzle) / 16;
  if (s.major == Major::K) return {8, w * T};                  // 8 rows × W bytes of K
  if (s.swizzle == SmemSwizzle::b128_base32b) return {8 * T, 4};  // 128 B of MN × 4 K rows
  return {w * T, 8};                                            // W bytes of MN × 8 K rows
}

// The rules, one line each: code, field, sentence. Used by the static_asserts
// of smem_operand<Spec>() and by the run-time errors of make_smem_operand().
#define TCGEN_SMEM_OPERAND_RULES(X)                                                                     \
  X(element_bits, "element",                                                                            \
    "element must be 4, 6, 8, 16 or 32 bits, 16 bytes holding 128/bits of them (16 for padded 4/6-bit)") \
  X(k_major_base32b, "swizzle",                                                                         \
    "K-major operands cannot use 128B_base32B swizzle (PTX #tcgen05-smem-layout Table 52)")             \
  X(mn_major_tf32, "swizzle",                                                                           \
    "32-bit (tf32) MN-major operands need 128B_base32B swizzle (PTX #tcgen05-smem-layout Table 52)")    \
  X(base32b_needs_tf32, "swizzle",                                                                      \
    "128B_base32B swizzle is only for 32-bit MN-major operands (PTX #tcgen05-smem-layout Table 52)")    \
  X(mn_major_subbyte, "element",                                                                        \
    "MN-major operands need 8-, 16- or 32-bit elements (PTX #tcgen05-smem-layout Table 52)")            \
  X(rows_multiple, "rows", "rows must be a positive multiple of the swizzle atom's M/N extent")         \
  X(cols_multiple, "cols", "cols (K) must be a positive multiple of the atom's K extent and of the MMA K step")

TCGEN_RULE_ENUM(SmemRule, TCGEN_SMEM_OPERAND_RULES);
TCGEN_RULE_LOOKUPS(SmemRule, TCGEN_SMEM_OPERAND_RULES)

constexpr SmemRule check(const SmemOperandSpec& s) {
  const SmemElement e = s.element;
  const bool dense = (e.bits == 4 || e.bits == 8 || e.bits == 16 || e.bits == 32) && e.per_chunk * e.bits == 128;
  const bool padded = (e.bits == 4 || e.bits == 6) && e.per_chunk == 16;
  if (!dense && !padded) return SmemRule::element_bits;
  const bool base32b = s.swizzle == SmemSwizzle::b128_base32b;
  if (s.major == Major::K && base32b) return SmemRule::k_major_base32b;
  if (s.major == Major::MN && e.bits == 32 && !base32b) return SmemRule::mn_major_tf32;
  if (base32b && e.bits != 32) return SmemRule::base32b_needs_tf32;
  if (s.major == Major::MN && e.bits < 8) return SmemRule::mn_major_subbyte;
  const auto atom = atom_extent(s);
  if (s.rows <= 0 || s.rows % atom[0] != 0) return SmemRule::rows_multiple;
  if (s.cols <= 0 || s.cols % atom[1] != 0 || s.cols % kstep_elements(e) != 0) return SmemRule::cols_multiple;
  return SmemRule::ok;
}

// The swizzle atom before swizzling, (row, col) -> element slot (PTX Table 53):
// K-major, 8 rows of W bytes; MN-major, W bytes of M/N by 8 K rows (4 for 128B_base32B).
constexpr Layout smem_atom(const SmemOperandSpec& s) {
  const auto [r, c] = atom_extent(s);
  if (s.major == Major::K) return Layout{Mode{{r}, {c}}, Mode{{c}, {1}}};
  return Layout{Mode{{r}, {1}}, Mode{{c}, {r}}};
}

// A canonical operand tile. Offsets are element slots; bytes() turns a slot
// into the byte (and bit) it starts at, relative to the tile base.
class SmemOperand {
 public:
  constexpr explicit SmemOperand(const SmemOperandSpec& spec) : spec_(spec) {
    const auto atom = atom_extent(spec);
    // Atoms tiled M/N first, then K (CuTe's tile_to_shape(atom, shape) order), or K first.
    const std::array<int, 2> order = spec.order == AtomOrder::mn_first ? std::array<int, 2>{0, 1} : std::array<int, 2>{1, 0};
    tile_ = blocked_product(smem_atom(spec), make_compact<2>({spec.rows / atom[0], spec.cols / atom[1]}, order));
  }

  constexpr const SmemOperandSpec& spec() const { return spec_; }
  constexpr const Layout& layout() const { return tile_; }  // (row, col) -> slot
  constexpr Swizzle swizzle() const { return swizzle_function(spec_.swizzle); }
  constexpr Int size_bytes() const { return bytes(tile_.cosize()); }  // cosize is whole chunks

  // Byte of a slot: its chunk × 16 plus its place inside the chunk.
  constexpr Int bytes(Int slot) const {
    const Int T = spec_.element.per_chunk;
    return slot / T * 16 + (slot % T) * spec_.element.bits / 8;
  }
  constexpr int bit(Int slot) const { return static_cast<int>((slot % spec_.element.per_chunk) * spec_.element.bits % 8); }
  // Byte offset of element (row, col) from the tile base, before swizzling.
  constexpr Int offset(Int row, Int col) const { return bytes(tile_(row, col)); }
  // Physical shared-memory byte address of element (row, col). The swizzle is
  // applied to the absolute address (CuTe, TMA and the hardware's default),
  // or, with SwizzleAnchor::tile, to the offset from a tile base that need
  // not sit on the pattern's period (the descriptor's base_offset then says
  // where the pattern starts).
  constexpr Int address(Int tile_base, Int row, Int col, SwizzleAnchor anchor = SwizzleAnchor::absolute) const {
    return anchor == SwizzleAnchor::absolute ? swizzle()(tile_base + offset(row, col))
                                             : tile_base + swizzle()(offset(row, col));
  }

  // MMA K steps of the tile and the byte offset where step k begins: the
  // descriptor's start address advances by this, inside a swizzle atom too.
  constexpr Int ksteps() const { return spec_.cols / kstep_elements(spec_.element); }
  constexpr Int kstep_offset(Int k) const { return offset(0, k * kstep_elements(spec_.element)); }

 private:
  SmemOperandSpec spec_;
  Layout tile_;
};

// Run-time construction: an illegal spec throws tcgen::Error naming the field.
SmemOperand make_smem_operand(const SmemOperandSpec& spec);

// Compile-time construction: an illegal spec stops the compile with the rule's sentence.
template <SmemOperandSpec S>
consteval SmemOperand smem_operand() {
  TCGEN_RULE_ASSERTS(SmemRule, TCGEN_SMEM_OPERAND_RULES, check(S));
  return SmemOperand(S);
}

}  // namespace tcgen::layout
