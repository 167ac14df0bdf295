// TMA (PTX #data-movement-and-conversion-instructions-cp-async-bulk-tensor):
// tiled loads into shared memory completing on an mbarrier, with the tensor
// map decoded from the bytes its operand points to (tensor_map.hpp) and the
// tensor checked against the memory the kernel was given; the bulk-group
// bookkeeping and prefetches, which change nothing a kernel computes.
#include "decode.hpp"
#include "tcgen/exec/host_tensor_map.hpp"
#include "tcgen/ptx/tensor_map.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

namespace {

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// cp.async.bulk.tensor.Nd.shared::cluster.global[.tile].mbarrier::complete_tx::bytes[...]
//   [dst], [tensorMap, {coords}], [mbar][, ctaMask][, policy]; aux = N
void tma_load(Thread& t, const Instruction& in) {
  const std::uint64_t map_address = t.address(in.ops[1]);
  const std::optional<DecodedTensorMap> map = decode_tensor_map(t.host_bytes(map_address, 128, false, in));
  if (!map)
    fault("tensor map", hex(map_address) + " (" + in.opcode + ")",
          "the address of a tensor map the host model encoded (cuTensorMapEncodeTiled under tcgen run, or "
          "ptx::encode_tensor_map)");
  const std::uint64_t spanned = map->spec.spanned_bytes();
  const auto* tensor = t.host_bytes(map->global, spanned, false, in);
  const exec::HostTensorMap host = exec::host_tensor_map(map->spec, {tensor, spanned});
  const Operand& c = in.ops[2];
  std::array<std::int32_t, 5> coords{};
  for (std::uint32_t i = 0; i < c.count && i < 5; ++i) coords[i] = t.get<std::int32_t>(in.elements[c.first + i]);
  const std::uint32_t dst = static_cast<std::uint32_t>(t.address(in.ops[0]));
  const std::uint32_t mbar = static_cast<std::uint32_t>(t.address(in.ops[3]));
  t.arch().tma_load_box(host, dst, mbar, coords, static_cast<int>(c.count));
}

void nothing(Thread&, const Instruction&) {}

}  // namespace

bool decode_tma(const Opcode& op, Instruction& in, std::string& why) {
  if (op.base() != "cp" || op.parts.size() < 3 || op.parts[1] != "async" || op.parts[2] != "bulk") return false;
  if (op.has("commit_group") || op.has("wait_group")) {
    in.run = &nothing;  // bulk groups order TMA stores, which the interpreter does not run
    return true;
  }
  if (!op.has("tensor")) {
    why = "cp.async.bulk without .tensor";
    return false;
  }
  // .shared::cta/::cluster then .global: a load; .global then .shared::cta: a store.
  std::size_t shared = 0, global = 0;
  for (std::size_t i = 1; i < op.parts.size(); ++i) {
    if (op.parts[i].substr(0, 6) == "shared" && !shared) shared = i;
    if (op.parts[i] == "global" && !global) global = i;
  }
  const bool load = shared && global && shared < global;
  if (!load) {
    why = "TMA stores (cp.async.bulk.tensor.global.shared::cta)";
    return false;
  }
  if (op.has("multicast::cluster") || op.has("cta_group::2") || op.has("im2col")) {
    why = "multicast, cta_group::2 and im2col TMA loads (clusters of more than one CTA)";
    return false;
  }
  if (in.ops.size() < 4 || in.ops[2].kind != Operand::Kind::vector) {
    why = "[dst], [tensorMap, {coordinates}], [mbar]";
    return false;
  }
  in.run = &tma_load;
  return true;
}

}  // namespace tcgen::ptx
