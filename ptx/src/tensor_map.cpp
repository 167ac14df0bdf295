#include "tcgen/ptx/tensor_map.hpp"

#include <array>
#include <cstring>

namespace tcgen::ptx {

namespace {

// A field of the 1024-bit map: `width` bits from bit `at`, bit b being bit b % 8 of byte b / 8.
// Positions and encodings: the H200 sweep (driver 580.159.04; docs/tensor_map.md, "Field table"),
// which every accepted row of tests/data/tensormap_sweep_h200.csv.zst fits bit for bit.
struct Bits {
  unsigned at, width;
};
constexpr Bits kAddress{0, 64};    // the global address as given (tensormap.replace writes all 64 bits)
constexpr Bits kIm2col{64, 1};     // 1: cuTensorMapEncodeIm2col (and Im2colWide)
constexpr Bits kRank{68, 3};       // rank - 1
constexpr Bits kType{71, 4};       // the element type, PTX's .elemtype numbering (kTypes)
constexpr Bits kInterleave{75, 2};  // CUtensorMapInterleave
constexpr Bits kSwizzle{77, 2};     // CUtensorMapSwizzle NONE..128B
constexpr Bits kNanFill{79, 1};     // FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
constexpr Bits kTf32{80, 1};        // TFLOAT32 and TFLOAT32_FTZ: FLOAT32 and FLOAT32_FTZ with this bit
constexpr Bits kL2{81, 2};          // CUtensorMapL2promotion
// UNCONFIRMED: where 128B_ATOM_32B keeps its 32-byte atoms (tensormap.replace's .swizzle_atomicity 1).
// An H200's driver refuses the atom swizzles, and sm_90a has no .swizzle_atomicity: these two bits, zero
// in every H200 map, are tcgen's own choice until a B200 shows NVIDIA's.
constexpr Bits kAtomicity{83, 2};
// Bit 21 of bytes 8-15, which CUTLASS 4.3.4 and later clear after encoding a tensor of less than 128 KiB
// on drivers up to 13.1 (cute/atom/copy_traits_sm90_tma.hpp, make_tma_copy_desc). The H200's driver set
// it in none of its 1,018 maps, and no tensormap.replace field writes it; the model ignores it either way.
constexpr Bits kCutlassClears{85, 1};
// UNCONFIRMED: bit 65, which CuTe DSL 4.8's own encoder sets in the tiled maps of its sm_100a GEMMs
// (NVIDIA's Blackwell dense GEMM example, run by tools/cute_dsl/dense_gemm.py) and the H200's driver set
// in none. Its meaning is not known here; the model's TMA ignores it, as it must not fault a map a B200 uses.
constexpr Bits kCuteDslSets{65, 1};
constexpr Bits stride_low(unsigned i) { return {96 + 32 * i, 32}; }  // bits 4-35 of globalStrides[i]
constexpr Bits stride_high(unsigned i) { return {224 + 4 * i, 4}; }
constexpr Bits dim(unsigned i) { return {256 + 32 * i, 32}; }          // globalDim - 1
constexpr Bits element_stride(unsigned i) { return {416 + 3 * i, 3}; }  // elementStrides - 1 (entry 0 too)
constexpr Bits box(unsigned i) { return {440 + 8 * i, 8}; }            // boxDim - 1; im2col: box(0) is
                                                                       // channelsPerPixel - 1
// An im2col map's corners, each rank - 2 two's-complement fields of 16, 8 or 5 bits (rank 3, 4, 5: the
// driver's ranges), lower ones from bit 448, upper ones from bit 464; then pixelsPerColumn - 1.
constexpr unsigned corner_width(unsigned rank) { return rank == 3 ? 16 : rank == 4 ? 8 : 5; }
constexpr Bits lower_corner(unsigned rank, unsigned i) { return {448 + corner_width(rank) * i, corner_width(rank)}; }
constexpr Bits upper_corner(unsigned rank, unsigned i) { return {464 + corner_width(rank) * i, corner_width(rank)}; }
constexpr Bits kPixels{480, 10};
// Two words the driver derives from the rest (tensormap.replace leaves them as they were, so a map the
// kernel edited may hold stale values; the decoder reads neither): the box's bytes as the driver counts
// them (TensorMapSpec::driver_box_bytes) and the shared-memory alignment its swizzle needs (alignment_word).
constexpr Bits kBoxBytes{512, 64};
constexpr Bits kAlignment{576, 64};

std::uint64_t get(const std::uint8_t* b, Bits f) {
  std::uint64_t v = 0;
  for (unsigned k = 0; k < f.width; ++k) v |= std::uint64_t{(b[(f.at + k) / 8] >> ((f.at + k) % 8)) & 1u} << k;
  return v;
}

void set(std::uint8_t* b, Bits f, std::uint64_t v) {
  for (unsigned k = 0; k < f.width; ++k) {
    const auto bit = static_cast<std::uint8_t>(1u << ((f.at + k) % 8));
    b[(f.at + k) / 8] = static_cast<std::uint8_t>(((v >> k) & 1) ? b[(f.at + k) / 8] | bit : b[(f.at + k) / 8] & ~bit);
  }
}

// "bits 75-76 = 1": a field's place and what it held, for the decoder's reasons.
std::string held(Bits f, std::uint64_t v) {
  return "bits " + std::to_string(f.at) + "-" + std::to_string(f.at + f.width - 1) + " = " + std::to_string(v);
}

// A CUtensorMapDataType's code in kType, its kTf32 bit and its bytes. Codes 0-10 are PTX's .elemtype
// values (u8 u16 u32 s32 u64 s64 f16 f32 f32.ftz f64 bf16): the driver's FLOAT64 is 9, BFLOAT16 10 and
// FLOAT32_FTZ 8; tensormap.replace.elemtype 11 and 12 (tf32, tf32.ftz) write 7 and 8 with kTf32 (H200
// sweep and replace_probe). The packed types, which an H200 refuses, are NVIDIA's codes from CuTe DSL's
// encoder (cute_nvgpu.TmaDataFormat, "bits 74-71 of the TMA descriptor"; tests/data/
// tensormap_dsl_formats.csv): 11 U4 (16U4_ALIGN8B), 12 U4_UNPACK_U8 (16U4_ALIGN16B), 13 U6_UNPACK_U8
// (16U6_ALIGN16B).
struct TypeCode {
  std::uint32_t code, tf32, bytes;
};
constexpr std::array<TypeCode, 16> kTypes{{{0, 0, 1}, {1, 0, 2}, {2, 0, 4}, {3, 0, 4}, {4, 0, 8}, {5, 0, 8},
                                            {6, 0, 2}, {7, 0, 4}, {9, 0, 8}, {10, 0, 2}, {8, 0, 4}, {7, 1, 4},
                                            {8, 1, 4}, {11, 0, 1}, {12, 0, 1}, {13, 0, 1}}};
// The other spelling of TFLOAT32 and TFLOAT32_FTZ: CuTe DSL's encoder writes them as codes 14 (TF32_RN)
// and 15 (TF32_FTZ_RN) without kTf32, where the H200's driver writes 7 and 8 with it.
struct TypeAlias {
  std::uint32_t code, data_type;
};
constexpr std::array<TypeAlias, 2> kDslTf32{{{14, 11}, {15, 12}}};

// The data type a spec is encoded with: its own, or the unsigned type of its element size.
int data_type_of(const tma::TensorMapSpec& s) {
  if (s.data_type >= 0) return s.data_type;
  return s.element_bytes == 1 ? 0 : s.element_bytes == 2 ? 1 : s.element_bytes == 4 ? 2 : 4;  // UINT8/16/32/64
}

// alignment_word: 16 without a swizzle, else the bytes of the swizzle's repeating pattern (256, 512,
// 1024; PTX #tensor-swizzling-modes). UNCONFIRMED: 1024 for 128B_ATOM_32B.
std::uint64_t alignment_word(tma::TmaSwizzle s) {
  return s == tma::TmaSwizzle::none ? 16 : s == tma::TmaSwizzle::b128_atom32b ? 1024 : 128u << static_cast<unsigned>(s);
}

}  // namespace

TensorMap encode_tensor_map(const tma::TensorMapSpec& spec, const void* global) {
  spec.validate(reinterpret_cast<std::uintptr_t>(global));
  return encode_unchecked(spec, reinterpret_cast<std::uintptr_t>(global));
}

TensorMap encode_unchecked(const tma::TensorMapSpec& spec, std::uint64_t global) {
  TensorMap m{};
  std::uint8_t* b = m.bytes;
  const TypeCode type = kTypes[static_cast<std::size_t>(data_type_of(spec)) % kTypes.size()];
  const bool atom32b = spec.swizzle == tma::TmaSwizzle::b128_atom32b;
  const std::uint32_t rank = spec.rank >= 1 && spec.rank <= 5 ? spec.rank : 1;
  set(b, kAddress, global);
  set(b, kIm2col, spec.im2col.on);
  set(b, kRank, rank - 1);
  set(b, kType, type.code);
  set(b, kTf32, type.tf32);
  set(b, kSwizzle, atom32b ? 3 : static_cast<std::uint64_t>(spec.swizzle));
  set(b, kAtomicity, atom32b ? 1 : 0);
  set(b, kNanFill, spec.oob_fill == tma::TmaOobFill::nan_request_zero_fma);
  set(b, kL2, static_cast<std::uint64_t>(spec.l2_promotion));
  for (std::uint32_t i = 0; i < rank; ++i) {
    set(b, dim(i), spec.global_dims[i] - 1);
    set(b, element_stride(i), spec.element_strides[i] - 1);
    if (!spec.im2col.on) set(b, box(i), spec.box_dims[i] - 1);
    if (i + 1 < rank) {
      set(b, stride_low(i), spec.global_strides[i] >> 4);
      set(b, stride_high(i), spec.global_strides[i] >> 36);
    }
  }
  if (spec.im2col.on) {
    set(b, box(0), spec.im2col.channels_per_pixel - 1);
    for (std::uint32_t i = 0; i + 2 < rank; ++i) {
      set(b, lower_corner(rank, i), static_cast<std::uint64_t>(spec.im2col.lower_corner[i]));
      set(b, upper_corner(rank, i), static_cast<std::uint64_t>(spec.im2col.upper_corner[i]));
    }
    set(b, kPixels, spec.im2col.pixels_per_column - 1);
  }
  tma::TensorMapSpec typed = spec;
  typed.element_bytes = type.bytes;
  set(b, kBoxBytes, typed.driver_box_bytes());
  set(b, kAlignment, alignment_word(spec.swizzle));
  return m;
}

std::optional<DecodedTensorMap> decode_tensor_map(const std::uint8_t* b, std::string* why) {
  const auto refuse = [&](const std::string& text) -> std::optional<DecodedTensorMap> {
    if (why) *why = text;
    return std::nullopt;
  };
  // Bits no field of the layout explains must be clear: bytes 8-15 outside their fields, 30-31, the
  // bits past the element strides and past the pixels (past the boxes of a tiled map). Bytes 64-127 are
  // read past: CuTe DSL 4.8's own encoder leaves them as the memory held them (stack and heap addresses
  // seen there), and its maps run on B200s, so the TMA reads the map from the first 64.
  std::uint8_t known[128] = {};
  for (Bits f : {kAddress, kIm2col, kRank, kType, kInterleave, kSwizzle, kNanFill, kTf32, kL2, kAtomicity,
                 kCutlassClears, kCuteDslSets, Bits{96, 144}, Bits{256, 175}, Bits{440, 50}, Bits{512, 512}})
    for (unsigned k = 0; k < f.width; ++k) known[(f.at + k) / 8] |= static_cast<std::uint8_t>(1u << ((f.at + k) % 8));
  for (unsigned i = 0; i < 128; ++i)
    if (b[i] & ~known[i])
      return refuse("byte " + std::to_string(i) + " = " + std::to_string(b[i]) +
                    ": set bits where NVIDIA's map (as an H200 writes it, docs/tensor_map.md) has no field");
  const bool im2col = get(b, kIm2col);
  const auto rank = static_cast<std::uint32_t>(get(b, kRank) + 1);
  if (rank > 5) return refuse("rank: " + held(kRank, rank - 1) + ", expected rank - 1 of 0 to 4");
  const std::uint64_t interleave = get(b, kInterleave);
  if (interleave != 0)
    return refuse("interleave: " + held(kInterleave, interleave) + ", which the model's TMA does not move (0: none)");
  const std::uint64_t mode = get(b, kSwizzle), atomicity = get(b, kAtomicity);
  if (atomicity > 1 || (atomicity == 1 && mode != 3))
    return refuse("swizzle: mode " + std::to_string(mode) + " with atomicity " + held(kAtomicity, atomicity) +
                  ", which the model's TMA does not move (atomicity 1: 128B with 32-byte atoms)");
  const std::uint64_t code = get(b, kType), tf32 = get(b, kTf32);
  int data_type = -1;
  for (std::size_t t = 0; t < kTypes.size(); ++t)
    if (kTypes[t].code == code && kTypes[t].tf32 == tf32) data_type = static_cast<int>(t);
  for (const TypeAlias& a : kDslTf32)
    if (a.code == code && tf32 == 0) data_type = static_cast<int>(a.data_type);
  if (data_type < 0)
    return refuse("element type: " + held(kType, code) + " with tf32 " + held(kTf32, tf32) +
                  ", not a type the layout is known to hold");
  DecodedTensorMap d;
  tma::TensorMapSpec& s = d.spec;
  d.global = get(b, kAddress);
  s.rank = rank;
  s.data_type = data_type;
  s.element_bytes = kTypes[static_cast<std::size_t>(data_type)].bytes;
  s.swizzle = atomicity ? tma::TmaSwizzle::b128_atom32b : static_cast<tma::TmaSwizzle>(mode);
  s.oob_fill = get(b, kNanFill) ? tma::TmaOobFill::nan_request_zero_fma : tma::TmaOobFill::zero;
  s.l2_promotion = static_cast<tma::TmaL2Promotion>(get(b, kL2));
  for (std::uint32_t i = 0; i < rank; ++i) {
    s.global_dims[i] = get(b, dim(i)) + 1;
    s.element_strides[i] = static_cast<std::uint32_t>(get(b, element_stride(i)) + 1);
    if (!im2col) s.box_dims[i] = static_cast<std::uint32_t>(get(b, box(i)) + 1);
    if (i + 1 < rank) s.global_strides[i] = get(b, stride_low(i)) << 4 | get(b, stride_high(i)) << 36;
  }
  if (im2col) {
    s.im2col.on = true;
    s.im2col.channels_per_pixel = static_cast<std::uint32_t>(get(b, box(0)) + 1);
    s.im2col.pixels_per_column = static_cast<std::uint32_t>(get(b, kPixels) + 1);
    const unsigned w = corner_width(rank);
    const auto signed_corner = [&](Bits f) {
      const std::uint64_t v = get(b, f);
      return static_cast<std::int32_t>(v & (std::uint64_t{1} << (w - 1)) ? static_cast<std::int64_t>(v) - (std::int64_t{1} << w)
                                                                          : static_cast<std::int64_t>(v));
    };
    for (std::uint32_t i = 0; i + 2 < rank; ++i) {
      s.im2col.lower_corner[i] = signed_corner(lower_corner(rank, i));
      s.im2col.upper_corner[i] = signed_corner(upper_corner(rank, i));
    }
  } else if (get(b, kPixels) != 0) {
    return refuse("a tiled map with " + held(kPixels, get(b, kPixels)) + ", where only an im2col map has a field");
  }
  return d;
}

void replace_field(std::uint8_t* b, TensorMapField field, std::uint32_t ord, std::uint64_t v) {
  switch (field) {
    case TensorMapField::global_address: set(b, kAddress, v); break;
    case TensorMapField::rank: set(b, kRank, v); break;
    case TensorMapField::box_dim: set(b, box(ord), v - 1); break;
    case TensorMapField::global_dim: set(b, dim(ord), v - 1); break;
    case TensorMapField::global_stride:
      set(b, stride_low(ord), v >> 4);
      set(b, stride_high(ord), v >> 36);
      break;
    case TensorMapField::element_stride: set(b, element_stride(ord), v - 1); break;
    case TensorMapField::elemtype:  // PTX's numbers: 11, 12 tf32, tf32.ftz; 13-15 the packed types
      set(b, kType, v >= 11 && v <= 15 ? kTypes[v].code : v);  // the CUtensorMapDataType of that number
      set(b, kTf32, v == 11 || v == 12);
      break;
    case TensorMapField::interleave_layout: set(b, kInterleave, v); break;
    case TensorMapField::swizzle_mode: set(b, kSwizzle, v); break;
    case TensorMapField::swizzle_atomicity: set(b, kAtomicity, v); break;
    case TensorMapField::fill_mode: set(b, kNanFill, v); break;
  }
}

}  // namespace tcgen::ptx
