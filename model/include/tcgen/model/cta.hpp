#pragma once
// One CTA's tcgen05 machinery on the host: shared memory, Tensor Memory,
// allocations, mbarriers and each warp's asynchronous state, with every PTX
// instruction the kernels use as a method. Each method takes the issuing warp
// (and lane, for single-thread instructions), executes the instruction and
// checks the rules it must obey; a broken rule throws ModelError (see
// rule.hpp for the list, docs/model.md for how to read them).
//
// Semantics: asynchronous operations take effect when issued, but the model
// tracks completion and ordering (knowledge.hpp). An MMA's D cells stay
// "pending" for a warp until a tcgen05.commit by the issuing thread has
// arrived on an mbarrier, the warp has waited on that phase and then executed
// tcgen05.fence::after_thread_sync (PTX #tcgen05-memory-consistency-model).
// A driver calls the methods in one valid interleaving of the kernel's warps.
#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tcgen/core/element_type.hpp"
#include "tcgen/model/cp_shape.hpp"
#include "tcgen/model/idesc_decode.hpp"
#include "tcgen/model/knowledge.hpp"
#include "tcgen/model/ld_st_access.hpp"
#include "tcgen/model/mbarrier.hpp"
#include "tcgen/model/mma_types.hpp"
#include "tcgen/model/model_error.hpp"
#include "tcgen/model/operand_fetch.hpp"
#include "tcgen/model/shared_memory.hpp"
#include "tcgen/model/smem_descriptor_decode.hpp"
#include "tcgen/model/source_set.hpp"
#include "tcgen/model/tensor_memory.hpp"

namespace tcgen::model {

struct CtaConfig {
  // %cluster_ctarank: the CTA's issuer keys (knowledge.hpp), and which half
  // of a CTA pair's cta_group::2 operands it holds (rank & 1).
  int rank = 0;
  int warps = 4;                                       // 1 to 32
  std::uint32_t smem_base = 0;                         // shared address of the image's first byte
  std::uint32_t smem_bytes = SharedMemory::kMaxBytes;  // up to 227 KB
  // PTX pipelines tcgen05.mma → tcgen05.mma only for the same accumulator
  // and shape (and kind) (#tcgen05-memory-consistency-model-pipelined-
  // instructions). Off: the model orders any two mma of one thread, as FA4
  // does (UNCONFIRMED beyond PTX; docs/model.md). On: an mma touching cells
  // that an earlier mma with another accumulator, shape or kind wrote or read
  // from Tensor Memory needs that mma complete (Rule::mma_not_pipelined).
  bool strict_mma_pipelining = false;
  // PTX-letter rules (rule.hpp, severity) as errors; off, each is counted in
  // warnings() and the instruction goes on as if the rule had been obeyed.
  bool letters_as_errors = false;
  // Operand provenance (Rule::operand_not_a_tile): where each chunk of shared memory came from, held
  // against a tile at each MMA. Off: faster, and no such warning.
  bool provenance = true;
};

// A PTX-letter rule broken: how often, the first time's message, and where
// the code running the model placed that first time (Cta::set_locator).
struct Warning {
  std::uint64_t count = 0;
  std::string first, where;
};

struct Thread {
  int warp = 0, lane = 0;
};

class Cta {
 public:
  explicit Cta(const CtaConfig& config = {});

  // CTA pairs (PTX #tcgen05-issue-granularity): the two CTAs of a cluster
  // whose ranks differ in the last bit only. Both must outlive each other's
  // use; a CTA without a peer refuses cta_group::2.
  void pair_with(Cta& peer);
  int rank() const { return config_.rank; }

