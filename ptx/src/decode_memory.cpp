// Loads, stores, atomics and the memory instructions without data
// (PTX #data-movement-and-conversion-instructions-ld, -st, -prefetch,
// -createpolicy, -mapa, #parallel-synchronization-and-communication-
// instructions-atom, -red). Every access goes through Thread::load/store:
// shared memory to the model, global memory checked against what the
// kernel was given, local and param memory the thread's own.
#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>
#include <type_traits>

#include "decode.hpp"
#include "tcgen/core/hex.hpp"
#include "tcgen/exec/cluster_runtime.hpp"
#include "thread.hpp"
#include "warp_form.hpp"

namespace tcgen::ptx {

namespace {

// ld/st's shape: the elements of a vector (1 for a scalar) and their size.
struct LoadStoreModifiers {
  std::uint32_t element_bytes;
  std::uint32_t elements;
  bool sign_extends;  // an .sN load
};

void ld(Thread& t, const Instruction& in) {
  const LoadStoreModifiers m = in.modifiers.get<LoadStoreModifiers>();
  const std::uint32_t bytes = m.element_bytes * m.elements;
  std::uint8_t buf[256];
  // Definedness: each element's own (a vector load of which one element was never written defines the rest).
  std::uint32_t origins[8];
  const bool undefined = t.load(in.space, t.address(in.ops[1]), buf, bytes, in, origins, m.element_bytes);
  auto put = [&](const Operand& o, const std::uint8_t* p, std::uint32_t e) {
    if (m.element_bytes == 16) {  // .b128 in two slots
      if (o.kind != Operand::Kind::reg) return;
      std::uint64_t lo, hi;
      std::memcpy(&lo, p, 8);
      std::memcpy(&hi, p + 8, 8);
      if (undefined) [[unlikely]] {
        t.write_slot(o.slot, lo, origins[e]);
        t.write_slot(o.slot + 1, hi, origins[e]);
        return;
      }
      t.write_slot(o.slot, lo);
      t.write_slot(o.slot + 1, hi);
      return;
    }
    std::uint64_t v = little_endian(p, m.element_bytes);
    if (m.sign_extends) v = sign_extend(v, m.element_bytes);
    if (undefined) [[unlikely]]
      t.set<std::uint64_t>(o, v, origins[e]);
    else
      t.set<std::uint64_t>(o, v);
  };
  const Operand& d = in.ops[0];
  if (d.kind == Operand::Kind::vector)
    for (std::uint32_t i = 0; i < d.count; ++i) put(in.elements[d.first + i], buf + i * m.element_bytes, i);
  else
    put(d, buf, 0);
}

// ld.global of one register of 1, 2, 4 or 8 bytes from [register + offset]: its warp form loads
// each lane's where the common case holds (Thread::load_global_lanes), as ld would.
template <std::uint32_t kBytes, bool kSigned>
struct GlobalLoadRegister {
  static void run(Thread& t, const Instruction& in) { ld(t, in); }
  static std::uint32_t lanes(Thread& first, std::uint32_t runs, const Instruction& in) {
    return first.load_global_lanes(runs, in, kBytes, kSigned);
  }
};

template <bool kSigned>
Handler global_load_register(std::uint32_t bytes) {
  switch (bytes) {
    case 1: return with_warp_form<GlobalLoadRegister<1, kSigned>>();
    case 2: return with_warp_form<GlobalLoadRegister<2, kSigned>>();
    case 4: return with_warp_form<GlobalLoadRegister<4, kSigned>>();
    case 8: return with_warp_form<GlobalLoadRegister<8, kSigned>>();
    default: return &ld;
  }
}

// The bytes a store writes, from its data operand (a register, an immediate or a vector of them).
std::uint32_t store_data(Thread& t, const Instruction& in, const Operand& s, std::uint8_t* buf) {
  const LoadStoreModifiers m = in.modifiers.get<LoadStoreModifiers>();
  auto take = [&](const Operand& o, std::uint8_t* p) {
    if (m.element_bytes == 16 && o.kind == Operand::Kind::reg) {
      const std::uint64_t lo = t.read_slot(o.slot), hi = t.read_slot(o.slot + 1);
      std::memcpy(p, &lo, 8);
      std::memcpy(p + 8, &hi, 8);
      return;
    }
    const std::uint64_t v = in.type == Type::f32 && o.kind == Operand::Kind::imm
                                ? Thread::to_bits(t.get<float>(o))
                                : in.type == Type::f64 && o.kind == Operand::Kind::imm ? Thread::to_bits(t.get<double>(o))
                                                                                       : t.get<std::uint64_t>(o);
    std::memcpy(p, &v, m.element_bytes);
  };
  if (s.kind == Operand::Kind::vector)
    for (std::uint32_t i = 0; i < s.count; ++i) take(in.elements[s.first + i], buf + i * m.element_bytes);
  else
    take(s, buf);
  return m.element_bytes * m.elements;
}

void st(Thread& t, const Instruction& in) {
  std::uint8_t buf[256];
  const std::uint32_t bytes = store_data(t, in, in.ops[1], buf);
  t.store(in.space, t.address(in.ops[0]), buf, bytes, in);
}

// st.async / red.async [addr], data, [remote_bar]: addr and remote_bar are shared::cluster addresses of one
// CTA, addr aligned to the data's size (PTX #data-movement-and-conversion-instructions-st-async, -red-async).
struct AsyncTarget {
  std::uint32_t addr, remote_bar;
};
AsyncTarget async_target(Thread& t, const Instruction& in, std::uint32_t bytes) {
  const std::uint64_t addr = t.address(in.ops[0]);
  if (addr % bytes != 0)
    fault("addr", hex(addr) + " (" + in.opcode + ")",
          "a multiple of " + std::to_string(bytes) + " bytes, the size of the data (PTX "
          "#data-movement-and-conversion-instructions-st-async)");
  return {t.shared_address(addr, in), t.shared_address(t.address(in.ops[2]), in)};
}

void st_async(Thread& t, const Instruction& in) {
  std::uint8_t buf[16];
  const std::uint32_t bytes = store_data(t, in, in.ops[1], buf);
  const AsyncTarget to = async_target(t, in, bytes);
  t.arch().async_store(to.addr, {buf, bytes}, to.remote_bar, in.opcode.c_str());
}

// atom/red: the modifiers hold the operation, the type's C++ form is the template. The
// read-modify-write is one step of the CTA's schedule (a Hold: no fiber
// switch between the read and the write, shuffled or not); clusters on other
// OS threads reach global memory too, so there it also holds the grid's lock.
enum class AtomOp { add, inc, dec, exch, cas, min, max, and_, or_, xor_ };

template <class T>
T apply(AtomOp op, T old, T b, T c) {
  switch (op) {
    case AtomOp::add:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(old) + static_cast<std::make_unsigned_t<T>>(b));
      else return old + b;
    case AtomOp::inc:
      if constexpr (std::is_integral_v<T>) return old >= b ? T(0) : static_cast<T>(old + 1);
      else return old;
    case AtomOp::dec:
      if constexpr (std::is_integral_v<T>) return (old == 0 || old > b) ? b : static_cast<T>(old - 1);
      else return old;
    case AtomOp::exch: return b;
    case AtomOp::cas: return old == b ? c : old;
    case AtomOp::min: return b < old ? b : old;
    case AtomOp::max: return b > old ? b : old;
    case AtomOp::and_:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(old & b);
      else return old;
    case AtomOp::or_:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(old | b);
      else return old;
    case AtomOp::xor_:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(old ^ b);
      else return old;
  }
  return old;
}

// atom.global.add.f32 flushes subnormal operands and results to zero (seen on an H200; atom.shared does not).
template <class T>
T flush_global(T x, Space space) {
  if constexpr (std::is_same_v<T, float>)
    if (space == Space::global && std::fpclassify(x) == FP_SUBNORMAL) return std::copysign(0.0f, x);
  return x;
}

template <class T, bool Returns>
void atom(Thread& t, const Instruction& in) {
  const std::size_t a = Returns ? 1 : 0;
  const std::uint64_t addr = t.address(in.ops[a]);
  // Global memory only: a shared access may switch fibers, which must not happen under the lock.
  const bool global = in.space == Space::global ||
                      (in.space == Space::generic && !in_shared_window(addr) && !in_local_window(addr));
  const exec::CtaRuntime::Hold hold(t.runtime());
  std::unique_lock<std::mutex> lock;
  if (global) lock = std::unique_lock(t.grid().atomics);
  T old;
  t.load(in.space, addr, &old, sizeof(T), in);
  const T b = flush_global(t.get<T>(in.ops[a + 1]), in.space);
  const T c = in.ops.size() > a + 2 ? t.get<T>(in.ops[a + 2]) : T{};
  T next = flush_global(apply(in.modifiers.get<AtomOp>(), flush_global(old, in.space), b, c), in.space);
  if constexpr (std::is_same_v<T, float>)
    if (std::isnan(next)) next = std::bit_cast<float>(0x7FFFFFFFu);  // the canonical f32 NaN, as f32 arithmetic gives
  t.store(in.space, addr, &next, sizeof(T), in);
  if constexpr (Returns) t.set<T>(in.ops[0], old);
}

template <bool Returns>
Handler atom_handler(Type ty) {
  switch (ty) {
    case Type::u32: case Type::b32: return &atom<std::uint32_t, Returns>;
    case Type::s32: return &atom<std::int32_t, Returns>;
    case Type::u64: case Type::b64: return &atom<std::uint64_t, Returns>;
    case Type::s64: return &atom<std::int64_t, Returns>;
    case Type::f32: return &atom<float, Returns>;
    case Type::f64: return &atom<double, Returns>;
    default: return nullptr;
  }
}

// red.async: the read-modify-write is one step of the CTA's schedule, as atom's; the result lands as st.async's.
template <class T>
void red_async(Thread& t, const Instruction& in) {
  const AsyncTarget to = async_target(t, in, sizeof(T));
  const exec::CtaRuntime::Hold hold(t.runtime());
  T old;
  t.arch().dsmem_load(to.addr, {reinterpret_cast<std::uint8_t*>(&old), sizeof(T)}, in.opcode.c_str());
  const T next = apply(in.modifiers.get<AtomOp>(), old, t.get<T>(in.ops[1]), T{});
  t.arch().async_store(to.addr, {reinterpret_cast<const std::uint8_t*>(&next), sizeof(T)}, to.remote_bar,
                       in.opcode.c_str());
}

// ldmatrix / stmatrix.sync.aligned.m8n8.xN[.trans].shared.b16: N 8×8 matrices of b16, one warp.
// Thread 8i + j gives the address of row j of matrix i; thread t's register i holds
// elements (t/4, 2(t%4)) and (t/4, 2(t%4) + 1) of matrix i, low half first; .trans
// transposes each matrix between memory and registers
// (PTX #warp-level-matrix-instructions-ldmatrix, -stmatrix).
struct MatrixModifiers {
  int matrices;  // .xN
  bool transposed;
  bool store;  // stmatrix
};

void matrix(Thread& t, const Instruction& in) {
  const MatrixModifiers mods = in.modifiers.get<MatrixModifiers>();
  const bool store = mods.store;
  const Operand& regs = in.ops[store ? 1 : 0];
  // Lanes 8N and up give no address (PTX ignores theirs): translated only where used.
  const bool addressed = t.lane() < 8 * mods.matrices;
  struct Frame {
    std::uint32_t addr;
    std::uint32_t r[4];
    std::uint32_t origin[4];  // ldmatrix, definedness: the first undefined row's origin (0: defined)
  } frame{addressed ? t.shared_address(t.address(in.ops[store ? 0 : 1]), in) : 0u, {}, {}};
  if (store)
    for (std::uint32_t i = 0; i < regs.count; ++i) frame.r[i] = t.get<std::uint32_t>(in.elements[regs.first + i]);
  exec::HostArch& arch = t.arch();
  t.runtime().collective(t.linear(), {in.opcode, true, t.site(in)}, 0xFFFFFFFFu, frame,
                         [&](const std::array<Frame*, 32>& f) {
                           for (int m = 0; m < mods.matrices; ++m)
                             for (int row = 0; row < 8; ++row) {
                               std::uint16_t line[8];
                               std::uint32_t origin = 0;
                               if (!store) {
                                 arch.smem_load(f[8 * m + row]->addr, {reinterpret_cast<std::uint8_t*>(line), 16}, in.opcode.c_str());
                                 origin = t.shared_origin(f[8 * m + row]->addr & exec::ClusterRuntime::kOffsetMask, 16, in);
                               }
                               for (int k = 0; k < 8; ++k) {
                                 // The fragment element this memory element is: (row, k), or (k, row) transposed.
                                 const int fr = mods.transposed ? k : row, fc = mods.transposed ? row : k;
                                 std::uint32_t& reg = f[4 * fr + fc / 2]->r[m];
                                 const int shift = 16 * (fc % 2);
                                 if (store)
                                   line[k] = static_cast<std::uint16_t>(reg >> shift);
                                 else
                                   reg = (reg & ~(0xFFFFu << shift)) | (std::uint32_t{line[k]} << shift);
                                 std::uint32_t& o = f[4 * fr + fc / 2]->origin[m];
                                 if (origin && !o) [[unlikely]] o = origin;
                               }
                               if (store) arch.smem_store(f[8 * m + row]->addr, {reinterpret_cast<const std::uint8_t*>(line), 16}, in.opcode.c_str());
                             }
                         });
  if (!store)
    for (std::uint32_t i = 0; i < regs.count; ++i) {
      t.strict_read(frame.origin[i]);
      t.set<std::uint32_t>(in.elements[regs.first + i], frame.r[i], frame.origin[i]);
    }
}


// createpolicy: an opaque L2 policy; the model has no cache, any value serves.
void createpolicy(Thread& t, const Instruction& in) { t.set<std::uint64_t>(in.ops[0], 0); }

// mapa[.shared::cluster] d, a, rank: a's variable in CTA `rank` of the
// cluster (PTX #data-movement-and-conversion-instructions-mapa); generic
// addresses stay in the shared window.
void mapa(Thread& t, const Instruction& in) {
  const std::uint32_t rank = t.get<std::uint32_t>(in.ops[2]);
  const std::uint64_t a = t.get<std::uint64_t>(in.ops[1]);
  const std::uint32_t address = t.shared_address(a, in);
  // A rank outside the cluster makes an address that is wrong only where it is used: CuTe DSL's
  // cluster launch control scheduler maps %laneid on all 32 lanes and uses the lanes below the
  // cluster's size, on B200s. The register is undefined, its use the fault (docs/model.md, Definedness).
  if (rank >= static_cast<std::uint32_t>(t.runtime().cluster().size()))
    return t.set<std::uint64_t>(in.ops[0], a, t.mapa_origin(address, rank, in));
  const std::uint32_t mapped = t.arch().map_shared(address, rank);
  t.set<std::uint64_t>(in.ops[0], in.space == Space::generic ? kSharedWindow + mapped : mapped);
}

}  // namespace

