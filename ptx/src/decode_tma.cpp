// TMA (PTX #data-movement-and-conversion-instructions-cp-async-bulk-tensor):
// tiled loads into shared memory completing on an mbarrier, tiled stores and
// reductions (-cp-reduce-async-bulk-tensor), with the tensor
// map decoded from the bytes its operand points to (tensor_map.hpp) and the
// tensor checked against the memory the kernel was given; the bulk-group
// bookkeeping and prefetches, which change nothing a kernel computes.
#include "decode.hpp"
#include "tcgen/core/hex.hpp"
#include "tcgen/exec/host_tensor_map.hpp"
#include "tcgen/ptx/tensor_map.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

namespace {

// A TMA's mode: .tile, .tile::gather4 (loads) or .im2col (.im2col_no_offs for stores).
enum class TmaMode : std::uint8_t { tile, gather4, im2col };

struct TmaLoadModifiers {
  TmaMode mode;
  bool multicast;  // .multicast::cluster: ctaMask is the operand after [mbar] (and the offsets)
  int cta_group;   // 2: mbar is an mbarrier of the CTA pair (HostArch::tma_load_pair)
};

struct TmaStoreModifiers {
  TmaMode mode;
  model::TmaReduce reduce;  // cp.reduce's op; none for a plain store
};

// The tensor map an operand points to and its tensor, the bytes the boxes at `boxes` touch checked to
// lie in the kernel's memory (writable for a store): a map may span more than its buffer (CUTLASS's
// grouped block-scaled GEMM rewrites a scale-factor map's dims past it) while no box reads there.
exec::HostTensorMap tensor_map(Thread& t, const Instruction& in, const Operand& op, bool store,
                               std::initializer_list<std::array<std::int32_t, 5>> boxes,
                               const std::array<std::int32_t, 3>& im2col_offsets = {}) {
  const std::uint64_t map_address = t.address(op);
  std::string why;
  const std::optional<DecodedTensorMap> map = decode_tensor_map(t.host_bytes(map_address, 128, false, in), &why);
  if (!map)
    fault("tensor map", hex(map_address) + " (" + in.opcode + ")",
          "the address of a tensor map in NVIDIA's layout that the model's TMA moves (" + why + ")");
  for (const std::array<std::int32_t, 5>& box : boxes)
    if (const auto [first, end] = map->spec.touched_bytes(box, im2col_offsets); end > first)
      t.host_bytes(map->global + first, end - first, store, in);
  // Device memory is host memory: the model touches only the bytes checked above.
  const auto* tensor = reinterpret_cast<const std::uint8_t*>(map->global);
  return exec::host_tensor_map(map->spec, {tensor, map->spec.spanned_bytes()});
}

std::array<std::int32_t, 5> coordinates(Thread& t, const Instruction& in, const Operand& c) {
  std::array<std::int32_t, 5> coords{};
  for (std::uint32_t i = 0; i < c.count && i < 5; ++i) coords[i] = t.get<std::int32_t>(in.elements[c.first + i]);
  return coords;
}

// cp.async.bulk.tensor.Nd.shared::cluster.global[.tile].mbarrier::complete_tx::bytes[.multicast::cluster][...]
//   [dst], [tensorMap, {coords}], [mbar][, {im2col offsets}][, ctaMask][, policy]
void tma_load(Thread& t, const Instruction& in) {
  const TmaLoadModifiers m = in.modifiers.get<TmaLoadModifiers>();
  const std::array<std::int32_t, 5> c = coordinates(t, in, in.ops[2]);
  const bool gather4 = m.mode == TmaMode::gather4, im2col = m.mode == TmaMode::im2col;
  // .im2col: {offsets} after [mbar], one 16-bit offset per spatial dim, read as signed (UNCONFIRMED:
  // CUTLASS's are filter taps times the dilation, 0 or more, reversed for dgrad from (R - 1)·dil).
  std::array<std::int32_t, 3> offsets{};
  if (im2col)
    for (std::uint32_t i = 0; i < in.ops[4].count && i < 3; ++i)
      offsets[i] = t.get<std::int16_t>(in.elements[in.ops[4].first + i]);
  const exec::HostTensorMap map =
      gather4  ? tensor_map(t, in, in.ops[1], false,
                            {{c[0], c[1], 0, 0, 0}, {c[0], c[2], 0, 0, 0}, {c[0], c[3], 0, 0, 0}, {c[0], c[4], 0, 0, 0}})
      : im2col ? tensor_map(t, in, in.ops[1], false, {c}, offsets)
               : tensor_map(t, in, in.ops[1], false, {c});
  const std::uint32_t dst = static_cast<std::uint32_t>(t.address(in.ops[0]));
  if (!t.cta().bulk_reads.empty())  // a gather4 writes four boxes
    t.check_bulk_reads(dst, static_cast<std::uint32_t>(map.spec.box_bytes() * (gather4 ? 4 : 1)), in);
  const std::uint32_t mbar = static_cast<std::uint32_t>(t.address(in.ops[3]));
  const std::uint16_t mask = m.multicast ? t.get<std::uint16_t>(in.ops[im2col ? 5 : 4]) : std::uint16_t{0};
  if (m.multicast && mask == 0)
    fault("ctaMask", "0", "at least one destination CTA (PTX #data-movement-and-conversion-instructions-cp-async-bulk-tensor)");
  if (im2col) {
    if (in.ops[4].count + 2 != map.spec.rank)
      fault("im2col offsets", std::to_string(in.ops[4].count), "one per spatial dimension of the map: its rank - 2");
    t.arch().tma_load_box(map, dst, mbar, c, static_cast<int>(in.ops[2].count), mask, m.cta_group, &offsets);
    return;
  }
  if (gather4) {  // .tile::gather4: {col, row0, row1, row2, row3}
    if (in.ops[2].count != 5) fault("coordinates", std::to_string(in.ops[2].count), "5 for .tile::gather4: col, row0-row3");
    t.arch().tma_load_gather4(map, dst, mbar, c[0], {c[1], c[2], c[3], c[4]});
    return;
  }
  t.arch().tma_load_box(map, dst, mbar, c, static_cast<int>(in.ops[2].count), mask, m.cta_group);
}

// cp.async.bulk.tensor.Nd.global.shared::cta[.tile|.im2col_no_offs].bulk_group[.L2::cache_hint]
//   [tensorMap, {coords}], [src][, policy] (.im2col_no_offs: an im2col map's pixels, model::tma_store)
// cp.reduce.async.bulk.tensor.Nd.global.shared::cta.op[.tile].bulk_group [tensorMap, {coords}], [src]: the same
// with each element combined by op.
void tma_store(Thread& t, const Instruction& in) {
  const TmaStoreModifiers m = in.modifiers.get<TmaStoreModifiers>();
  const bool im2col = m.mode == TmaMode::im2col;
  const std::array<std::int32_t, 5> c = coordinates(t, in, in.ops[1]);
  const exec::HostTensorMap map = tensor_map(t, in, in.ops[0], true, {c});
  if (map.spec.im2col.on != im2col)
    fault("tensor map", map.spec.im2col.on ? "an im2col map" : "a tiled map",
          std::string("a map of the instruction's mode: ") +
              (im2col ? "cuTensorMapEncodeIm2col's for .im2col_no_offs" : "cuTensorMapEncodeTiled's for .tile"));
  // The tensor is the kernel's writable memory (checked above); the map holds it as read-only bytes.
  const std::span<std::uint8_t> global(const_cast<std::uint8_t*>(map.global.data()), map.global.size());
  const std::uint32_t src = static_cast<std::uint32_t>(t.address(in.ops[2]));
  t.arch().tma_store_box(map, global, src, c, static_cast<int>(in.ops[1].count),
                         m.reduce);
  std::uint64_t rows = 1;
  for (std::uint32_t i = 1; i < map.spec.rank; ++i) rows *= map.spec.box_extent(i);
  t.bulk_read(src, src + static_cast<std::uint32_t>(map.spec.smem_row_bytes() * rows), in);
}

// cp.async.bulk.global.shared::cta.bulk_group[.L2::cache_hint] [dstMem], [srcMem], size[, policy]:
// size bytes, shared to global, through the async proxy (FlashMLA's epilogue).
void bulk_store(Thread& t, const Instruction& in) {
  const std::uint64_t dst = t.address(in.ops[0]);
  const std::uint32_t src = static_cast<std::uint32_t>(t.address(in.ops[1]));
  const std::uint32_t size = t.get<std::uint32_t>(in.ops[2]);
  const std::uint8_t* global = t.host_bytes(dst, size, true, in);  // the kernel's writable memory, checked
  t.arch().bulk_store({const_cast<std::uint8_t*>(global), size}, src);
  t.bulk_read(src, src + size, in);
}

void commit_group(Thread& t, const Instruction&) { t.commit_bulk_group(); }
// cp.async.bulk.wait_group[.read] n: the groups older than the newest n are done (here at once).
void wait_group(Thread& t, const Instruction& in) { t.wait_bulk_groups(t.get<std::uint64_t>(in.ops[0])); }


}  // namespace

