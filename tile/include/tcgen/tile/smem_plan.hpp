#pragma once
// A compile-time shared-memory plan: every buffer and mbarrier group a kernel
// keeps in shared memory, declared together. The plan derives each entry's
// offset (in order, each on its alignment) and the total, and the compiler
// rejects, with a sentence, a plan whose entries overlap, sit off their
// alignment, outgrow a CTA's shared memory, or give an mbarrier an arrival
// count PTX does not allow. It replaces offsets chained by hand; tmem::Plan
// does the same for Tensor Memory.
//
//   using Smem = SmemPlan<buffer("stages", kStageBytes, 1024, kStages),
//                         barriers("full", kStages, 1), barriers("empty", kStages, 1),
//                         buffer("tmem_slot", 4, 4)>;
//   Smem::address<"stages">(base, s);  Smem::barrier<"full">(base, s);
//   Smem::init_barriers(arch, base);  // every group with its arrival count
//
// Offsets are from the kernel's shared-memory base, which DeviceArch and
// HostArch align to 1024 bytes (exec/smem_budget.hpp), so an entry aligned
// to 1024 in the plan is aligned to 1024 in the address space.
#include <array>
#include <cstdint>
#include <span>
#include <utility>

#include "tcgen/exec/kernel_arch.hpp"
#include "tcgen/core/fixed_name.hpp"
#include "tcgen/core/host_device.hpp"
#include "tcgen/core/rule_table.hpp"
#include "tcgen/exec/smem_budget.hpp"

namespace tcgen::tile {

// Names as tmem::Plan's regions have them: at most 15 characters, in the type.
using EntryName = FixedName;

enum class EntryKind : std::uint8_t { buffer, barriers };

// One entry: `count` copies of `bytes` (stages of a ring), or `count`
// mbarriers of 8 bytes each initialised with `arrivals`. .at(offset) fixes
// its offset instead of placing it after the previous entry.
struct Entry {
  EntryName name;
  EntryKind kind = EntryKind::buffer;
  std::uint32_t bytes = 0;   // one copy (8 for an mbarrier)
  std::uint32_t align = 16;  // a power of two
  int count = 1;
  std::uint32_t arrivals = 0;  // barriers: the expected arrival count of each phase
  bool fixed = false;
  std::uint32_t offset = 0;  // at(): the offset