namespace {

bool decode_load_store(const Opcode& op, Instruction& in, std::string& why, bool load) {
  if (op.has("async") || op.has("bulk")) return false;
  int vec = 1;
  if (op.has("v2")) vec = 2;
  if (op.has("v4")) vec = 4;
  if (op.has("v8")) vec = 8;
  const Operand& data = in.ops[load ? 0 : 1];
  if (vec > 1 && (data.kind != Operand::Kind::vector || static_cast<int>(data.count) != vec)) {
    why = "a vector of " + std::to_string(vec) + " registers";
    return false;
  }
  const LoadStoreModifiers m{.element_bytes = static_cast<std::uint32_t>(size_of(in.type)),
                            .elements = static_cast<std::uint32_t>(vec),
                            .sign_extends = is_signed(in.type)};
  if (m.element_bytes == 16 && data.kind != Operand::Kind::reg) {
    why = ".b128 data in a register";
    return false;
  }
  if (m.element_bytes == 0 || m.element_bytes * m.elements > 256) {
    why = "a load/store type";
    return false;
  }
  in.modifiers.set(m);
  in.run = load ? &ld : &st;
  if (load && in.space == Space::global && vec == 1 && data.kind == Operand::Kind::reg &&
      in.ops[1].kind == Operand::Kind::address && in.ops[1].slot != Operand::kNoReg)
    in.run = m.sign_extends ? global_load_register<true>(m.element_bytes) : global_load_register<false>(m.element_bytes);
  return true;
}

template <bool Returns>
bool decode_atomic(const Opcode& op, Instruction& in, std::string& why) {
  const int found = op.which({"add", "inc", "dec", "exch", "cas", "min", "max", "and", "or", "xor"});  // AtomOp
  if (found < 0 || op.has("v2") || op.has("v4") || op.has("noftz") || op.has("async") || op.starting("mbarrier").size()) {
    why = "this atomic operation (no vectors, no asynchronous forms completing on an mbarrier)";
    return false;
  }
  in.modifiers.set(static_cast<AtomOp>(found));
  in.run = atom_handler<Returns>(in.type);
  if (!in.run) why = "type ." + std::string(name(in.type)) + " for " + std::string(op.base());
  return in.run != nullptr;
}

// The completion every st.async / red.async form names.
bool completes_on_mbarrier(const Opcode& op, std::string& why) {
  if (op.has("shared::cluster") && op.has("mbarrier::complete_tx::bytes")) return true;
  why = std::string(op.base()) + ".shared::cluster.mbarrier::complete_tx::bytes: completing on an mbarrier";
  return false;
}

bool decode_matrix(const Opcode& op, Instruction& in, std::string& why, bool store) {
  const std::string_view num = op.starting("x");
  const MatrixModifiers m{.matrices = num == "x1" ? 1 : num == "x2" ? 2 : num == "x4" ? 4 : 0,
                         .transposed = op.has("trans"),
                         .store = store};
  in.modifiers.set(m);
  const Operand& regs = in.ops.size() == 2 ? in.ops[store ? 1 : 0] : Operand{};
  if (!op.has("m8n8") || m.matrices == 0 || !op.has("b16") || regs.kind != Operand::Kind::vector ||
      static_cast<int>(regs.count) != m.matrices) {
    why = std::string(op.base()) + ".sync.aligned.m8n8.x1/x2/x4[.trans].shared.b16 with one register per matrix";
    return false;
  }
  in.run = &matrix;
  return true;
}

}  // namespace

