// The model held against the layout and descriptor libraries, which were
// written separately from the same PTX rules: the layout library says where
// each element of a canonical operand tile is stored
// (SmemOperand::address), the mma library builds each K step's descriptor,
// and the model, given only the image and the descriptor, must read back
// exactly those elements. A mistake in either side shows as a mismatch.
// Also: the two descriptor decoders agree on what they accept and on the fields.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tcgen/layout/smem_operand.hpp"
#include "tcgen/mma/descriptor_iterator.hpp"
#include "tcgen/mma/instr_descriptor.hpp"
#include "tcgen/mma/smem_descriptor.hpp"
#include "tcgen/model/idesc_decode.hpp"
#include "tcgen/model/operand_fetch.hpp"
#include "tcgen/model/smem_descriptor_decode.hpp"

using namespace tcgen;
using layout::Int;
using layout::Major;
using layout::SmemSwizzle;
using layout::SwizzleAnchor;

namespace {

struct Tile {
  ElementType type;
  bool packed;  // 4-bit values 32 to a 16-byte chunk (kind::mxf4), not padded to 16 (kind::f8f6f4)
  Major major;
  SmemSwizzle swizzle;
  Int rows, cols;
  Int tile_base;
  SwizzleAnchor anchor;

  std::string describe() const {
    return std::string(name(type)) + (packed ? " packed " : " ") + layout::name(major) + "-major " + layout::name(swizzle) + " " +
           std::to_string(rows) + "x" + std::to_string(cols) + " at " + std::to_string(tile_base) +
           (anchor == SwizzleAnchor::tile ? " (tile-anchored)" : "");
  }
};

layout::SmemElement element(ElementType t, bool packed) {
  return bits(t) < 8 && !packed ? layout::padded_element(bits(t)) : layout::dense_element(bits(t));
}

// An image of shared memory [image_base, image_base + size), noise everywhere,
// with the tile's elements (random bit patterns) written where the layout
// library puts them.
struct Placed {
  static constexpr std::uint32_t image_base = 0x100;
  std::vector<std::uint8_t> image;
  std::vector<std::uint32_t> bits_of;  // element (r, c) at r * cols + c
};

Placed place(const Tile& t, const layout::SmemOperand& op, std::mt19937& rng) {
  Placed p;
  // Room for the tile twice over past its base, for the doubled-SBO reads below.
  p.image.resize(static_cast<std::size_t>(t.tile_base - Placed::image_base + 2 * op.size_bytes() + 4096));
  for (auto& b : p.image) b = static_cast<std::uint8_t>(rng());
  p.bits_of.resize(static_cast<std::size_t>(t.rows * t.cols));
  const int width = bits(t.type);
  for (Int r = 0; r < t.rows; ++r)
    for (Int c = 0; c < t.cols; ++c) {
      const std::uint32_t v =
          width == 32 ? static_cast<std::uint32_t>(rng()) : static_cast<std::uint32_t>(rng()) & ((1u << width) - 1);
      p.bits_of[r * t.cols + c] = v;
      const Int at = op.address(t.tile_base, r, c, t.anchor) - Placed::image_base;
      const int bit = op.bit(op.layout()(r, c));
      for (int j = 0; j < width; ++j) {  // bit j of the value at bit `bit + j` from byte `at`
        auto& byte = p.image.at(static_cast<std::size_t>(at + (bit + j) / 8));
        const auto mask = static_cast<std::uint8_t>(1u << ((bit + j) % 8));
        byte = static_cast<std::uint8_t>(((v >> j) & 1u) ? (byte | mask) : (byte & ~mask));
      }
    }
  return p;
}

// Elements of K step `k` that the model reads differently from what was written.
int mismatches(const Tile& t, const Placed& p, std::uint64_t desc, Int k, Int kstep) {
  const model::Operand got =
      model::fetch_operand(p.image, Placed::image_base, desc, static_cast<int>(t.rows), static_cast<int>(kstep), t.type,
                           t.major == Major::MN, t.packed ? model::Fp4Storage::packed : model::Fp4Storage::padded);
  int wrong = 0;
  for (Int r = 0; r < t.rows; ++r)
    for (Int kk = 0; kk < kstep; ++kk) {
      const float want = decode(t.type, p.bits_of[r * t.cols + k * kstep + kk]);
      wrong += std::bit_cast<std::uint32_t>(got.at(static_cast<int>(r), static_cast<int>(kk))) !=
               std::bit_cast<std::uint32_t>(want);
    }
  return wrong;
}

// The legal tiles: every type x major x swizzle the layout library accepts, a
// few sizes, and tile bases on and off the swizzle period, absolute- and
// tile-anchored (the latter with the base offset (start >> 7) & 7).
std::vector<Tile> tiles() {
  using T = ElementType;
  std::vector<Tile> out;
  const std::pair<T, bool> types[] = {{T::bf16, false}, {T::fp16, false}, {T::tf32, false}, {T::e4m3, false},
                                       {T::e5m2, false},  {T::e2m1, false}, {T::e2m3, false}, {T::e2m1, true}};
  for (const auto& [type, packed] : types)
    for (Major major : {Major::K, Major::MN})
      for (SmemSwizzle sw : {SmemSwizzle::none, SmemSwizzle::b32, SmemSwizzle::b64, SmemSwizzle::b128,
                             SmemSwizzle::b128_base32b}) {
        if (packed && major == Major::MN) continue;  // the packed 4-bit format exists K-major only (Table 44)
        layout::SmemOperandSpec spec{element(type, packed), major, sw, 0, 0};
        const auto atom = layout::atom_extent(spec);
        const Int kstep = layout::kstep_elements(spec.element);
        const Int k_unit = std::max(atom[1], kstep);  // both are powers of two
        for (Int rows : {atom[0], 2 * atom[0], std::max<Int>(atom[0], 128)})
          for (Int cols : {k_unit, 2 * k_unit}) {
            spec.rows = rows;
            spec.cols = cols;
            if (layout::check(spec) != layout::SmemRule::ok) continue;
            for (Int base : {Int{0x400}, Int{0x400 + 3 * 128}})
              out.push_back({type, packed, major, sw, rows, cols, base, SwizzleAnchor::absolute});
            if (sw != SmemSwizzle::none)
              for (Int base : {Int{0x400 + 3 * 128}, Int{0x400 + 128}})
                out.push_back({type, packed, major, sw, rows, cols, base, SwizzleAnchor::tile});
          }
      }
  return out;
}

}  // namespace

