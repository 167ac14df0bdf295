#include "warp_recorder.hpp"

#include <algorithm>

#include "decode.hpp"
#include "tcgen/exec/cluster_runtime.hpp"
#include "tcgen/model/idesc_decode.hpp"
#include "tcgen/ptx/tensor_map.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

namespace {

constexpr std::uint64_t kChunkShift = 12;  // 4 KiB
constexpr std::uint64_t kRequestBytes = 128;  // a TMA request moves at most one 128-byte line
constexpr std::uint32_t kLoadRunGap = 4;   // ld.global this close to the previous one share its wait

// Whether a copy's destination (its first state-space suffix) is shared memory.
bool to_shared(const Opcode& op) {
  for (std::size_t i = 1; i < op.parts.size(); ++i) {
    if (op.parts[i].starts_with("shared")) return true;
    if (op.parts[i] == "global") return false;
  }
  return false;
}

}  // namespace

TimingOp timing_op(std::string_view row, Family family, const Opcode& op) {
  if (family == Family::special_function) return TimingOp::mufu;
  if (family == Family::warp_mma) return TimingOp::untimed;  // mma.sync: the tensor cores' legacy path
  if (row == "mbarrier.arrive" || row == "mbarrier.complete_tx") return TimingOp::mbarrier_arrive;
  if (row == "mbarrier.try_wait" || row == "mbarrier.test_wait") return TimingOp::mbarrier_wait;
  if ((row == "bar" || row == "barrier") && !op.has("warp"))
    return op.has("cluster") ? TimingOp::barrier_cluster : TimingOp::bar;
  if (row == "tcgen05.mma") return TimingOp::mma;
  if (row == "tcgen05.cp") return TimingOp::tmem_cp;
  if (row == "tcgen05.commit") return TimingOp::commit;
  if (row == "tcgen05.ld" || row == "tcgen05.st") return TimingOp::tmem_ld;
  if (row == "tcgen05.wait::ld" || row == "tcgen05.wait::st") return TimingOp::tmem_wait;
  if (row == "cp.async.bulk.tensor") return to_shared(op) ? TimingOp::tma_load : TimingOp::tma_store;
  if (row == "cp.reduce.async.bulk.tensor") return TimingOp::tma_store;
  if (row == "cp.async.bulk") return to_shared(op) ? TimingOp::bulk_load : TimingOp::bulk_store;
  if (row == "cp.async.bulk.wait_group") return TimingOp::bulk_wait;
  if (row == "cp.async") return TimingOp::cp_async;
  if (row == "cp.async.wait_group" || row == "cp.async.wait_all") return TimingOp::cp_async_wait;
  if (row == "cp.async.mbarrier.arrive") return TimingOp::cp_async_arrive;
  if (row == "clusterlaunchcontrol" && op.has("try_cancel")) return TimingOp::try_cancel;
  return TimingOp::plain;
}

void TouchedChunks::add(std::uint64_t address, std::uint64_t bytes, bool write) {
  if (bytes == 0) return;
  auto& set = write ? written : read;
  for (std::uint64_t c = address >> kChunkShift; c <= (address + bytes - 1) >> kChunkShift; ++c) set.insert(c);
}

timing::Record& WarpRecorder::add(timing::Op op, const Instruction& in) {
  timing::Record& r = trace_.records.emplace_back();
  r.op = op;
  r.work = work_;
  r.line = in.line;
  r.signals = std::move(signals_);
  signals_.clear();
  work_ = {};
  return r;
}

void WarpRecorder::signal(std::uint32_t rank, std::uint32_t mbar, std::uint64_t phase) {
  signals_.push_back(key(timing::PhaseKey::Kind::mbarrier, mbar, phase, rank));
}

void WarpRecorder::memory(Space space, std::uint64_t address, std::uint32_t bytes, bool write) {
  if (spinning_) return;
  const std::uint64_t warp_bytes = std::uint64_t{bytes} * 32;
  if (space == Space::shared) {
    work_.smem_bytes += warp_bytes;
  } else if (space == Space::global && write) {
    work_.store_bytes += warp_bytes;
  } else if (space == Space::global) {
    const bool l1 = !lines_.insert(address >> 7).second;
    if (!trace_.records.empty() && trace_.records.back().op == timing::Op::global_load && work_.issued <= kLoadRunGap &&
        signals_.empty()) {
      trace_.records.back().bytes += warp_bytes;  // loads back to back: one wait for all of them
      ++trace_.records.back().rows;
      trace_.records.back().l1 = trace_.records.back().l1 && l1;
      return;
    }
    timing::Record& r = trace_.records.emplace_back();
    r.op = timing::Op::global_load;
    r.work = work_;
    r.bytes = warp_bytes;
    r.rows = 1;
    r.l1 = l1;
    work_ = {};
  }
}