bool decode_ld(const Opcode& op, Instruction& in, std::string& why) { return decode_load_store(op, in, why, true); }
bool decode_st(const Opcode& op, Instruction& in, std::string& why) { return decode_load_store(op, in, why, false); }
bool decode_atom(const Opcode& op, Instruction& in, std::string& why) { return decode_atomic<true>(op, in, why); }
bool decode_red(const Opcode& op, Instruction& in, std::string& why) { return decode_atomic<false>(op, in, why); }

// st.async{.sem}{.scope}.shared::cluster.mbarrier::complete_tx::bytes{.v2,.v4}.{b32,b64,u32,s32,f32,f64}
bool decode_st_async(const Opcode& op, Instruction& in, std::string& why) {
  if (!completes_on_mbarrier(op, why)) return false;
  const std::uint32_t element = static_cast<std::uint32_t>(size_of(in.type));
  const std::uint32_t elements = op.has("v4") ? 4 : op.has("v2") ? 2 : 1;
  const Operand& data = in.ops[1];
  if ((element != 4 && element != 8) || element * elements > 16 ||
      (elements > 1 && (data.kind != Operand::Kind::vector || data.count != elements))) {
    why = "a .b32, .b64, .u32, .s32, .f32 or .f64 value, or a .v2 of them, or a .v4 of the 32-bit ones, in registers";
    return false;
  }
  in.modifiers.set(LoadStoreModifiers{.element_bytes = element, .elements = elements, .sign_extends = false});
  in.run = &st_async;
  return true;
}

