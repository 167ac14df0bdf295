// Operand provenance through Tensor Memory (docs/model.md): tcgen05.cp copies
// A's rows from shared memory, whose chunks a TMA load (here: set_smem_origin)
// says came from a row-major global tensor, and a TS MMA reads them. A copy
// whose descriptor reads another layout than the rows were written in is named
// at the MMA; a K block read twice through Tensor Memory is named as from
// shared memory; the right copy is silent. tcgen05.st does the same from
// registers whose sources the PTX interpreter knows (here: given): stored in
// their elements' columns, silent; in another order, named as the st's.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test_model_support.hpp"

using namespace model_test;

namespace {

constexpr std::uint32_t kA = 0x400, kB = 0x8000;  // operand tiles
constexpr std::uint64_t kGlobalA = 0x100000, kGlobalB = 0x200000;  // fake global addresses, row-major K × bf16

// A (128 × 16) and B (64 × 16) staged K-major without swizzle, their chunks from rows of global tensors.
struct Staged {
  Kernel kn;
  const KMajor A{kA, 128, 16, ElementType::bf16}, B{kB, 64, 16, ElementType::bf16};

  Staged() {
    stage(kn.cta, A, small_values(128, 16, 41), 0);
    stage(kn.cta, B, small_values(64, 16, 42), 0);
    for (const auto& [op, global] : {std::pair{A, kGlobalA}, std::pair{B, kGlobalB}})
      for (int r = 0; r < op.rows; ++r)
        for (int kk = 0; kk < 16; kk += 8) kn.cta.set_smem_origin(op.addr(r, kk), 16, global + 2 * std::uint64_t(r * 16 + kk));
  }
  // tcgen05.cp.128x256b of A (lbo, sbo) to column 256, then `mmas` TS MMAs of one accumulation;
  // `overwritten`: A's cells stored again by tcgen05.st (bf16 1.0s) between the two.
  void run(std::uint32_t lbo, std::uint32_t sbo, int mmas = 1, bool overwritten = false) {
    kn.cta.cp({0, 0}, CpShape::s128x256b, kn.tmem + 256, smem_desc(kA, lbo, sbo));
    if (overwritten) {
      kn.cta.commit({0, 0}, Kernel::kMbar);  // the cp complete before the warps store over it
      for (int w = 0; w < 4; ++w) {
        kn.await(w, 0);
        WarpRegisters regs;
        for (int t = 0; t < 32; ++t) regs[t].assign(8, 0x3F803F80u);
        kn.cta.st(w, {LdStShape::s32x32b, 8}, kn.tmem + taddr(32 * w, 256), regs);
        kn.cta.wait_st(w);
        kn.cta.fence_before_thread_sync(w);
      }
      kn.cta.bar_sync();
      kn.cta.fence_after_thread_sync(0);
    }
    Idesc id;
    id.n = 64;
    for (int i = 0; i < mmas; ++i) kn.cta.mma_ts({0, 0}, MmaKind::f16, kn.tmem, kn.tmem + 256, B.desc(0), idesc(id), i > 0);
    kn.cta.commit({0, 0}, Kernel::kMbar);
    for (int w = 0; w < 4; ++w) kn.await(w, overwritten ? 1 : 0);
    kn.end();
  }
  // A's rows stored by each warp's tcgen05.st.32x32b.x8 from registers (row 32w + t, bf16 pairs
  // 2i, 2i + 1) whose sources are rows of kGlobalA; `swapped`: registers i and i ^ 4 exchanged (the
  // row's two 16-byte halves in each other's columns). Then one TS MMA.
  void run_stored(bool swapped) {
    for (int w = 0; w < 4; ++w) {
      WarpRegisters regs;
      WarpSources sources;
      for (int t = 0; t < 32; ++t)
        for (int i = 0; i < 8; ++i) {
          const int from = swapped ? i ^ 4 : i, row = 32 * w + t;
          regs[t].push_back(0x3F803F80u + static_cast<std::uint32_t>(from));
          sources[t].push_back(kGlobalA + 2 * std::uint64_t(row * 16 + 2 * from));
        }
      kn.cta.st(w, {LdStShape::s32x32b, 8}, same_for_all(kn.tmem + taddr(32 * w, 256)), regs, &sources);
      kn.cta.wait_st(w);
      kn.cta.fence_before_thread_sync(w);
    }
    kn.cta.bar_sync();
    kn.cta.fence_after_thread_sync(0);
    Idesc id;
    id.n = 64;
    kn.cta.mma_ts({0, 0}, MmaKind::f16, kn.tmem, kn.tmem + 256, B.desc(0), idesc(id), false);
    kn.cta.commit({0, 0}, Kernel::kMbar);
    for (int w = 0; w < 4; ++w) kn.await(w, 0);
    kn.end();
  }
  static std::array<std::uint32_t, 32> same_for_all(std::uint32_t t) {
    std::array<std::uint32_t, 32> a;
    a.fill(t);
    return a;
  }
  std::string warning(Rule r) const {
    const auto it = kn.cta.warnings().find(r);
    return it == kn.cta.warnings().end() ? "(none)" : it->second.first;
  }
};

}  // namespace