// cp.reduce.async.bulk.tensor: a tiled store whose elements combine with the tensor's.
bool decode_tensor_reduce(const Opcode& op, Instruction& in, std::string& why) {
  const int reduce = op.which({"add", "min", "max", "inc", "dec", "and", "or", "xor"});
  if (reduce < 0 || op.has("im2col") || in.ops.size() < 3 || in.ops[1].kind != Operand::Kind::vector ||
      !op.has("global")) {
    why = "cp.reduce.async.bulk.tensor.Nd.global.shared::cta.op.tile.bulk_group [tensorMap, {coordinates}], [src]";
    return false;
  }
  in.modifiers.set(TmaStoreModifiers{.mode = op.has("im2col_no_offs") ? TmaMode::im2col : TmaMode::tile,
                                     .reduce = static_cast<model::TmaReduce>(reduce + 1)});  // none is 0
  in.run = &tma_store;
  return true;
}

// cp.async.bulk.prefetch[.tensor]: an L2 hint.
bool decode_bulk_prefetch(const Opcode&, Instruction& in, std::string&) {
  in.run = &run_nothing;
  return true;
}

bool decode_bulk_commit_group(const Opcode&, Instruction& in, std::string&) {
  in.run = &commit_group;
  return true;
}

bool decode_bulk_wait_group(const Opcode&, Instruction& in, std::string&) {
  in.run = &wait_group;
  return true;
}