// red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.op.type: .add (.u32, .s32, .u64),
// .inc and .dec (.u32), .min and .max (.u32, .s32), .and, .or and .xor (.b32).
bool decode_red_async(const Opcode& op, Instruction& in, std::string& why) {
  if (!completes_on_mbarrier(op, why)) return false;
  const int found = op.which({"add", "inc", "dec", "exch", "cas", "min", "max", "and", "or", "xor"});  // AtomOp
  const AtomOp o = static_cast<AtomOp>(found);
  const Type ty = in.type;
  const bool u32 = ty == Type::u32, s32 = ty == Type::s32;
  const bool legal = found >= 0 && ((o == AtomOp::add && (u32 || s32 || ty == Type::u64)) ||
                                    ((o == AtomOp::inc || o == AtomOp::dec) && u32) ||
                                    ((o == AtomOp::min || o == AtomOp::max) && (u32 || s32)) ||
                                    ((o == AtomOp::and_ || o == AtomOp::or_ || o == AtomOp::xor_) && ty == Type::b32));
  if (!legal) {
    why = ".add.u32/.s32/.u64, .inc/.dec.u32, .min/.max.u32/.s32 or .and/.or/.xor.b32";
    return false;
  }
  in.modifiers.set(o);
  in.run = u32 || ty == Type::b32 ? &red_async<std::uint32_t>
           : s32                   ? &red_async<std::int32_t>
                                   : &red_async<std::uint64_t>;
  return true;
}
bool decode_ldmatrix(const Opcode& op, Instruction& in, std::string& why) { return decode_matrix(op, in, why, false); }
bool decode_stmatrix(const Opcode& op, Instruction& in, std::string& why) { return decode_matrix(op, in, why, true); }

bool decode_cache_hint(const Opcode&, Instruction& in, std::string&) {
  in.run = &run_nothing;  // cache hints: no effect on what a kernel computes
  return true;
}

bool decode_createpolicy(const Opcode&, Instruction& in, std::string&) {
  in.run = &createpolicy;
  return true;
}

bool decode_mapa(const Opcode&, Instruction& in, std::string&) {
  in.run = &mapa;
  return true;
}

}  // namespace tcgen::ptx
