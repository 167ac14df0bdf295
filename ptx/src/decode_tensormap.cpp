// Tensor maps a kernel edits (PTX #tensormap-instructions-tensormap-replace,
// #parallel-synchronization-and-communication-instructions-tensormap-cp-fenceproxy):
// tensormap.replace rewrites one field of the 128-byte map at an address in
// shared or global memory, tensormap.cp_fenceproxy copies a map from shared
// to global memory; the TMA then reads the map from those bytes (decode_tma).
// CUTLASS's grouped GEMMs (75_blackwell_grouped_gemm) point one map at each
// group's tensors so. Every field whose new_val encoding is known is run: the
// global address, global_dim (elements) and global_stride (bytes, PTX ISA 8.5
// and later), rank (zero-based: rank - 1), box_dim and element_stride (as the
// driver takes them; the CUDA Programming Guide's device-side encoding
// example), swizzle_mode (0 none, 1 32B, 2 64B, 3 128B, 4 96B),
// swizzle_atomicity (0 16B, 1 32B, 2 32B with the 8B flip, 3 64B),
// fill_mode (0 zeros, 1 OOB-NaN) and interleave_layout (0 none, 1 16B, 2 32B)
// (tcgen05-facts-2.md §5.1), and elemtype, which numbers the types otherwise
// than CUtensorMapDataType (kElemTypes). The map keeps what the model's TMA
// moves: a value it cannot move (the 96B swizzle, the 64B and flipped
// atomicities, interleaving) stops the thread, named.
#include <cstring>
#include <iterator>
#include <optional>

#include "decode.hpp"
#include "tcgen/core/hex.hpp"
#include "tcgen/ptx/tensor_map.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

