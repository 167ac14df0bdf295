// Tensor maps a kernel edits (PTX #tensormap-instructions-tensormap-replace,
// #parallel-synchronization-and-communication-instructions-tensormap-cp-fenceproxy):
// tensormap.replace rewrites one field of the 128-byte map at an address in
// shared or global memory, tensormap.cp_fenceproxy copies a map from shared
// to global memory; the TMA then reads the map from those bytes (decode_tma).
// CUTLASS's grouped GEMMs (75_blackwell_grouped_gemm) point one map at each
// group's tensors so. The fields whose meaning the model knows from the
// programs that use them are run: the global address, global_dim (elements)
// and global_stride (bytes, PTX ISA 8.5 and later); the others are listed as
// not run.
#include <cstring>
#include <optional>

#include "decode.hpp"
#include "tcgen/core/hex.hpp"
#include "tcgen/ptx/tensor_map.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

namespace {

constexpr std::uint32_t kMapBytes = 128;
enum class Field { global_address, global_dim, global_stride };

// The 128 bytes at `addr` in `space` (shared::cta or global), 16 at a time.
void map_bytes(Thread& t, Space space, std::uint64_t addr, std::uint8_t* bytes, bool write, const Instruction& in) {
  for (std::uint32_t at = 0; at < kMapBytes; at += 16) {
    if (write)
      t.store(space, addr + at, bytes + at, 16, in);
    else
      t.load(space, addr + at, bytes + at, 16, in);
  }
}

// tensormap.replace.tile.field.ss.b1024.type [addr], {ord,} new_val. aux: the field.
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
  const std::uint32_t ord = field == Field::global_address ? 0 : t.get<std::uint32_t>(in.ops[1]);
  const Operand& value = in.ops[field == Field::global_address ? 1 : 2];
  if (field != Field::global_address && ord >= (field == Field::global_dim ? 5u : 4u))
    fault("ord", std::to_string(ord) + " (" + in.opcode + ")",
          field == Field::global_dim ? "a dimension, 0 to 4" : "a stride of dimensions 1 to 4, ord 0 to 3");
  tma::TensorMapSpec& s = map->spec;
  switch (field) {
    case Field::global_address: map->global = t.get<std::uint64_t>(value); break;
    case Field::global_dim: s.global_dims[ord] = t.get<std::uint32_t>(value); break;
    case Field::global_stride: s.global_strides[ord] = t.get<std::uint64_t>(value); break;
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
  const int field = op.which({"global_address", "global_dim", "global_stride"});
  if (!op.has("tile") || field < 0) {
    why = "tensormap.replace.tile of .global_address, .global_dim or .global_stride (the other fields' encodings are "
          "not modelled yet)";
    return false;
  }
  if (in.ops.size() != (field == 0 ? 2u : 3u) || (in.space != Space::shared && in.space != Space::global)) {
    why = field == 0 ? "tensormap.replace.tile.global_address.ss.b1024.b64 [addr], new_val"
                     : "tensormap.replace.tile.field.ss.b1024.type [addr], ord, new_val";
    return false;
  }
  in.modifiers.set(static_cast<Field>(field));
  in.run = &replace;
  return true;
}

}  // namespace tcgen::ptx