TEST_CASE("model fetch == layout library placement, every legal mode, every K step") {
  std::mt19937 rng(2024);
  const std::vector<Tile> all = tiles();
  int configurations = 0;
  std::vector<std::string> seen;  // type x major x swizzle
  for (const Tile& t : all) {
    CAPTURE(t.describe());
    const layout::SmemOperand op = layout::make_smem_operand({element(t.type, t.packed), t.major, t.swizzle, t.rows, t.cols});
    const Placed p = place(t, op, rng);
    const mma::KStepDescriptors steps(op, t.tile_base, mma::DescriptorArch::sm100, t.anchor);
    const Int kstep = layout::kstep_elements(op.spec().element);
    for (Int k = 0; k < steps.size(); ++k) {
      CAPTURE(k);
      CHECK(mismatches(t, p, steps[k], k, kstep) == 0);
    }
    ++configurations;
    const std::string mode =
        std::string(name(t.type)) + (t.packed ? "packed" : "") + layout::name(t.major) + layout::name(t.swizzle);
    if (std::find(seen.begin(), seen.end(), mode) == seen.end()) seen.push_back(mode);
  }
  // bf16/fp16/e4m3/e5m2: K-major 4 swizzles + MN-major 4; tf32: K-major 4 + MN-major 128B_base32B;
  // e2m1/e2m3 padded and e2m1 packed: K-major 4.
  CHECK(seen.size() == 4 * 8 + 5 + 3 * 4);
  CHECK(configurations > 150);
}

TEST_CASE("negative: a descriptor with SBO doubled reads other values") {
  // Each tile below reads across an SBO step within one K step: K-major with
  // more than 8 rows, MN-major none with more than one 16-byte MN chunk, and
  // MN-major swizzled, whose K step spans two 8-row (4-row) K groups.
  std::mt19937 rng(7);
  using T = ElementType;
  const Tile cases[] = {
      {T::bf16, false, Major::K, SmemSwizzle::b128, 64, 64, 0x400, SwizzleAnchor::absolute},
      {T::bf16, false, Major::K, SmemSwizzle::none, 64, 32, 0x400, SwizzleAnchor::absolute},
      {T::fp16, false, Major::MN, SmemSwizzle::none, 64, 32, 0x400, SwizzleAnchor::absolute},
      {T::bf16, false, Major::MN, SmemSwizzle::b64, 64, 16, 0x400, SwizzleAnchor::absolute},
      {T::tf32, false, Major::MN, SmemSwizzle::b128_base32b, 64, 8, 0x400, SwizzleAnchor::absolute},
      {T::e4m3, false, Major::K, SmemSwizzle::b32, 32, 32, 0x580, SwizzleAnchor::tile},
  };
  for (const Tile& t : cases) {
    CAPTURE(t.describe());
    const layout::SmemOperand op = layout::make_smem_operand({element(t.type, t.packed), t.major, t.swizzle, t.rows, t.cols});
    const Placed p = place(t, op, rng);
    const Int kstep = layout::kstep_elements(op.spec().element);
    mma::SmemDescriptorFields f = mma::descriptor_fields(op, t.tile_base, 0, t.anchor);
    REQUIRE(mismatches(t, p, mma::encode(f), 0, kstep) == 0);
    f.sbo *= 2;
    CHECK(mismatches(t, p, mma::encode(f), 0, kstep) > 0);
  }
}