TEST_CASE("A copied to Tensor Memory as it was staged (LBO 2048, SBO 128): the TS MMA is silent") {
  Staged s;
  s.run(128 * 16, 128);
  CHECK(s.kn.cta.warnings().count(Rule::operand_not_a_tile) == 0);
  CHECK(s.kn.cta.warnings().count(Rule::k_block_read_twice) == 0);
}

TEST_CASE("A copied with LBO and SBO swapped: the TS MMA's A rows are not rows of one tensor, named at the MMA") {
  Staged s;
  s.run(128, 128 * 16);
  REQUIRE(s.kn.cta.warnings().count(Rule::operand_not_a_tile) == 1);
  const std::string w = s.warning(Rule::operand_not_a_tile);
  MESSAGE(w);
  CHECK(w.find("a-tmem = 0x100") != std::string::npos);
  // Chunk 1 of row 0 read at kA + 128, where row 8's first chunk was staged: 8 rows of 32 bytes on.
  CHECK(w.find("A(0, 8) was copied (tcgen05.cp) from 256 bytes past the source of A(0, 0), where a row of one tensor "
               "holds it 16 bytes past it") != std::string::npos);
}

TEST_CASE("the same A from Tensor Memory and B twice in one accumulation: a K block added twice") {
  Staged s;
  s.run(128 * 16, 128, 2);
  CHECK(s.kn.cta.warnings().count(Rule::operand_not_a_tile) == 0);
  REQUIRE(s.kn.cta.warnings().count(Rule::k_block_read_twice) == 1);
  CHECK(s.warning(Rule::k_block_read_twice).find("a K block added twice") != std::string::npos);
}

TEST_CASE("cells the swapped copy wrote, stored again by tcgen05.st: their sources are forgotten, the MMA silent") {
  Staged s;
  s.run(128, 128 * 16, 1, true);
  CHECK(s.kn.cta.warnings().count(Rule::operand_not_a_tile) == 0);
}

TEST_CASE("A stored by tcgen05.st from registers holding its rows in order: the TS MMA is silent") {
  Staged s;
  s.run_stored(false);
  CHECK(s.kn.cta.warnings().count(Rule::operand_not_a_tile) == 0);
}

TEST_CASE("A stored with each row's halves exchanged: named at the MMA as the tcgen05.st's") {
  Staged s;
  s.run_stored(true);
  REQUIRE(s.kn.cta.warnings().count(Rule::operand_not_a_tile) == 1);
  const std::string w = s.warning(Rule::operand_not_a_tile);
  MESSAGE(w);
  // Cell 4 of row 0 (A(0, 8)) holds the bytes of A(0, 0..1), 16 bytes before the source cell 0 now holds.
  CHECK(w.find("was stored (tcgen05.st) from") != std::string::npos);
  CHECK(w.find("the tcgen05.st put registers in other columns than their elements'") != std::string::npos);
}