namespace {

constexpr std::uint32_t kMapBytes = 128;
enum class Field {
  global_address, global_dim, global_stride, rank, box_dim, element_stride, swizzle_mode, swizzle_atomicity,
  fill_mode, interleave_layout, elemtype,
};

// .elemtype's new_val, by value: the CUtensorMapDataType it stands for and the bytes the model's TMA
// moves per element (1 for the packed 4- and 6-bit types, which move in units of their own). The
// numbering is Triton's for the maps its kernels build on the device and run on B200s
// (TMA_ELEMENT_TYPES, lib/Dialect/TritonNvidiaGPU/Transforms/TMAUtilities.cpp): u8, u16, u32, s32,
// u64, s64, f16, f32, f32.ftz, f64, bf16, tf32, tf32.ftz, b4x16, b4x16_p64, b6x16_p32.
struct ElemType {
  int data_type;
  std::uint32_t element_bytes;
};
constexpr ElemType kElemTypes[] = {{0, 1},  {1, 2}, {2, 4},  {3, 4},  {4, 8},  {5, 8},  {6, 2},  {7, 4},
                                   {10, 4}, {8, 8}, {9, 2},  {11, 4}, {12, 4}, {13, 1}, {14, 1}, {15, 1}};
constexpr bool takes_ord(Field f) {
  return f == Field::global_dim || f == Field::global_stride || f == Field::box_dim || f == Field::element_stride;
}

// new_val's range for each field but the address, dims and strides.
constexpr std::uint32_t most(Field f) {
  switch (f) {
    case Field::rank: return 4;
    case Field::box_dim: return 256;
    case Field::element_stride: return 8;
    case Field::swizzle_mode: return 4;
    case Field::swizzle_atomicity: return 3;
    case Field::fill_mode: return 1;
    case Field::interleave_layout: return 2;
    case Field::elemtype: return std::size(kElemTypes) - 1;
    default: return ~0u;
  }
}

// The swizzle a map's mode and atomicity make, where the model's TMA moves it.
std::optional<tma::TmaSwizzle> swizzle_of(std::uint32_t mode, std::uint32_t atomicity) {
  if (atomicity == 0 && mode <= 3) return static_cast<tma::TmaSwizzle>(mode);  // none, 32B, 64B, 128B
  if (atomicity == 1 && mode == 3) return tma::TmaSwizzle::b128_atom32b;
  return std::nullopt;
}

// The 128 bytes at `addr` in `space` (shared::cta or global), 16 at a time.
void map_bytes(Thread& t, Space space, std::uint64_t addr, std::uint8_t* bytes, bool write, const Instruction& in) {
  for (std::uint32_t at = 0; at < kMapBytes; at += 16) {
    if (write)
      t.store(space, addr + at, bytes + at, 16, in);
    else
      t.load(space, addr + at, bytes + at, 16, in);
  }
}

// tensormap.replace.tile.field.ss.b1024.type [addr], {ord,} new_val; the modifiers hold the field.
void replace(Thread& t, const Instruction& in) {
  const std::uint64_t addr = t.address(in.ops[0]);
  std::uint8_t bytes[kMapBytes];
  map_bytes(t, in.space, addr, bytes, false, in);
  std::optional<DecodedTensorMap> map = decode_tensor_map(bytes);
  if (!map)
    fault("tensor map", hex(addr) + " (" + in.opcode + ")",
          "the address of a tensor map the host model encoded (cuTensorMapEncodeTiled under tcgen run), copied "
          "whole");
  const auto field = in.modifiers.get<Field>();
  const std::uint32_t ord = takes_ord(field) ? t.get<std::uint32_t>(in.ops[1]) : 0;
  const Operand& value = in.ops[takes_ord(field) ? 2 : 1];
  if (takes_ord(field) && ord >= (field == Field::global_stride ? 4u : 5u))
    fault("ord", std::to_string(ord) + " (" + in.opcode + ")",
          field == Field::global_stride ? "a stride of dimensions 1 to 4, ord 0 to 3" : "a dimension, 0 to 4");
  const bool wide = field == Field::global_address || field == Field::global_stride;  // 64-bit new_val
  const std::uint32_t new_val = wide ? 0 : t.get<std::uint32_t>(value);
  const bool from_one = field == Field::box_dim || field == Field::element_stride;
  if (most(field) != ~0u && (new_val > most(field) || (from_one && new_val == 0)))
    fault("new_val", std::to_string(new_val) + " (" + in.opcode + ")",
          std::string(from_one ? "1" : "0") + " to " + std::to_string(most(field)) +
              " (PTX #data-movement-and-conversion-instructions-tensormap-replace)");
  tma::TensorMapSpec& s = map->spec;
  const std::uint32_t atomicity = s.swizzle == tma::TmaSwizzle::b128_atom32b ? 1 : 0;
  const std::uint32_t mode = s.swizzle == tma::TmaSwizzle::b128_atom32b ? 3 : static_cast<std::uint32_t>(s.swizzle);
  const auto not_moved = [&](const std::string& what) {
    fault("new_val", std::to_string(new_val) + " (" + in.opcode + ")", what + ", which the model's TMA does not move");
  };
  switch (field) {
    case Field::global_address: map->global = t.get<std::uint64_t>(value); break;
    case Field::global_dim: s.global_dims[ord] = new_val; break;
    case Field::global_stride: s.global_strides[ord] = t.get<std::uint64_t>(value); break;
    case Field::rank: s.rank = new_val + 1; break;
    case Field::box_dim: s.box_dims[ord] = new_val; break;
    case Field::element_stride: s.element_strides[ord] = new_val; break;
    case Field::swizzle_mode:
    case Field::swizzle_atomicity: {
      const auto sw = field == Field::swizzle_mode ? swizzle_of(new_val, atomicity) : swizzle_of(mode, new_val);
      if (!sw) not_moved("a swizzle other than none, 32B, 64B, 128B and 128B with 32B atoms");
      s.swizzle = *sw;
      break;
    }
    case Field::fill_mode:
      s.oob_fill = new_val == 0 ? tma::TmaOobFill::zero : tma::TmaOobFill::nan_request_zero_fma;
      break;
    case Field::interleave_layout:
      if (new_val != 0) not_moved("an interleaved layout");
      break;
    case Field::elemtype:
      s.data_type = kElemTypes[new_val].data_type;
      s.element_bytes = kElemTypes[new_val].element_bytes;
      break;
  }
  // Rewritten as it stands, unchecked: a map may pass through states no TMA may use (a global address
  // before its dims); the TMA that uses it checks it against the kernel's memory.
  const TensorMap m = encode_unchecked(s, map->global);
  std::memcpy(bytes, m.bytes, kMapBytes);
  map_bytes(t, in.space, addr, bytes, true, in);
}

// tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned [dst], [src], size
void cp_fenceproxy(Thread& t, const Instruction& in) {
  if (t.get<std::uint32_t>(in.ops[2]) != kMapBytes)
    fault("size", std::to_string(t.get<std::uint32_t>(in.ops[2])) + " (" + in.opcode + ")", "128, a tensor map's bytes");
  std::uint8_t bytes[kMapBytes];
  map_bytes(t, Space::shared, t.address(in.ops[1]), bytes, false, in);
  map_bytes(t, Space::global, t.address(in.ops[0]), bytes, true, in);
}

}  // namespace

bool decode_tensormap_cp_fenceproxy(const Opcode& op, Instruction& in, std::string& why) {
  if (in.ops.size() != 3 || !op.has("global") || !op.has("shared::cta")) {
    why = "tensormap.cp_fenceproxy.global.shared::cta... [dst], [src], 128";
    return false;
  }
  in.run = &cp_fenceproxy;
  return true;
}

bool decode_tensormap_replace(const Opcode& op, Instruction& in, std::string& why) {
  const int field = op.which({"global_address", "global_dim", "global_stride", "rank", "box_dim", "element_stride",
                              "swizzle_mode", "swizzle_atomicity", "fill_mode", "interleave_layout", "elemtype"});  // Field
  if (!op.has("tile") || field < 0) {
    why = "tensormap.replace.tile of a tensor map field";
    return false;
  }
  const bool ord = takes_ord(static_cast<Field>(field));
  if (in.ops.size() != (ord ? 3u : 2u) || (in.space != Space::shared && in.space != Space::global)) {
    why = ord ? "tensormap.replace.tile.field.ss.b1024.type [addr], ord, new_val"
              : "tensormap.replace.tile.field.ss.b1024.type [addr], new_val";
    return false;
  }
  in.modifiers.set(static_cast<Field>(field));
  in.run = &replace;
  return true;
}

}  // namespace tcgen::ptx