  // ---- shared memory through the generic proxy, and the proxy fence
  void st_shared(int warp, std::uint32_t addr, std::span<const std::uint8_t> bytes);
  // Where [addr, addr + n) came from in global memory (host address; 0: unknown), as a TMA load
  // or a copy through registers knows it: what check_tile reads at each MMA (SharedMemory::set_origin).
  void set_smem_origin(std::uint32_t addr, std::uint32_t n, std::uint64_t global) {
    if (config_.provenance && smem_.contains(addr, n)) smem_.set_origin(addr, n, global);
  }
  void ld_shared(int warp, std::uint32_t addr, std::span<std::uint8_t> out);
  // Definedness (the PTX interpreter's): bytes an undefined register was stored to carry its origin
  // (an id of the interpreter's, not 0) until any write of them; smem_undefined gives the first
  // origin among [addr, addr + n), 0 when all are defined.
  void set_smem_undefined(std::uint32_t addr, std::uint32_t n, std::uint32_t origin) {
    if (smem_.contains(addr, n)) smem_.set_undefined(addr, n, origin);
  }
  bool smem_any_undefined() const { return smem_.any_undefined(); }
  std::uint32_t smem_undefined(std::uint32_t addr, std::uint32_t n) const {
    return smem_.contains(addr, n) ? smem_.undefined(addr, n) : 0;
  }
  // Definedness: the first byte of [addr, addr + n) that nothing has written since the CTA started
  // (SharedMemory::kAllWritten: none, or the range leaves the image), for the PTX interpreter's loads.
  std::uint32_t smem_unwritten(std::uint32_t addr, std::uint32_t n) const {
    return smem_.contains(addr, n) ? smem_.first_unwritten(addr, n) : SharedMemory::kAllWritten;
  }
  std::uint32_t ld_shared_u32(int warp, std::uint32_t addr);
  void fence_proxy_async(int warp);
  // A TMA load landing: the bytes are written through the async proxy (no
  // proxy fence needed), then complete_tx(bytes) on mbar.
  // signal: the CTA whose mbarrier the bytes complete on (TMA .cta_group::2), null for this one.
  void tma_load_landed(std::uint32_t addr, std::span<const std::uint8_t> bytes, std::uint32_t mbar,
                       Cta* signal = nullptr);
  // A TMA store reading [addr, addr + bytes) through the async proxy: the
  // proxy-fence rule for what st.shared wrote there, then the image's bytes.
  std::span<const std::uint8_t> tma_store_source(Thread t, std::uint32_t addr, std::uint32_t bytes);

  // ---- execution barrier: bar.sync 0 by every warp of the CTA
  void bar_sync();
  // A named barrier instance of fewer threads (bar.sync/bar.arrive id, count) completing: the
  // warps that arrived (bit w: warp w) publish what they wrote, the warps that waited acquire it
  // (PTX #parallel-synchronization-and-communication-instructions-bar: bar.arrive does not wait).
  // The tcgen05 ordering travels separately (exec's exchange_ordering); this is shared memory's.
  void named_barrier(std::uint64_t arrived, std::uint64_t waited);
  // barrier.cluster (arrive.release, wait.acquire) by every warp of these
  // CTAs, one cluster: bar_sync's ordering across all of them.
  static void cluster_barrier(std::span<Cta* const> ctas);