  constexpr TCGEN_HD Entry at(std::uint32_t o) const {
    Entry e = *this;
    e.fixed = true;
    e.offset = o;
    return e;
  }
  // Bytes from one copy to the next: the copy rounded up to the alignment.
  // In 64 bits, so that no size the checks see can wrap.
  constexpr TCGEN_HD std::uint64_t stride() const {
    return align == 0 ? bytes : (std::uint64_t{bytes} + align - 1) / align * align;
  }
  constexpr TCGEN_HD std::uint64_t extent() const { return stride() * static_cast<std::uint64_t>(count < 0 ? 0 : count); }
};

// `count` buffers of `bytes` each, every one on `align` (a swizzled operand
// tile needs 1024: the 128-byte swizzle repeats every 1024 bytes of address).
constexpr TCGEN_HD Entry buffer(EntryName name, std::uint32_t bytes, std::uint32_t align = 16, int count = 1) {
  Entry e;
  e.name = name;
  e.bytes = bytes;
  e.align = align;
  e.count = count;
  return e;
}
// `count` mbarriers (8 bytes, 8-aligned: PTX #parallel-synchronization-and-
// communication-instructions-mbarrier-size-alignment), each expecting
// `arrivals` arrivals per phase.
constexpr TCGEN_HD Entry barriers(EntryName name, int count, std::uint32_t arrivals) {
  Entry e;
  e.name = name;
  e.kind = EntryKind::barriers;
  e.bytes = 8;
  e.align = 8;
  e.count = count;
  e.arrivals = arrivals;
  return e;
}

// mbarrier.init's count: [1, 2^20 - 1] (PTX #parallel-synchronization-and-
// communication-instructions-mbarrier-init).
inline constexpr std::uint32_t kMaxArrivals = (1u << 20) - 1;

// The plan rules, in the order they are checked.
#define TCGEN_SMEM_PLAN_RULES(X)                                                                                    \
  X(name, "name", "every shared-memory entry needs a name of its own: address<\"name\">() finds an entry by it")       \
  X(size, "bytes", "an entry needs at least one copy of at least one byte")                                          \
  X(alignment, "align", "an entry's alignment must be a power of two from 1 to 1024 (the kernel's base is aligned to 1024)") \
  X(misaligned, "offset", "an entry fixed with at() must sit on its alignment")                                        \
  X(arrivals, "arrivals", "an mbarrier expects 1 to 2^20 - 1 arrivals per phase (PTX #parallel-synchronization-and-communication-instructions-mbarrier-init)") \
  X(overlap, "offset", "two shared-memory entries overlap: move the one fixed with at(), or let it follow the others") \
  X(capacity, "bytes", "the plan needs more shared memory than a CTA may have (227 KB on sm_100, less the 1 KB the launch adds to align the base)")

TCGEN_RULE_ENUM(SmemRule, TCGEN_SMEM_PLAN_RULES);
TCGEN_RULE_LOOKUPS(SmemRule, TCGEN_SMEM_PLAN_RULES)

struct SmemCheck {
  SmemRule rule = SmemRule::ok;
  int entry = -1;
  friend constexpr bool operator==(const SmemCheck&, const SmemCheck&) = default;
};

constexpr int find(std::span<const Entry> es, const EntryName& name) { return find_named(es, name); }

constexpr bool power_of_two(std::uint32_t x) { return x != 0 && (x & (x - 1)) == 0; }

// An entry's offset: at()'s, or the end of the previous entry rounded up to its alignment.
constexpr std::uint64_t entry_offset(std::span<const Entry> es, int i) {
  if (es[i].fixed) return es[i].offset;
  if (i == 0) return 0;
  const std::uint64_t end = entry_offset(es, i - 1) + es[i - 1].extent();
  return (end + es[i].align - 1) / es[i].align * es[i].align;
}

constexpr std::uint64_t plan_bytes(std::span<const Entry> es) {
  std::uint64_t end = 0;
  for (std::size_t i = 0; i < es.size(); ++i) {
    const std::uint64_t e = entry_offset(es, static_cast<int>(i)) + es[i].extent();
    end = e > end ? e : end;
  }
  return end;
}

constexpr SmemCheck check(std::span<const Entry> es) {
  const int n = static_cast<int>(es.size());
  for (int i = 0; i < n; ++i) {
    const Entry& e = es[i];
    if (e.name.empty() || find(es.first(static_cast<std::size_t>(i)), e.name) >= 0) return {SmemRule::name, i};
    if (e.bytes == 0 || e.count < 1) return {SmemRule::size, i};
    if (!power_of_two(e.align) || e.align > 1024) return {SmemRule::alignment, i};
    if (e.fixed && e.offset % e.align != 0) return {SmemRule::misaligned, i};
    if (e.kind == EntryKind::barriers && (e.arrivals < 1 || e.arrivals > kMaxArrivals)) return {SmemRule::arrivals, i};
  }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < j; ++i) {
      const std::uint64_t a = entry_offset(es, i), b = entry_offset(es, j);
      if (a < b + es[j].extent() && b < a + es[i].extent()) return {SmemRule::overlap, j};
    }
  if (plan_bytes(es) > exec::kKernelSmemBytes) return {SmemRule::capacity, n - 1};
  return {};
}

template <Entry... Es>
struct SmemPlan {
  static_assert(sizeof...(Es) > 0, "a shared-memory plan declares at least one entry");
  static constexpr std::array<Entry, sizeof...(Es)> entries{Es...};
  static constexpr SmemCheck verdict = check(entries);
  TCGEN_RULE_MEMBER_ASSERTS(SmemRule, TCGEN_SMEM_PLAN_RULES, verdict.rule);
  static_assert(blame<verdict, verdict.entry < 0 ? EntryName{} : entries[verdict.entry].name>());