TEST_CASE("the two SMEM descriptor decoders agree") {
  // Random words over the fields, with the reserved, version and mode bits
  // set now and then: both accept, with the same fields, or both refuse.
  std::mt19937_64 rng(99);
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::uint64_t w = rng() & 0xE00E3FFF3FFF3FFFull;  // start, LBO, SBO, base offset, swizzle code
    w |= std::uint64_t{1} << 46;
    if (rng() % 8 == 0) w ^= std::uint64_t{1} << (rng() % 64);  // sometimes one bit more or less anywhere
    CAPTURE(w);
    bool model_ok = true, mma_ok = true;
    model::SmemDescriptorFields m;
    mma::SmemDescriptorFields s;
    try { m = model::decode_smem_descriptor(w); } catch (const Error&) { model_ok = false; }
    try { s = mma::decode(w); } catch (const Error&) { mma_ok = false; }
    REQUIRE(model_ok == mma_ok);
    if (!model_ok) continue;
    ++accepted;
    CHECK(Int{m.start_address} == s.start_address);
    CHECK(Int{m.lbo} == s.lbo);
    CHECK(Int{m.sbo} == s.sbo);
    CHECK(Int{m.base_offset} == s.base_offset);
    CHECK(m.layout_type == s.layout_type);
  }
  CHECK(accepted > 5000);
}

TEST_CASE("the two instruction descriptor decoders agree on cta_group::1") {
  // Every kind, M, N, type pair, major-ness and negation the mma library can
  // build: the model decodes the word to the same fields. Then random words:
  // both accept or both refuse.
  using T = ElementType;
  const struct {
    model::MmaKind model;
    mma::MmaKind mma;
  } kinds[] = {{model::MmaKind::f16, mma::MmaKind::f16},
               {model::MmaKind::tf32, mma::MmaKind::tf32},
               {model::MmaKind::f8f6f4, mma::MmaKind::f8f6f4},
               {model::MmaKind::i8, mma::MmaKind::i8}};
  int built = 0;
  for (const auto& kind : kinds)
    for (T a : all_element_types)
      for (T b : all_element_types)
        for (T d : {T::fp16, T::f32, T::s32})
          for (int m : {64, 128})
            for (int n = 8; n <= 256; n += 8)
              for (int flags = 0; flags < 16; ++flags) {
                mma::InstrDescriptorSpec s;
                s.kind = kind.mma;
                s.a = a;
                s.b = b;
                s.d = d;
                s.m = m;
                s.n = n;
                s.a_major = flags & 1 ? Major::MN : Major::K;
                s.b_major = flags & 2 ? Major::MN : Major::K;
                s.negate_a = flags & 4;
                s.negate_b = flags & 8;
                if (mma::check(s) != mma::InstrDescriptorRule::ok) continue;
                const std::uint32_t word = mma::make_instr_descriptor(s);
                CAPTURE(word);
                const model::InstrDescriptorFields f = model::decode_instr_descriptor(word, kind.model);
                CHECK(f.a == a);
                CHECK(f.b == b);
                CHECK(f.d == d);
                CHECK(f.m == m);
                CHECK(f.n == n);
                CHECK(f.a_mn_major == (s.a_major == Major::MN));
                CHECK(f.b_mn_major == (s.b_major == Major::MN));
                CHECK(f.negate_a == s.negate_a);
                CHECK(f.negate_b == s.negate_b);
                CHECK_FALSE(f.sparse);
                ++built;
              }
  CHECK(built > 10000);

  std::mt19937 rng(5);
  int both = 0;
  for (int i = 0; i < 100000; ++i) {
    const auto& kind = kinds[rng() % 4];
    // Each field near its legal range, so that many words are legal; now and then one bit flipped anywhere.
    const std::uint32_t m_field[] = {4, 8, static_cast<std::uint32_t>(rng() % 32)};
    std::uint32_t w = (rng() % 3) << 4 | (rng() % 6) << 7 | (rng() % 6) << 10 | (rng() % 16) << 13 |
                      (rng() % 34) << 17 | m_field[rng() % 3] << 24;
    if (rng() % 8 == 0) w ^= 1u << (rng() % 32);
    CAPTURE(w);
    CAPTURE(model::name(kind.model));
    bool model_ok = true, mma_ok = true;
    try { model::decode_instr_descriptor(w, kind.model); } catch (const Error&) { model_ok = false; }
    try { mma::decode(w, kind.mma, 1, false); } catch (const Error&) { mma_ok = false; }
    CHECK(model_ok == mma_ok);
    both += model_ok && mma_ok;
  }
  CHECK(both > 2000);  // 3670 with this seed
}