  // ---- mbarrier (PTX #parallel-synchronization-and-communication-instructions-mbarrier)
  // Distributed shared memory (PTX #distributed-shared-memory): a peer CTA
  // of the cluster reads or writes this CTA's shared memory, or arrives on
  // one of its mbarriers (ld/st/mbarrier.arrive.shared::cluster at an address
  // mapa gave). Checked against the image. A peer's store is not tracked for
  // the async proxy, and its arrival carries no knowledge of this CTA's
  // tcgen05 operations (the peer's fences are not this CTA's).
  void st_shared_remote(std::uint32_t addr, std::span<const std::uint8_t> bytes);
  // st.async / red.async from any CTA of the cluster, this one included
  // (PTX #data-movement-and-conversion-instructions-st-async): the bytes land
  // as a peer's store does, then complete_tx of their count on mbar, which is
  // in this CTA as the address is.
  void async_store_landed(std::uint32_t addr, std::span<const std::uint8_t> bytes, std::uint32_t mbar,
                          const std::string& instruction);
  void ld_shared_remote(std::uint32_t addr, std::span<std::uint8_t> out);
  // mbarrier.arrive[.expect_tx].shared::cluster by warp `warp` of `from`, a
  // peer in the cluster: expect_tx bytes first (0: none), then the arrival,
  // which carries that warp's published and fenced knowledge.
  void mbarrier_arrive_remote(const Cta& from, int warp, std::uint32_t mbar, std::uint32_t count,
                              std::uint32_t expect_tx = 0);
  void mbarrier_init(Thread t, std::uint32_t mbar, std::uint32_t count);
  void mbarrier_inval(Thread t, std::uint32_t mbar);
  void mbarrier_arrive(Thread t, std::uint32_t mbar, std::uint32_t count = 1);
  void mbarrier_expect_tx(Thread t, std::uint32_t mbar, std::uint32_t bytes);
  void mbarrier_arrive_expect_tx(Thread t, std::uint32_t mbar, std::uint32_t bytes);
  void mbarrier_complete_tx(Thread t, std::uint32_t mbar, std::uint32_t bytes);
  // try_wait.parity by the whole warp; true when that phase has completed.
  // A true result makes what the phase carried known to the warp, in force
  // after its next tcgen05.fence::after_thread_sync. `since`: the phases
  // completed when the waiter, polling since, first found its phase
  // incomplete; if more have completed since, its phase has, though the
  // next one too made the parity match again (Rule::mbarrier_phase_overtaken).
  bool mbarrier_try_wait(int warp, std::uint32_t mbar, std::uint32_t parity,
                         std::optional<std::uint64_t> since = std::nullopt);
  const Mbarrier& mbarrier(std::uint32_t mbar) const;  // the state, for inspection

  // ---- Tensor Memory allocation (PTX #tcgen05-instructions-tcgen05-alloc)
  void alloc(int warp, std::uint32_t dst, std::uint32_t ncols, CtaGroup group = CtaGroup::one);
  void dealloc(int warp, std::uint32_t taddr, std::uint32_t ncols, CtaGroup group = CtaGroup::one);
  void relinquish_alloc_permit(int warp, CtaGroup group = CtaGroup::one);

  // ---- tcgen05.mma (PTX #tcgen05-mma-instructions-mma), single thread;
  // `variant` for .ws, block scaling, scale-input-d and tcgen05.mma.sp's
  // [sp-meta-tmem] (#tcgen05-mma-instructions-mma-sp)
  void mma_ss(Thread t, MmaKind kind, std::uint32_t d_tmem, std::uint64_t a_desc, std::uint64_t b_desc,
              std::uint32_t idesc, bool enable_input_d, CtaGroup group = CtaGroup::one, const MmaVariant& variant = {});
  void mma_ts(Thread t, MmaKind kind, std::uint32_t d_tmem, std::uint32_t a_tmem, std::uint64_t b_desc,
              std::uint32_t idesc, bool enable_input_d, CtaGroup group = CtaGroup::one, const MmaVariant& variant = {});
  // ---- tcgen05.cp shared memory → Tensor Memory, single thread
  void cp(Thread t, CpShape shape, std::uint32_t taddr, std::uint64_t s_desc, CtaGroup group = CtaGroup::one);
  // ---- tcgen05.commit.mbarrier::arrive::one: the thread's prior mma/cp of
  // `group` → one arrival on mbar, in this CTA or (target) in a peer's
  // (.shared::cluster, .multicast::cluster); cta_group::2 tracks the
  // operations' halves in both CTAs of the pair.
  void commit(Thread t, std::uint32_t mbar, CtaGroup group = CtaGroup::one, Cta* target = nullptr);