void WarpRecorder::tma(Thread& t, const Instruction& in, bool load) {
  // cp.async.bulk.tensor: [dst], [map, {coords}], ... (load); [map, {coords}], [src] (store)
  const Operand& map_operand = load ? in.ops[1] : in.ops[0];
  const Operand& coords = load ? in.ops[2] : in.ops[1];
  const std::optional<DecodedTensorMap> map = decode_tensor_map(t.host_bytes(t.address(map_operand), 128, false, in));
  timing::Record& r = add(load ? timing::Op::tma_load : timing::Op::tma_store, in);
  if (!map) return;  // the instruction itself has faulted on it already
  const tma::TensorMapSpec& s = map->spec;
  std::array<std::int64_t, 5> c{};
  for (std::uint32_t i = 0; i < coords.count && i < 5; ++i) c[i] = t.get<std::int32_t>(in.elements[coords.first + i]);
  const bool gather4 = in.opcode.find("gather4") != std::string::npos;
  const std::uint64_t run = std::uint64_t{s.box_extent(0)} * s.element_bytes;
  std::uint64_t rows = gather4 ? 4 : 1;
  for (std::uint32_t i = 1; i < s.rank && !gather4; ++i) rows *= s.box_extent(i);
  r.bytes = run * rows;
  r.rows = rows * ((run + kRequestBytes - 1) / kRequestBytes);
  // The rows' global bytes, for the distinct bytes HBM serves: each row inside the tensor.
  for (std::uint64_t row = 0; row < rows && !gather4 && s.im2col.on == false; ++row) {
    std::uint64_t rest = row, offset = 0;
    bool inside = c[0] >= 0 && static_cast<std::uint64_t>(c[0]) < s.global_dims[0];
    for (std::uint32_t i = 1; i < s.rank; ++i) {
      const std::uint64_t extent = s.box_extent(i), step = rest % extent;
      rest /= extent;
      const std::int64_t at = c[i] + static_cast<std::int64_t>(step * s.element_strides[i]);
      inside = inside && at >= 0 && static_cast<std::uint64_t>(at) < s.global_dims[i];
      offset += static_cast<std::uint64_t>(std::max<std::int64_t>(at, 0)) * s.global_strides[i - 1];
    }
    if (inside) chunks_.add(map->global + offset + static_cast<std::uint64_t>(c[0]) * s.element_bytes, run, !load);
  }
}