  // The bytes the kernel asks for at launch.
  static constexpr std::uint32_t bytes = verdict.rule == SmemRule::ok ? static_cast<std::uint32_t>(plan_bytes(entries)) : 0;

  template <EntryName N>
  static consteval int index() {
    constexpr int i = find(entries, N);
    static_assert(i >= 0, "the shared-memory plan has no entry of this name");
    return i < 0 ? 0 : i;
  }
  template <EntryName N>
  static constexpr Entry entry = entries[index<N>()];
  template <EntryName N>
  static constexpr std::uint32_t offset = static_cast<std::uint32_t>(entry_offset(entries, index<N>()));
  template <EntryName N>
  static constexpr std::uint32_t stride = static_cast<std::uint32_t>(entry<N>.stride());
  template <EntryName N>
  static constexpr int count = entry<N>.count;

  // Copy i of a buffer, at the kernel's shared-memory base `base`.
  template <EntryName N>
  static constexpr TCGEN_HD std::uint32_t address(std::uint32_t base, int i = 0) {
    static_assert(entry<N>.kind == EntryKind::buffer, "address<>() names a buffer; barrier<>() an mbarrier group");
    return base + offset<N> + stride<N> * static_cast<std::uint32_t>(i);
  }
  // mbarrier i of a group.
  template <EntryName N>
  static constexpr TCGEN_HD std::uint32_t barrier(std::uint32_t base, int i = 0) {
    static_assert(entry<N>.kind == EntryKind::barriers, "barrier<>() names an mbarrier group; address<>() a buffer");
    return base + offset<N> + 8u * static_cast<std::uint32_t>(i);
  }

  // One thread: every mbarrier of the plan initialised with its group's
  // arrival count, then the fence that makes the inits visible to the async
  // proxy (PTX #parallel-synchronization-and-communication-instructions-mbarrier-init).
  template <exec::KernelArch Arch>
  static TCGEN_HD void init_barriers(Arch& a, std::uint32_t base) {
    init_groups(a, base, std::make_index_sequence<sizeof...(Es)>());
    a.fence_mbarrier_init();
  }

 private:
  // Scalars only: device code may not read the entries array at run time.
  template <std::size_t G, class Arch>
  static TCGEN_HD void init_group(Arch& a, std::uint32_t base) {
    if constexpr (entries[G].kind == EntryKind::barriers) {
      constexpr auto at = static_cast<std::uint32_t>(entry_offset(entries, static_cast<int>(G)));
      constexpr std::uint32_t arrivals = entries[G].arrivals;
      constexpr int n = entries[G].count;
      for (int i = 0; i < n; ++i) a.mbarrier_init(base + at + 8u * static_cast<std::uint32_t>(i), arrivals);
    }
  }
  template <exec::KernelArch Arch, std::size_t... G>
  static TCGEN_HD void init_groups(Arch& a, std::uint32_t base, std::index_sequence<G...>) {
    (init_group<G>(a, base), ...);
  }
};

// The plan whose entries a constant array holds (a plan computed by a
// function, as stages_that_fit's caller has it).
template <auto Es, class = std::make_index_sequence<Es.size()>>
struct PlanOfEntries;
template <auto Es, std::size_t... I>
struct PlanOfEntries<Es, std::index_sequence<I...>> {
  using type = SmemPlan<Es[I]...>;
};
template <auto Es>
using SmemPlanOf = typename PlanOfEntries<Es>::type;

// The most pipeline stages, from `most` down to 1, whose plan fits a CTA's
// shared memory: `entries_of(s)` gives the plan's entries with s stages. 0 when
// not even one fits (SmemPlanOf<entries_of(1)> then says why, with the rule's sentence).
template <class EntriesOf>
constexpr int stages_that_fit(int most, EntriesOf entries_of) {
  for (int s = most; s >= 1; --s) {
    const auto es = entries_of(s);
    if (check(es).rule != SmemRule::capacity) return s;
  }
  return 0;
}

}  // namespace tcgen::tile