  // ---- tcgen05.ld / tcgen05.st, warp-collective. taddr: one value for the
  // whole warp, or each thread's own (they must all be equal).
  WarpRegisters ld(int warp, const LdStAccess& access, std::uint32_t taddr);
  WarpRegisters ld(int warp, const LdStAccess& access, const std::array<std::uint32_t, 32>& taddr);
  // A cell that a tcgen05.ld read while it held no defined value (never written since its
  // tcgen05.alloc, or left undefined by an MMA: by_mma, its op id; 0 for the former), and the
  // register of the thread that received it. With `undefined` given, such a read is no fault: the
  // PTX interpreter marks the register undefined and judges its use (docs/model.md, Definedness).
  struct UndefinedRead {
    std::uint16_t thread, reg, lane, column;
    std::uint32_t by_mma;
  };
  WarpRegisters ld(int warp, const LdStAccess& access, const std::array<std::uint32_t, 32>& taddr,
                   std::vector<UndefinedRead>* undefined);
  // Rule::uninitialized_tmem's sentence for such a cell ("it was never written since its
  // tcgen05.alloc. ..."), as the model knows it now.
  std::string undefined_detail(int lane, int column, std::uint32_t by_mma, const char* why = "") const;
  // With provenance, `sources` (where each register's bytes came from) become the cells' sources.
  void st(int warp, const LdStAccess& access, std::uint32_t taddr, const WarpRegisters& regs);
  void st(int warp, const LdStAccess& access, const std::array<std::uint32_t, 32>& taddr, const WarpRegisters& regs,
          const WarpSources* sources = nullptr);
  void wait_ld(int warp);
  void wait_st(int warp);

  // ---- tcgen05.fence (PTX #tcgen05-instructions-tcgen05-fence), by a whole warp
  void fence_before_thread_sync(int warp);
  void fence_after_thread_sync(int warp);

  // ---- the kernel's exit: throws if Tensor Memory is still allocated, or a
  // cta_group::2 allocation the peer made for this CTA was never matched
  void finish();
  // The PTX-letter rules broken so far (empty under letters_as_errors).
  const std::map<Rule, Warning>& warnings() const { return warnings_; }
  // A broken rule, by its severity (rule.hpp): a fault is thrown; a letter or a
  // convention is counted in warnings() (thrown under letters_as_errors), and the
  // caller goes on as if it had been obeyed. Public for the rules the runtime around
  // the model finds (exec's warp collectives).
  void raise(const ModelError& e);
  // The warp's newest tcgen05.ld (its id, 0 for none), and a use of a register that load filled: the
  // hardware's register scoreboard waits for it, so from then on it (and the warp's older loads) are
  // complete, as after tcgen05.wait::ld, published by the warp's next arrival without a fence.
  std::uint64_t last_ld(int warp) const { return warps_[static_cast<std::size_t>(warp)].ld_last; }
  void ld_used(int warp, std::uint64_t id);
  // Where the instruction running now is, as its issuer knows it (a PTX interpreter: the source
  // line, kernel, block, warp, lane), asked when a rule is first broken; the model knows only warps.
  void set_locator(std::function<std::string()> locator) { locator_ = std::move(locator); }
  // Told of each arrival and complete_tx on one of this CTA's mbarriers before it is applied: the
  // mbarrier and the phase it counts towards (a timing trace follows which phase each one completes).
  void set_mbarrier_hook(std::function<void(std::uint32_t mbar, std::uint64_t phase)> hook) {
    mbarrier_hook_ = std::move(hook);
  }

  // ---- the host's view, no rules checked
  std::span<const std::uint8_t> smem_image() const { return smem_.image(); }
  std::uint32_t tmem_value(int lane, int column) const { return tmem_.value(lane, column); }
  bool tmem_written(int lane, int column) const { return tmem_.writer(lane, column) != 0; }