TEST_CASE("the two instruction descriptor decoders agree on the block-scaled kinds and on .ws") {
  using T = ElementType;
  const struct {
    model::MmaKind model;
    mma::MmaKind mma;
  } kinds[] = {{model::MmaKind::f16, mma::MmaKind::f16},           {model::MmaKind::tf32, mma::MmaKind::tf32},
               {model::MmaKind::f8f6f4, mma::MmaKind::f8f6f4},     {model::MmaKind::i8, mma::MmaKind::i8},
               {model::MmaKind::mxf8f6f4, mma::MmaKind::mxf8f6f4}, {model::MmaKind::mxf4, mma::MmaKind::mxf4},
               {model::MmaKind::mxf4nvf4, mma::MmaKind::mxf4nvf4}};
  int built = 0;
  for (const auto& kind : kinds)
    for (bool ws : {false, true})
      for (T a : all_element_types)
        for (T b : all_element_types)
          for (int m : {32, 64, 128})
            for (int n : {8, 24, 64, 128, 200, 256})
              for (int flags = 0; flags < 64; ++flags) {
                mma::InstrDescriptorSpec s;
                s.kind = kind.mma;
                s.a = a;
                s.b = b;
                s.d = T::f32;
                s.m = m;
                s.n = n;
                s.ws = ws;
                s.a_major = flags & 1 ? Major::MN : Major::K;
                s.negate_b = flags & 2;
                const bool scaled = model::block_scaled(kind.model);
                if (scaled) {
                  s.scale_type = flags & 4 ? mma::ScaleType::ue4m3 : mma::ScaleType::ue8m0;
                  s.a_sf_id = flags >> 3 & 3;
                  s.b_sf_id = flags >> 5 & 1 ? 2 : 0;
                } else if (ws) {
                  s.ws_b_reuse_shift = flags & 4 ? 16 : 0;
                } else if (flags >= 4) {
                  continue;
                }
                if (mma::check(s) != mma::InstrDescriptorRule::ok) continue;
                const std::uint32_t word = mma::make_instr_descriptor(s);
                CAPTURE(word);
                const model::InstrDescriptorFields f = model::decode_instr_descriptor(word, kind.model, ws);
                CHECK(f.a == a);
                CHECK(f.b == b);
                CHECK(f.m == m);
                CHECK(f.n == n);
                CHECK(f.a_mn_major == (s.a_major == Major::MN));
                CHECK(f.negate_b == s.negate_b);
                if (scaled) {
                  CHECK(f.ue8m0 == (s.scale_type == mma::ScaleType::ue8m0));
                  CHECK(f.a_sf_id == s.a_sf_id);
                  CHECK(f.b_sf_id == s.b_sf_id);
                }
                ++built;
              }
  CHECK(built > 5000);

  std::mt19937 rng(6);
  int both = 0;
  for (int i = 0; i < 200000; ++i) {
    const auto& kind = kinds[rng() % 7];
    const bool ws = rng() % 2 && !model::block_scaled(kind.model);
    const std::uint32_t m_field[] = {2, 4, 8, static_cast<std::uint32_t>(rng() % 32)};
    const std::uint32_t n_field[] = {8, 16, 32, static_cast<std::uint32_t>(rng() % 34)};
    std::uint32_t w = (rng() % 4) << 4 | (rng() % 6) << 7 | (rng() % 6) << 10 | (rng() % 16) << 13 |
                      n_field[rng() % 4] << 17 | (rng() % 2) << 23;
    w |= model::block_scaled(kind.model) ? (1u << 27 | (rng() % 4) << 29) : m_field[rng() % 4] << 24 | (rng() % 4) << 30;
    if (rng() % 8 == 0) w ^= 1u << (rng() % 32);
    CAPTURE(w);
    const std::string kind_name = model::name(kind.model);
    CAPTURE(kind_name);
    CAPTURE(ws);
    std::string model_error, mma_error;
    bool model_ok = true, mma_ok = true;
    try { model::decode_instr_descriptor(w, kind.model, ws); } catch (const Error& e) { model_ok = false, model_error = e.what(); }
    try { mma::decode(w, kind.mma, 1, ws); } catch (const Error& e) { mma_ok = false, mma_error = e.what(); }
    CAPTURE(model_error);
    CAPTURE(mma_error);
    CHECK(model_ok == mma_ok);
    both += model_ok && mma_ok;
  }
  CHECK(both > 2000);
}
