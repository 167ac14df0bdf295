// tcgen05.cp shared memory → Tensor Memory (PTX #tcgen05-instructions-tcgen05-cp,
// tcgen05-facts-2.md §2), single thread, without decompression.
#include <algorithm>
#include <string>

#include "tcgen/model/cta.hpp"
#include "tcgen/model/operand_fetch.hpp"
#include "tcgen/model/smem_descriptor_decode.hpp"
#include "tcgen/core/hex.hpp"

namespace tcgen::model {

void Cta::cp(Thread t, CpShape shape, std::uint32_t taddr, std::uint64_t s_desc, CtaGroup group) {
  const Issue issue{"tcgen05.cp.cta_group::" + std::to_string(static_cast<int>(group)) + "." + name(shape) +
                        " [taddr], s-desc",
                    t.warp, t.lane};
  check_thread(issue, t);
  check_cta_group(issue, group);
  SmemDescriptorFields f;
  try {
    f = decode_smem_descriptor(s_desc);
  } catch (const Error& e) {
    raise(ModelError(issue, Rule::descriptor_invalid, "s-desc." + e.field(), e.value(),
                     "decoding s-desc " + hex(s_desc) + " failed: " + e.what() + "."));
  }
  // A source is a K-major canonical matrix of row_bytes(shape) bytes a row,
  // swizzled or not: FlashMLA's MODEL1 decode copies its 128B-swizzled Q tile
  // so, on B200s. 128B_base32B is an MN-major layout.
  if (f.layout_type == 1)
    raise(ModelError(issue, Rule::unsupported, "s-desc layout type", "1 (128B_base32B)",
                     "a tcgen05.cp source is K-major: none, 32B, 64B or 128B swizzled (PTX #tcgen05-canonical-layouts)."));
  const int lane0 = static_cast<int>(taddr >> 16);
  if (lane0 != 0)
    raise(ModelError(issue, Rule::unsupported, "taddr lane", std::to_string(lane0),
                     "the model copies to lane 0 only, the one lane CUTLASS uses; PTX does not say which others work."));
  if (group == CtaGroup::one) return cp_share(issue, t, keys_.thread(t.warp, t.lane), shape, taddr, f);
  // cta_group::2: "the data is copied into the Tensor Memory of both the
  // current and the peer CTAs"; each reads the source at s-desc in its own
  // shared memory, as CUTLASS's 2-SM copy traits lay out both CTAs alike
  // (UNCONFIRMED: tcgen05-facts-2.md §2). Both are checked before either is written.
  for (const bool check_only : {true, false}) {
    if (!check_only) cp_share(issue, t, keys_.thread(t.warp, t.lane), shape, taddr, f);
    const ActingFor acting(*peer_, *this);
    peer_->cp_share(issue, t, peer_->issuer_key(*this, t), shape, taddr, f, check_only);
  }
}

void Cta::cp_share(const Issue& issue, Thread t, int issuer, CpShape shape, std::uint32_t taddr,
                   const SmemDescriptorFields& f, bool check_only) {
  const int col0 = static_cast<int>(taddr & 0xFFFF);
  const int rows = source_rows(shape), bytes = row_bytes(shape), columns = bytes / 4;
  for (int c = 0; c < columns; ++c) check_column(issue, col0 + c, col0, col0 + columns - 1);

  // Source row s, 16-byte chunk c, where the K-major canonical layout puts it.
  std::vector<std::uint32_t> chunks;
  std::vector<std::uint8_t> data(static_cast<std::size_t>(rows) * bytes);
  for (int s = 0; s < rows; ++s)
    for (int c = 0; c < bytes / 16; ++c) {
      const std::uint32_t addr = kmajor_chunk_address(f, static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(c));
      check_smem(issue, "address", addr, 16);
      chunks.push_back(addr);
      const auto src = smem_.image().subspan(addr - smem_.base(), 16);
      std::copy(src.begin(), src.end(), data.begin() + s * bytes + c * 16);
    }
  check_proxy(issue, chunks);

  for (int s = 0; s < rows; ++s)
    for (int lane : destination_lanes(shape, s))
      for (int c = 0; c < columns; ++c) check_order(issue, Touch::cp, t.warp, issuer, lane, col0 + c);
  if (check_only) return;
  const std::uint32_t id = issue_op(OpKind::cp, issuer, t.warp, t.lane, op_instruction(issue.instruction), 0);
  // Bit b of a row goes to column b/32, bit b%32: bytes little-endian into cells.
  for (int s = 0; s < rows; ++s)
    for (int lane : destination_lanes(shape, s))
      for (int c = 0; c < columns; ++c) {
        const std::uint8_t* p = data.data() + s * bytes + 4 * c;
        tmem_.set_value(lane, col0 + c,
                        p[0] | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[3]} << 24));
        tmem_.set_writer(lane, col0 + c, id);
      }
  if (!config_.provenance) return;
  if (tmem_sources_.empty()) tmem_sources_.resize(std::size_t{TensorMemory::kLanes} * TensorMemory::kColumns);
  for (int s = 0; s < rows; ++s)
    for (int lane : destination_lanes(shape, s))
      for (int c = 0; c < columns; ++c) {
        const std::uint64_t chunk = smem_.origin(chunks[static_cast<std::size_t>(s * bytes / 16 + c / 4)]);
        tmem_sources_[static_cast<std::size_t>(lane) * TensorMemory::kColumns + col0 + c] = {
            id, chunk == 0 ? 0 : chunk + 4 * static_cast<std::uint64_t>(c % 4), false};
      }
}

}  // namespace tcgen::model