 private:
  enum class OpKind { mma, cp, st, ld };
  // What PTX compares for a pipelined mma → mma pair: accumulator (d-tmem), shape, kind.
  // (No member initializers: a default argument below is `{}`, zero.)
  struct MmaShape {
    std::uint32_t d_tmem;
    int m, n;
    MmaKind kind;
    bool operator==(const MmaShape&) const = default;
  };
  struct AsyncOp {
    OpKind kind;
    int issuer, warp, lane;  // lane -1 for tcgen05.ld/st
    std::string instruction;
    int lanes_covered;  // 16 or 32 for tcgen05.ld/st, 0 otherwise
    MmaShape shape;     // tcgen05.mma only
  };
  // Ops of a thread with id < bound arrived on mbar in phase `phase`.
  struct Commit {
    std::uint64_t bound;
    std::uint32_t mbar;
    std::uint64_t phase;
  };
  struct WarpState {
    Knowledge pending;    // acquired by waits and bar.sync, not yet fenced
    Knowledge effective;  // in force: fenced with tcgen05.fence::after_thread_sync
    Knowledge released;   // published by tcgen05.fence::before_thread_sync
    std::uint64_t proxy_fences = 0;          // fence.proxy.async executed
    bool unfenced_st = false;                // an st.shared since its last fence.proxy.async
    std::uint64_t st_done = 0, ld_done = 0;  // own st/ld with id below this are complete
    std::uint64_t ld_last = 0;               // the id of its newest tcgen05.ld
  };
  struct MbarrierSlot {
    Mbarrier state;
    Knowledge filling;    // carried by arrivals of the current phase
    Knowledge completed;  // carried by every completed phase
  };
  struct AllocStore {  // the address tcgen05.alloc wrote, with a weak store
    std::uint32_t addr;
    int warp;
    std::uint64_t known_by;  // the warps ordered after it by bar.sync (bit w: warp w), the writer first
    std::uint64_t id;        // its number, for the knowledge mbarriers carry (Issuers::alloc_store)
  };
  // How an instruction touches a TMEM cell, for the ordering checks.
  enum class Touch { ld, st, mma_read, mma_write, cp };

  // One CTA's share of a tcgen05.mma: the D rows it holds and the operands
  // they need (cta_mma.cpp). A pair MMA has one for each CTA of the pair.
  struct MmaShare;
  // The warp of the issuing thread when an instruction of the peer acts on
  // this CTA's Tensor Memory (the peer's half of cta_group::2): its
  // knowledge decides the ordering checks here. Null: the warp is this CTA's.
  Cta* acting_ = nullptr;
  // While it lives, `cta` checks and records on behalf of `issuer` (acting_;
  // nothing when the two are one CTA); it ends with the scope, a throw included.
  class ActingFor {
   public:
    ActingFor(Cta& cta, Cta& issuer) : cta_(cta) { cta_.acting_ = &cta == &issuer ? nullptr : &issuer; }
    ~ActingFor() { cta_.acting_ = nullptr; }
    ActingFor(const ActingFor&) = delete;
    ActingFor& operator=(const ActingFor&) = delete;

