// Tensor maps a kernel edits (PTX #tensormap-instructions-tensormap-replace,
// #parallel-synchronization-and-communication-instructions-tensormap-cp-fenceproxy):
// tensormap.replace rewrites one field of the 128-byte map at an address in
// shared or global memory, tensormap.cp_fenceproxy copies a map from shared
// to global memory; the TMA then reads the map from those bytes (decode_tma).
// CUTLASS's grouped GEMMs (75_blackwell_grouped_gemm) point one map at each
// group's tensors so. The field's bits are written as an H200 writes them
// (ptx::replace_field; tools/tensormap_sweep/replace_probe.cu), every field
// PTX names: the global address, global_dim (elements), global_stride (bytes),
// rank (zero-based), box_dim and element_stride (as the driver takes them),
// elemtype (PTX's numbering: 11 and 12 are tf32 and tf32.ftz),
// swizzle_mode (0 none, 1 32B, 2 64B, 3 128B, 4 96B), swizzle_atomicity
// (0 16B, 1 32B, 2 32B with the 8B flip, 3 64B), fill_mode (0 zeros, 1
// OOB-NaN) and interleave_layout (0 none, 1 16B, 2 32B) (tcgen05-facts-2.md
// §5.1). The map must stay one the model's TMA moves: a value that makes it
// otherwise (the 96B swizzle, the 64B and flipped atomicities, interleaving)
// stops the thread, named, as a map that is not one to begin with does.
#include <cstring>
#include <optional>

#include "decode.hpp"
#include "tcgen/core/hex.hpp"
#include "tcgen/ptx/tensor_map.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

namespace {

using Field = TensorMapField;
constexpr std::uint32_t kMapBytes = 128;
constexpr bool takes_ord(Field f) {
  return f == Field::global_dim || f == Field::global_stride || f == Field::box_dim || f == Field::element_stride;
}

// new_val's range for each field but the address and strides (PTX
// #data-movement-and-conversion-instructions-tensormap-replace; global_dim: a b32 count of elements).
constexpr std::uint32_t least(Field f) {
  return f == Field::box_dim || f == Field::element_stride || f == Field::global_dim ? 1 : 0;
}
constexpr std::uint32_t most(Field f) {
  switch (f) {
    case Field::rank: return 4;
    case Field::box_dim: return 256;
    case Field::element_stride: return 8;
    case Field::elemtype: return 15;
    case Field::swizzle_mode: return 4;
    case Field::swizzle_atomicity: return 3;
    case Field::fill_mode: return 1;
    case Field::interleave_layout: return 2;
    default: return ~0u;
  }
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
  std::string why;
  if (!decode_tensor_map(bytes, &why))
    fault("tensor map", hex(addr) + " (" + in.opcode + ")",
          "the address of a tensor map in NVIDIA's layout, copied whole (" + why + ")");
  const auto field = in.modifiers.get<Field>();
  const std::uint32_t ord = takes_ord(field) ? t.get<std::uint32_t>(in.ops[1]) : 0;
  const Operand& value = in.ops[takes_ord(field) ? 2 : 1];
  if (takes_ord(field) && ord >= (field == Field::global_stride ? 4u : 5u))
    fault("ord", std::to_string(ord) + " (" + in.opcode + ")",
          field == Field::global_stride ? "a stride of dimensions 1 to 4, ord 0 to 3" : "a dimension, 0 to 4");
  const bool wide = field == Field::global_address || field == Field::global_stride;  // 64-bit new_val
  const std::uint64_t new_val = wide ? t.get<std::uint64_t>(value) : t.get<std::uint32_t>(value);
  if (!wide && (new_val < least(field) || new_val > most(field)))
    fault("new_val", std::to_string(new_val) + " (" + in.opcode + ")",
          std::to_string(least(field)) + " to " + std::to_string(most(field)) +
              " (PTX #data-movement-and-conversion-instructions-tensormap-replace)");
  if (field == Field::global_stride && (new_val % 16 != 0 || new_val >> 40 != 0))
    fault("new_val", std::to_string(new_val) + " (" + in.opcode + ")",
          "a stride of a multiple of 16 bytes below 2^40 (DRV: globalStrides)");
  if (field == Field::swizzle_mode && new_val == 4)  // the map's two swizzle bits hold 0 to 3 (H200)
    fault("new_val", "4 (" + in.opcode + ")", "a swizzle other than 96B, which the model's TMA does not move");
  replace_field(bytes, field, ord, new_val);
  // Written as it stands: a map may pass through states no TMA may use (a global address before its
  // dims), which the TMA that uses it checks against the kernel's memory. Only a map the model's TMA
  // cannot read at all is named here, at the instruction that made it so.
  if (!decode_tensor_map(bytes, &why))
    fault("new_val", std::to_string(new_val) + " (" + in.opcode + ")",
          "a value that leaves a map the model's TMA moves (" + why + ")");
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
  const int field = op.which({"global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride",
                              "elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity",
                              "fill_mode"});  // TensorMapField
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
