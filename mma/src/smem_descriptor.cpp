// The descriptor's encode/decode are header-only constexpr code; this unit
// holds what needs strings: describe() for people and check_canonical().
#include "tcgen/core/hex.hpp"
#include "tcgen/mma/smem_descriptor.hpp"
#include "tcgen/mma/descriptor_iterator.hpp"  // compiled once here: the header checks itself

#include <cstdio>

namespace tcgen::mma {

namespace {

std::string bytes_text(Int b) { return std::to_string(b) + " B"; }

// What each layout type does to the absolute byte address (tcgen05-facts.md §2.3).
std::string swizzle_meaning(int sm100_code) {
  switch (sm100_code) {
    case 0: return "no swizzle: 8 x 16 B core matrices, interleaved";
    case 1: return "128B with 32B atomicity, Swizzle<2,5,2>: bits 5-6 ^= bits 7-8 of the address (MN-major tf32 only)";
    case 2: return "128B, Swizzle<3,4,3>: bits 4-6 ^= bits 7-9 of the address, 1024 B period";
    case 4: return "64B, Swizzle<2,4,3>: bits 4-5 ^= bits 7-8 of the address, 512 B period";
    case 6: return "32B, Swizzle<1,4,3>: bit 4 ^= bit 7 of the address, 256 B period";
  }
  return "invalid";
}

DescriptorFieldText line(const BitField& f, std::uint64_t desc, std::string meaning) {
  return {f.name, f.lo, f.lo + f.width - 1, f.extract(desc), std::move(meaning)};
}

}  // namespace

// PTX #tcgen05-shared-memory-descriptor, #tcgen05-matrix-descriptors (LBO/SBO
// meaning, tcgen05-facts.md §2.2). The descriptor does not say which
// dimension is contiguous, so LBO and SBO list both readings.
std::vector<DescriptorFieldText> describe(std::uint64_t desc, DescriptorArch arch) {
  const SmemDescriptorFields f = decode(desc, arch);
  const bool sm100 = arch == DescriptorArch::sm100;
  const std::string start = bytes_text(f.start_address) + " (" + hex(static_cast<std::uint64_t>(f.start_address)) +
                            "): shared-memory address of the operand's first 16-byte chunk, stored as (addr & 0x3FFFF) >> 4";
  const std::string lbo =
      bytes_text(f.lbo) + ": leading dimension byte offset. K-major: " +
      (f.layout_type == 0 ? "the next 16 B chunk of K (second core-matrix column)"
                          : "not used with a swizzle, assumed 16 B") +
      "; MN-major: " + (f.layout_type == 0 ? "the next 8 K rows" : "the next swizzle-width block of M/N");
  const std::string sbo = bytes_text(f.sbo) + ": stride dimension byte offset. K-major: the next 8 rows; MN-major: " +
                          (f.layout_type == 0 ? "the next 16 B of M/N"
                                              : f.layout_type == 1 ? "the next 4 K rows" : "the next 8 K rows");
  const std::string base =
      f.layout_type == 0 ? std::string("0: no swizzle, no pattern to place")
      : f.base_offset == 0
          ? std::string("0: the swizzle pattern starts on its period boundary (the absolute address decides the swizzle)")
          : std::to_string(f.base_offset) + ": the swizzle pattern starts " + std::to_string(f.base_offset) +
                " x 128 B past its period boundary ((pattern start >> 7) & 7)";
  const std::string swz = std::to_string(sm100 ? f.layout_type : sm90_layout_type(f.layout_type)) + " = " +
                          swizzle_name(f.layout_type) + (sm100 ? "" : " (SM100 code " + std::to_string(f.layout_type) + ")") +
                          ": " + swizzle_meaning(f.layout_type);
  if (sm100)
    return {line(sm100::start_address, desc, start),
            line(sm100::reserved_14, desc, "0: reserved"),
            line(sm100::lbo, desc, lbo),
            line(sm100::reserved_30, desc, "0: reserved"),
            line(sm100::sbo, desc, sbo),
            line(sm100::version, desc, "1 = 0b001: the fixed SM100 constant (absent in the SM90 form)"),
            line(sm100::base_offset, desc, base),
            line(sm100::lbo_mode, desc, "0: LBO is a relative byte offset (1, an absolute address, is sm_103a only)"),
            line(sm100::reserved_53, desc, "0: fixed constant"),
            line(sm100::layout_type, desc, swz)};
  return {line(sm90::start_address, desc, start),
          line(sm90::unused_14, desc, "0: unused"),
          line(sm90::lbo, desc, lbo),
          line(sm90::unused_30, desc, "0: unused"),
          line(sm90::sbo, desc, sbo),
          line(sm90::unused_46, desc, "0: unused (SM100 puts its version bit 46 here)"),
          line(sm90::base_offset, desc, base),
          line(sm90::unused_52, desc, "0: unused"),
          line(sm90::layout_type, desc, swz)};
}

// ---- check_canonical --------------------------------------------------------

namespace {

// One digit of the canonical index of an element inside one MMA K step: the
// canonical layouts of PTX #tcgen05-canonical-layouts are sums of
// digit × stride, e.g. K-major 128B ((8,m),(T,2k)):((8T,SBO),(1,T)) has the
// row digits (8 : 128 B), (m : SBO) and the K digits (T : 1 element), (2 : 16 B).
struct Digit {
  int dim;           // 0: the row (M/N) index, 1: the K index inside the step
  Int radix;         // how many values the digit takes
  Int stride;        // bytes between neighbours; for the in-chunk digit, 1 slot; LBO/SBO: read off the layout
  const char* name;  // "LBO", "SBO", or the fixed stride's name
  const char* why;   // what the canonical layout says about it
  Int read_r = 0, read_c = 0;  // LBO/SBO: the element the stride was read off (from (0, 0))
};

struct Canonical {
  std::vector<Digit> digits;  // in the order elements are checked: in-chunk first, LBO/SBO last
  int lbo = -1, sbo = -1;     // which digits carry them
};

Canonical canonical_digits(const layout::SmemOperandSpec& s) {
  using layout::Major;
  using layout::SmemSwizzle;
  const Int T = s.element.per_chunk, KS = layout::kstep_elements(s.element), W = layout::swizzle_bytes(s.swizzle);
  Canonical c;
  const auto add = [&](Digit d) { c.digits.push_back(d); return static_cast<int>(c.digits.size()) - 1; };
  if (s.major == Major::K) {
    add({1, T, 1, "element order", "keeps T elements of K contiguous in each 16-byte chunk"});
    if (s.swizzle == SmemSwizzle::none) {
      add({0, 8, 16, "row stride", "puts the 8 rows of a core matrix 16 B apart"});
      c.lbo = add({1, 2, 0, "LBO", "puts the K step's second 16 B chunk of K at one stride (LBO)"});
    } else {
      add({0, 8, W, "row stride", "puts the 8 rows of a swizzle atom one swizzle width apart"});
      add({1, 2, 16, "chunk stride", "keeps the K step's two 16 B chunks of K adjacent in the atom row"});
    }
    c.sbo = add({0, s.rows / 8, 0, "SBO", "puts all 8-row groups at one stride (SBO)"});
    if (c.lbo < 0) c.lbo = -2;  // swizzled K-major: "not used, assumed to be 1"
    return c;
  }
  add({0, T, 1, "element order", "keeps T elements of M/N contiguous in each 16-byte chunk"});
  if (s.swizzle == SmemSwizzle::none) {
    add({1, 8, 16, "K-row stride", "puts the 8 K rows of a core matrix 16 B apart"});
    c.sbo = add({0, s.rows / T, 0, "SBO", "puts all 16 B chunks of M/N at one stride (SBO)"});
    c.lbo = add({1, KS / 8, 0, "LBO", "puts all 8-row groups of K at one stride (LBO)"});
    return c;
  }
  const bool b32 = s.swizzle == SmemSwizzle::b128_base32b;  // 4 K rows of 128 B per atom
  const Int krows = b32 ? 4 : 8;
  add({0, W / 16, 16, "chunk stride", "keeps the 16 B chunks of M/N adjacent across one swizzle width"});
  add({1, krows, W, "K-row stride", "puts the K rows of a swizzle atom one swizzle width apart"});
  c.lbo = add({0, s.rows / (W / 16 * T), 0, "LBO", "puts all swizzle-width blocks of M/N at one stride (LBO)"});
  c.sbo = add({1, KS / krows, 0, "SBO", "puts all K-row groups of an atom at one stride (SBO)"});
  return c;
}

std::string coord(Int r, Int c) {
  std::string s = "(";  // appended piece by piece: GCC 12 warns (-Wrestrict) on "(" + std::to_string(r)
  s += std::to_string(r);
  s += ", ";
  s += std::to_string(c);
  s += ')';
  return s;
}

}  // namespace

SmemDescriptorFields check_canonical(const layout::Layout& tile, const layout::SmemOperandSpec& spec) {
  (void)layout::make_smem_operand(spec);  // an illegal spec throws naming its field
  if (tile.rank() != 2 || tile.size(0) != spec.rows || tile.size(1) != spec.cols)
    fail("layout", layout::to_string(tile),
         "expected a (row, col) -> slot layout of " + std::to_string(spec.rows) + " rows x " +
             std::to_string(spec.cols) + " cols (K)");
  const Int T = spec.element.per_chunk, KS = layout::kstep_elements(spec.element);
  const auto chunk_bytes = [&](Int r, Int c) { return tile(r, c) / T * 16; };
  const std::string form = std::string("a canonical ") + layout::name(spec.major) + "-major " +
                           layout::name(spec.swizzle) + " layout (PTX #tcgen05-canonical-layouts) ";

  Canonical can = canonical_digits(spec);
  // LBO and SBO as SmemOperand reads them: from (0, 0) to the first element
  // one digit up. A digit that never reaches 1 in the tile is not read by the
  // MMA; the field then holds one atom's bytes, as if the tile went on densely.
  const auto atom = layout::atom_extent(spec);
  const Int atom_bytes = atom[0] * atom[1] / T * 16;
  for (std::size_t j = 0; j < can.digits.size(); ++j) {
    Digit& d = can.digits[j];
    if (d.stride != 0) continue;
    Int below = 1;  // the index with this digit 1 and all others 0
    for (std::size_t e = 0; e < j; ++e)
      if (can.digits[e].dim == d.dim) below *= can.digits[e].radix;
    (d.dim == 0 ? d.read_r : d.read_c) = below;
    d.stride = d.radix > 1 ? chunk_bytes(d.read_r, d.read_c) - chunk_bytes(0, 0) : atom_bytes;
  }

  // Each element against its neighbour one step down in its lowest non-zero
  // digit; all of the lowest digit first, so the most basic mistake is named.
  const Int ksteps = spec.cols / KS;
  const int ndigits = static_cast<int>(can.digits.size());
  for (int pass = -1; pass < ndigits; ++pass)
    for (Int k = 0; k < ksteps; ++k)
      for (Int kk = 0; kk < KS; ++kk)
        for (Int i = 0; i < spec.rows; ++i) {
          // The lowest non-zero digit j of (i, kk), and the index one step down in it.
          Int rest[2] = {i, kk}, below = 1;
          int j = 0;
          for (; j < ndigits; ++j) {
            const Digit& d = can.digits[static_cast<std::size_t>(j)];
            if (rest[d.dim] % d.radix != 0) break;
            rest[d.dim] /= d.radix;
          }
          if ((j == ndigits ? -1 : j) != pass) continue;
          const Int r = i, c = k * KS + kk;
          if (pass < 0) {  // the origin of K step k: the descriptor's start address
            if (tile(r, c) % T != 0)
              fail("start", "element " + coord(r, c) + " at slot " + std::to_string(tile(r, c)),
                   "expected K step " + std::to_string(k) +
                       " to start on a 16-byte chunk: the descriptor's start address is in 16-byte units");
            continue;
          }
          const Digit& d = can.digits[static_cast<std::size_t>(j)];
          for (int e = 0; e < j; ++e)
            if (can.digits[static_cast<std::size_t>(e)].dim == d.dim) below *= can.digits[static_cast<std::size_t>(e)].radix;
          const Int pr = d.dim == 0 ? r - below : r, pc = d.dim == 1 ? c - below : c;
          const Int slot = tile(r, c), prev = tile(pr, pc);
          if (j == 0) {  // the in-chunk digit: the next slot of the same chunk
            if (slot != prev + 1 || slot % T == 0)
              fail(d.name, "element " + coord(r, c) + " at slot " + std::to_string(slot) + ", " + coord(pr, pc) +
                               " at slot " + std::to_string(prev),
                   "expected consecutive slots in one 16-byte chunk: " + form + d.why);
            continue;
          }
          const Int got = chunk_bytes(r, c) - chunk_bytes(pr, pc);
          const bool free = j == can.lbo || j == can.sbo;
          if (got != d.stride || slot % T != prev % T)
            fail(d.name,
                 bytes_text(got) + " from element " + coord(pr, pc) + " to " + coord(r, c) +
                     (slot % T != prev % T ? " (not whole 16-byte chunks apart)" : ""),
                 "expected " + bytes_text(d.stride) +
                     (free ? " (read off elements (0, 0) and " + coord(d.read_r, d.read_c) + "): " : ": ") + form +
                     d.why);
        }

  SmemDescriptorFields f;
  f.start_address = chunk_bytes(0, 0);
  f.lbo = can.lbo >= 0 ? can.digits[static_cast<std::size_t>(can.lbo)].stride : 16;
  f.sbo = can.digits[static_cast<std::size_t>(can.sbo)].stride;
  f.layout_type = layout_type(spec.swizzle);
  (void)encode(f);  // strides that do not fit the fields throw naming lbo or sbo
  return f;
}

}  // namespace tcgen::mma