   private:
    Cta& cta_;
  };
  // Thread t of `issuer` as an issuer key of this CTA: its own thread key, or its pair key for the peer.
  int issuer_key(const Cta& issuer, Thread t) const {
    return &issuer == this ? keys_.thread(t.warp, t.lane) : keys_.pair(t.warp, t.lane);
  }
  // The instruction as this CTA's list of operations names it: "(issued by rank 0)" added for the peer's half.
  std::string op_instruction(const std::string& instruction) const;
  WarpState& state(int warp);
  // "warp 2", or "warp 2 of rank 0" for the peer's.
  std::string warp_name(int warp) const;
  void check_mma_share(const MmaShare& s);
  bool accumulator_undefined(int lane, int col0, int W);
  // tcgen05.cp into this CTA's Tensor Memory from its shared memory; check_only: the rules, nothing written.
  void cp_share(const Issue& issue, Thread t, int issuer, CpShape shape, std::uint32_t taddr,
                const SmemDescriptorFields& f, bool check_only = false);
  void write_mma_share(const MmaShare& s);
  void pair_mma(const Issue& issue, Thread t, const InstrDescriptorFields& f, std::uint32_t d_tmem,
                std::optional<std::uint32_t> a_tmem, std::uint64_t a_desc, std::uint64_t b_desc, bool enable_input_d,
                const MmaVariant& variant);
  void check_thread(const Issue& issue, Thread t) const;
  // The warp waited for op, which `touched` the cell, but ran no fence::after_thread_sync since:
  // a PTX letter; unless it is an error, the warp goes on as if it had fenced.
  void unfenced_wait(const Issue& issue, int warp, int lane, int column, const AsyncOp& op, const char* touched);
  void check_cta_group(const Issue& issue, CtaGroup group);
  void check_smem(const Issue& issue, const char* field, std::uint32_t addr, std::uint64_t n);
  void check_column(const Issue& issue, int column, int first, int last);
  // `mma`: the touching mma's accumulator and shape (Touch::mma_read/mma_write), for strict mode.
  void check_order(const Issue& issue, Touch touch, int warp, int issuer, int lane, int column,
                   const MmaShape* mma = nullptr);
  class OrderCheck;  // check_order's checks (cta_order.cpp)
  // Strict mode: an mma (`now`) writing a cell that the earlier mma `id` read
  // as its TS A operand needs it complete unless the two are a pipelined pair.
  void check_mma_reader(const Issue& issue, int warp, int issuer, int lane, int column, std::uint32_t id,
                        const MmaShape& now);
  // Whether the mma/cp `id` of op's thread is committed, for messages; `warp` waits for it.
  std::string commit_state(const AsyncOp& op, std::uint32_t id, int warp) const;
  // The detail of Rule::mma_not_pipelined: the earlier mma `op` (id) `earlier` the cell, this one `later`.
  std::string unpipelined(const AsyncOp& op, const char* earlier, const char* later, const MmaShape& now,
                          std::uint32_t id, int warp, int issuer) const;
  void check_written(const Issue& issue, int lane, int column, const char* why);
  // The MMA whose D a cell never written lies among (cta_mma_writes.cpp): remembered at each MMA's
  // write, named when a read finds a lane or column its shape did not reach.
  // `one_cta_layout`: cta_group::1 without .ws; `columns`: D's from d-tmem's; `lanes`: those its rows went to.
  void note_mma_write(const Issue& issue, const MmaShape& now, int columns, bool one_cta_layout,
                      const std::bitset<128>& lanes);
  std::string mma_write_near(int lane, int column) const;
  // Rule::k_block_read_twice: an MMA into d_tmem whose A and B (mma_a_origins_, mma_b_origins_) came
  // from the same global places as an earlier MMA of the same accumulation, or overlap those an
  // earlier one read (a K step advanced by the wrong count: a_desc and b_desc name the step taken).
  // `rows`: A's rows, B's (a pair's, both CTAs'); K and the types, for the step a K block takes.
  void check_k_block(const Issue& issue, std::uint32_t d_tmem, bool enable_input_d, std::uint64_t a_desc,
                     std::uint64_t b_desc, const InstrDescriptorFields& f, CtaGroup group, std::array<int, 2> rows);
  // Rule::operand_not_a_tile for an SS operand whose chunks (fetch order) came from global memory
  // (origins: each chunk's source, 0 unknown).
  void check_tile(const Issue& issue, const char* which, std::uint64_t desc, int rows, int k, ElementType type,
                  bool mn_major, Fp4Storage fp4, const std::vector<std::uint64_t>& origins);
  // Rule::operand_not_a_tile for an A read from Tensor Memory at a_tmem, `rows` rows of cells whose
  // sources (operand_origins_, one a cell) tcgen05.cp or tcgen05.st brought (operand_stored_: st).
  void check_tmem_tile(const Issue& issue, std::uint32_t a_tmem, int rows, ElementType type);
  void check_proxy(const Issue& issue, const std::vector<std::uint32_t>& chunks);
  // False when every warp has run fence.proxy.async since its last st.shared:
  // then no chunk can break the proxy-fence rule, and none need be listed.
  bool any_unfenced_st() const;
  // The warp's one taddr, its lane taken modulo 128 (Rule::tmem_lane_past_127).
  // A lane in another quarter than the warp's: the same lane of the warp's own quarter (Rule::lane_quarter_implied).
  std::uint32_t uniform_taddr(const Issue& issue, int warp, const std::array<std::uint32_t, 32>& taddr);
  void check_ld_st(const Issue& issue, int warp, const LdStAccess& access, std::uint32_t taddr);
  MbarrierSlot& slot(const Issue& issue, std::uint32_t mbar, bool must_be_valid);
  // Another CTA's (or an asynchronous) store into this CTA's shared memory: not tracked for the async proxy.
  void land_remote(const Issue& issue, std::uint32_t addr, std::span<const std::uint8_t> bytes);
  enum class MbarOp { arrive, expect_tx, complete_tx };
  // Applies op to the mbarrier; `carried` joins what its phase delivers to waiters.
  // `carried`: the knowledge an arrival carries into the phase.
  void mbarrier_op(const Issue& issue, std::uint32_t mbar, MbarOp op, std::int64_t amount,
                   std::initializer_list<const Knowledge*> carried = {});
  std::uint32_t issue_op(OpKind kind, int issuer, int warp, int lane, std::string instruction, int lanes_covered,
                         const MmaShape& shape = {});
  void mma(Thread t, MmaKind kind, std::uint32_t d_tmem, std::optional<std::uint32_t> a_tmem, std::uint64_t a_desc,
           std::uint64_t b_desc, std::uint32_t idesc, bool enable_input_d, CtaGroup group, const MmaVariant& variant);
  // Decodes an operand into out[row * row_stride + kk * k_stride], with the descriptor, image and proxy rules.
  void fetch_smem(const Issue& issue, const char* which, std::uint64_t desc, int rows, int k, ElementType type,
                  bool mn_major, Fp4Storage fp4, float* out, std::ptrdiff_t row_stride, std::ptrdiff_t k_stride);
  // A of an MMA into mma_a_: `copies` × rows × K row-major, K the
  // instruction's (twice the stored values for tcgen05.mma.sp, whose A is
  // decompressed by its metadata). From Tensor Memory (read_a_tmem, each
  // copy from lanes 64 · copy on) or shared memory (one copy). `warp`,
  // `issuer` and undefined_rows as for read_a_tmem.
  void read_a(const Issue& issue, int warp, int issuer, const InstrDescriptorFields& f, const MmaVariant& variant,
              std::optional<std::uint32_t> a_tmem, std::uint64_t a_desc, const MmaShape& now, int rows, int copies,
              bool layout_f, std::uint8_t* undefined_rows);
  // tcgen05.mma.sp's forms: the idesc's sparsity bit agrees with the
  // spelling, and the metadata layout of the shape is one the model knows.
  void check_sparse_form(const Issue& issue, const InstrDescriptorFields& f, const MmaVariant& variant,
                         CtaGroup group);
  // The `rows` (128) rows of A kept in `kept` (rows × the stored K) spread
  // into `dense` (rows × K) by the metadata at [sp-meta-tmem] and the idesc's
  // selector (sparse_metadata.hpp), with the metadata's Tensor Memory rules.
  void decompress_a(const Issue& issue, int warp, int issuer, const InstrDescriptorFields& f, std::uint32_t sp_meta,
                    const MmaShape& now, int rows, const float* kept, float* dense);
  // A of TS-MMA, rows × k row-major into out:
  // rows m at lanes first_lane + m (a CTA pair's half; for M = 128 each of
  // its two copies; .ws with M = 64, each of its two). Layout F when layout_f
  // (M = 64 without .ws). `warp` and `issuer` as for check_order.
  // undefined_rows: rows read from cells never written (or undefined) are marked there, not refused.
  void read_a_tmem(const Issue& issue, int warp, int issuer, std::uint32_t a_tmem, const MmaShape& now, int rows,
                   int first_lane, bool layout_f, int k, ElementType type, float* out,
                   std::uint8_t* undefined_rows = nullptr);
  // The `vec` scale factors of each of `rows` rows of A (or columns of B)
  // at [tmem], bytes id .. id + vec - 1 of their words, into out[row * vec + j].
  // `warp` and `issuer` as for check_order.
  void read_scale_factors(const Issue& issue, int warp, int issuer, const char* which, std::uint32_t tmem, int rows,
                          int vec, int id, bool ue8m0, const MmaShape& now, float* out);
  // Block scaling: D = (A · scale_A)(B · scale_B) + D (PTX #tcgen05-block-scaling): a (rows × k,
  // row-major) and bt (k × n) times the factors of this CTA's Tensor Memory, each applied to the
  // k / vec elements of its block.
  void apply_scale_factors(const Issue& issue, int warp, int issuer, const InstrDescriptorFields& f,
                           const MmaVariant& variant, const MmaShape& now, int rows, int n, int k, float* a, float* bt);