void WarpRecorder::after(Thread& t, const Instruction& in) {
  using timing::Op;
  using Kind = timing::PhaseKey::Kind;
  if (in.timing == TimingOp::mbarrier_wait) {
    // What lands while the warp polls (a clusterlaunchcontrol response, delivered when asked for) is
    // not the warp's doing: its record is the copy's, not this wait's.
    signals_.clear();
    if ((t.get<std::uint32_t>(in.ops[0]) & 1u) == 0) {  // not yet: the loop around it is not the warp's work
      spinning_ = true;
      return;
    }
    spinning_ = false;
    ++work_.issued;
    const std::uint32_t mbar = t.shared_address(t.address(in.ops[1]), in) & exec::ClusterRuntime::kOffsetMask;
    // The phase that completed last: the one a wait that succeeds now was for.
    if (const std::uint64_t done = t.runtime().cta().mbarrier(mbar).phase(); done > 0)
      add(Op::wait, in).phase = key(Kind::mbarrier, mbar, done - 1, rank_);
    return;
  }
  if (spinning_) {
    if (!signals_.empty()) add(Op::arrive, in);  // an arrival inside the loop still happens
    return;
  }
  ++work_.issued;
  switch (in.timing) {
    case TimingOp::plain:
    case TimingOp::mbarrier_wait: break;
    case TimingOp::mufu: ++work_.mufu; break;
    case TimingOp::untimed: ++trace_.untimed; break;
    case TimingOp::mbarrier_arrive: break;  // its signals make the record below
    case TimingOp::bar: {
      const std::uint32_t id = in.ops.empty() ? 0u : t.get<std::uint32_t>(in.ops[0]);
      const timing::PhaseKey k = key(Kind::named, id, bar_uses_[id]++, rank_);
      if (in.opcode.find("arrive") != std::string::npos)
        add(Op::arrive, in).signals.push_back(k);
      else
        add(Op::sync, in).phase = k;
      break;
    }
    case TimingOp::barrier_cluster:
      if (in.opcode.find("arrive") != std::string::npos)
        add(Op::arrive, in).signals.push_back(key(Kind::cluster, 0, cluster_arrivals_++, 0));
      else if (cluster_arrivals_ > 0)
        add(Op::wait, in).phase = key(Kind::cluster, 0, cluster_arrivals_ - 1, 0);
      break;
    case TimingOp::mma: {
      const bool sparse = in.opcode.find(".sp.") != std::string::npos || in.opcode.find(".sp") == in.opcode.size() - 3;
      const bool pair = in.opcode.find("cta_group::2") != std::string::npos;
      const std::string& o = in.opcode;
      timing::MmaShape s;
      model::MmaKind kind = model::MmaKind::f16;
      if (o.find("kind::tf32") != std::string::npos) {
        kind = model::MmaKind::tf32, s.rate = timing::MmaRate::tf32, s.element_bytes = 4;
      } else if (o.find("kind::mxf4nvf4") != std::string::npos) {
        kind = model::MmaKind::mxf4nvf4, s.rate = timing::MmaRate::bits4, s.element_bytes = 0.5;
      } else if (o.find("kind::mxf4") != std::string::npos) {
        kind = model::MmaKind::mxf4, s.rate = timing::MmaRate::bits4, s.element_bytes = 0.5;
      } else if (o.find("kind::mxf8f6f4") != std::string::npos) {
        kind = model::MmaKind::mxf8f6f4, s.rate = timing::MmaRate::bits8, s.element_bytes = 1;
      } else if (o.find("kind::f8f6f4") != std::string::npos) {
        kind = model::MmaKind::f8f6f4, s.rate = timing::MmaRate::bits8, s.element_bytes = 1;
      } else if (o.find("kind::i8") != std::string::npos) {
        kind = model::MmaKind::i8, s.rate = timing::MmaRate::bits8, s.element_bytes = 1;
      }
      const std::uint32_t idesc = t.get<std::uint32_t>(in.ops[sparse ? 4 : 3]);
      const model::InstrDescriptorFields f = model::decode_instr_descriptor(
          idesc, kind, o.find(".ws") != std::string::npos, pair ? model::CtaGroup::two : model::CtaGroup::one);
      s.m = f.m;
      s.n = f.n;
      s.k = static_cast<int>(32 / s.element_bytes) * (sparse ? 2 : 1);  // K is 32 bytes of A (64 for .sp)
      s.a_from_tmem = in.ops[1].kind == Operand::Kind::address;
      s.pair = pair;
      s.sparse = sparse;
      add(Op::mma, in).mma = s;
      break;
    }
    case TimingOp::tmem_cp: {
      // .128x256b, .4x256b, .128x128b, .64x128b, .32x128b: rows × bits of shared memory read.
      const std::size_t at = in.opcode.find('x', in.opcode.find("tcgen05.cp.") + 11);
      std::uint64_t bytes = 0;
      if (at != std::string::npos) {
        const std::size_t start = in.opcode.rfind('.', at) + 1;
        bytes = std::stoull(in.opcode.substr(start, at - start)) * std::stoull(in.opcode.substr(at + 1)) / 8;
      }
      add(Op::tmem_cp, in).bytes = bytes;
      break;
    }
    case TimingOp::commit: add(Op::commit, in); break;
    case TimingOp::tmem_ld: {
      const Operand& v = in.ops[0].kind == Operand::Kind::vector ? in.ops[0] : in.ops.back();
      add(Op::tmem_ld, in).bytes = std::uint64_t{v.count} * 4 * 32;
      break;
    }
    case TimingOp::tmem_wait: add(Op::tmem_wait, in); break;
    case TimingOp::tma_load: tma(t, in, true); break;
    case TimingOp::tma_store: tma(t, in, false); break;
    case TimingOp::bulk_load:
    case TimingOp::bulk_store: {
      const bool load = in.timing == TimingOp::bulk_load;
      const std::uint64_t bytes = t.get<std::uint32_t>(in.ops[2]);
      timing::Record& r = add(load ? Op::tma_load : Op::tma_store, in);
      r.bytes = bytes;
      r.rows = (bytes + kRequestBytes - 1) / kRequestBytes;
      if (in.opcode.find(".global") != std::string::npos)
        chunks_.add(t.address(in.ops[load ? 1 : 0]), bytes, !load);
      break;
    }
    case TimingOp::bulk_wait: add(Op::bulk_wait, in); break;
    case TimingOp::cp_async: add(Op::cp_async, in).bytes = std::uint64_t{t.get<std::uint32_t>(in.ops[2])} * 32; break;
    case TimingOp::cp_async_wait: add(Op::cp_async_wait, in); break;
    case TimingOp::cp_async_arrive: add(Op::cp_async_arrive, in); break;
    case TimingOp::try_cancel: {
      timing::Record& r = add(Op::tma_load, in);  // its response lands as a 16-byte copy would
      r.bytes = 16;
      r.rows = 1;
      break;
    }
  }
  if (!signals_.empty()) add(Op::arrive, in);  // arrivals on mbarriers: mbarrier.arrive, complete_tx
}

void WarpRecorder::finish() {
  timing::Record& r = trace_.records.emplace_back();
  r.op = timing::Op::exit;
  r.work = work_;
  r.signals = std::move(signals_);
  work_ = {};
}

}  // namespace tcgen::ptx