// cp.async.bulk without .tensor: .global.shared::cta is a bulk store; the bulk loads
// (.shared::cluster.global) are not run yet.
bool decode_bulk_copy(const Opcode& op, Instruction& in, std::string& why) {
  const bool store = op.parts.size() > 4 && op.parts[3] == "global" && op.parts[4] == "shared::cta";
  if (!store || !op.has("bulk_group") || op.has("cp_mask") || in.ops.size() < 3) {
    why = "cp.async.bulk without .tensor other than .global.shared::cta.bulk_group [dst], [src], size (no .cp_mask)";
    return false;
  }
  in.run = &bulk_store;
  return true;
}

bool decode_tensor_copy(const Opcode& op, Instruction& in, std::string& why) {
  // .shared::cta/::cluster then .global: a load; .global then .shared::cta: a store.
  std::size_t shared = 0, global = 0;
  for (std::size_t i = 1; i < op.parts.size(); ++i) {
    if (op.parts[i].substr(0, 6) == "shared" && !shared) shared = i;
    if (op.parts[i] == "global" && !global) global = i;
  }
  const bool load = shared && global && shared < global;
  if (!load) {
    if (in.ops.size() < 3 || in.ops[1].kind != Operand::Kind::vector || op.has("im2col") || op.has("reduce")) {
      why = "[tensorMap, {coordinates}], [src] (.tile and .im2col_no_offs TMA stores)";
      return false;
    }
    in.modifiers.set(TmaStoreModifiers{.mode = op.has("im2col_no_offs") ? TmaMode::im2col : TmaMode::tile,
                                       .reduce = model::TmaReduce::none});
    in.run = &tma_store;
    return true;
  }
  if (op.has("im2col::w") || op.has("im2col::w::128")) {
    why = "the .im2col::w and .im2col::w::128 TMA loads";
    return false;
  }
  const TmaLoadModifiers m{.mode = op.has("tile::gather4") ? TmaMode::gather4
                                 : op.has("im2col")       ? TmaMode::im2col
                                                          : TmaMode::tile,
                          .multicast = op.has("multicast::cluster"),
                          .cta_group = op.has("cta_group::2") ? 2 : 1};
  in.modifiers.set(m);
  const bool im2col = m.mode == TmaMode::im2col;
  if (m.mode == TmaMode::gather4 && (m.multicast || m.cta_group == 2)) {
    why = ".tile::gather4 with .multicast::cluster or .cta_group::2";
    return false;
  }
  const std::size_t needed = 4 + (m.multicast ? 1 : 0) + (im2col ? 1 : 0);
  if (in.ops.size() < needed || in.ops[2].kind != Operand::Kind::vector || (im2col && in.ops[4].kind != Operand::Kind::vector)) {
    why = std::string("[dst], [tensorMap, {coordinates}], [mbar]") + (im2col ? ", {im2col offsets}" : "") +
          (m.multicast ? ", ctaMask" : "");
    return false;
  }
  in.run = &tma_load;
  return true;
}

}  // namespace tcgen::ptx