  CtaConfig config_;
  Issuers keys_;
  Cta* peer_ = nullptr;
  // cta_group::2 allocations the peer made for both CTAs that this CTA's own
  // tcgen05.alloc has not yet matched: (column, nCols), in order.
  std::vector<std::pair<int, int>> pair_allocs_;
  SharedMemory smem_;
  TensorMemory tmem_;
  std::vector<WarpState> warps_;
  std::map<std::uint32_t, MbarrierSlot> mbarriers_;
  std::vector<AsyncOp> ops_;                        // ops_[id - 1]
  std::map<int, std::vector<Commit>> commits_;      // by issuing thread
  std::vector<AllocStore> alloc_stores_;
  std::uint64_t alloc_store_count_ = 0;  // AllocStore::id: numbered across the kernel, never reused

  std::optional<CtaGroup> cta_group_;               // the kernel's, from its first instruction that names one
  std::string cta_group_first_;                     // that instruction
  std::optional<int> relinquished_by_;              // warp that ran relinquish_alloc_permit
  int last_alloc_columns_ = 0;
  // The MMA's working storage, reused from one instruction to the next: A
  // (M × K), B transposed (K × N), D rows (in Tensor Memory for f32 D, in
  // mma_d_ for f16 D), one .ws segment's columns of B, the scale factors,
  // the chunks an operand fetch read.
  std::vector<float> mma_a_, mma_bt_, mma_d_, mma_b_segment_, mma_scale_a_, mma_scale_b_;
  std::vector<float> mma_a_kept_;             // tcgen05.mma.sp: A as stored, before decompression
  std::vector<std::uint8_t> mma_sp_entries_;  // one row's sparsity metadata entries
  std::vector<std::uint8_t> mma_undefined_;  // MmaShare::undefined_rows of the instruction in hand
  std::vector<float*> mma_rows_;
  std::vector<std::uint32_t> mma_chunks_;
  std::map<Rule, Warning> warnings_;
  std::string after_free_lettered_;  // the last instruction counted for tmem_used_after_free (check_column)
  std::function<void(std::uint32_t, std::uint64_t)> mbarrier_hook_;
  // The last fetched SS operand's chunks' sources, in fetch order (0: unknown), and the MMA's A and B
  // (a CTA pair's: both CTAs' halves, the even one's first; A from Tensor Memory: none).
  std::vector<std::uint64_t> operand_origins_, mma_a_origins_, mma_b_origins_;
  std::vector<bool> operand_stored_;  // A from Tensor Memory: which cells' sources a tcgen05.st brought
  // What one accumulation (an accumulator's MMAs since the last with enable-input-d clear) read.
  struct Accumulation {
    std::set<std::pair<std::uint64_t, std::uint64_t>> firsts;  // each MMA's (A(0, 0), B(0, 0)) sources
    SourceSet a, b;                                            // every known chunk source of A, of B
    std::uint64_t a_desc = 0, b_desc = 0;                      // the last MMA's descriptors
  };
  std::map<std::uint32_t, Accumulation> accumulations_;  // by d-tmem
  // Where each Tensor Memory cell's 4 bytes came from in global memory (0: unknown): as the
  // tcgen05.cp that wrote it copied them from shared memory, or the tcgen05.st from registers a
  // global load filled; made at the first such write, with provenance. A source holds while the
  // cell's writer is that instruction: any later write is another writer, and forgets it.
  struct CellSource {
    std::uint32_t writer;
    std::uint64_t global;
    bool stored;  // by tcgen05.st (else tcgen05.cp)
  };
  std::vector<CellSource> tmem_sources_;  // lane · 512 + column
  // Each shape an MMA wrote D at a d-tmem with, since that column's tcgen05.alloc: the instruction,
  // where it was issued, its M and N, the lanes and columns (from d-tmem's) its D rows went to.
  struct MmaWrite {
    std::uint32_t d_tmem;
    int m, n, columns;
    bool one_cta_layout;  // cta_group::1 without .ws: D rows at datapath_lane (Layouts D, F)
    std::bitset<128> lanes;
    std::string instruction, where;
  };
  std::vector<MmaWrite> mma_writes_;
  std::function<std::string()> locator_;
};

}  // namespace tcgen::model
