// Operand provenance (docs/model.md, operand_not_a_tile): legal descriptors
// that read the wrong bytes, named at the MMA with what would have read the
// tile, in raw-PTX kernels (tests/ptx_programs/provenance_kernels.cu) whose A
// and B come by TMA; the correct kernel is silent and exact. The seed's own
// LBO/SBO swap, copied through registers, is in test_ptx_seed_bugs.
#include <doctest/doctest.h>

#if defined(TCGEN_PROVENANCE_PTX)

#include <cmath>
#include <cstdint>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "fresh_seed.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/tensor_map.hpp"

using namespace tcgen;

namespace {

const ptx::Module& kernels() {
  static const ptx::Module m = ptx::Module::load(TCGEN_PROVENANCE_PTX);
  return m;
}

// A 128 × 64 bf16 tensor, K-major, as one 128B-swizzled box of 64 × 128.
tma::TensorMapSpec tile_spec() {
  tma::TensorMapSpec s;
  s.element_bytes = 2;
  s.data_type = 9;  // BFLOAT16
  s.rank = 2;
  s.global_dims = {64, 128, 1, 1, 1};
  s.global_strides = {128, 0, 0, 0};
  s.box_dims = {64, 128, 1, 1, 1};
  s.swizzle = tma::TmaSwizzle::b128;
  return s;
}

struct Run {
  std::vector<std::uint16_t> a, b;
  std::vector<float> d = std::vector<float>(128 * 128, 0.0f);
  ptx::LaunchStats stats;

  explicit Run(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (auto* v : {&a, &b})
      for (int i = 0; i < 128 * 64; ++i) v->push_back(static_cast<std::uint16_t>(encode(ElementType::bf16, normal(rng))));
  }
  void launch(const std::string& kernel, bool provenance = true) {
    const ptx::TensorMap am = ptx::encode_tensor_map(tile_spec(), a.data()), bm = ptx::encode_tensor_map(tile_spec(), b.data());
    float* dp = d.data();
    const ptx::Argument args[] = {ptx::argument(am), ptx::argument(bm), ptx::argument(dp)};
    const ptx::Allocation memory[] = {{a.data(), a.size() * 2, "a"}, {b.data(), b.size() * 2, "b"},
                                      {d.data(), d.size() * 4, "d", true}};
    // Room past the tiles for a K step that walks off them (k_step_in_bytes_not_encoded reads 1536 bytes on).
    ptx::LaunchConfig config{.block = {128, 1, 1}, .dynamic_smem = 40960};
    config.options.provenance = provenance;
    stats = ptx::launch(kernels(), kernels().entry(kernel), config, args, memory);
  }
  // The TS kernels: A by pointer, loaded through registers; B by TMA.
  void launch_stored(const std::string& kernel) {
    const ptx::TensorMap bm = ptx::encode_tensor_map(tile_spec(), b.data());
    const void* ap = a.data();
    float* dp = d.data();
    const ptx::Argument args[] = {ptx::argument(ap), ptx::argument(bm), ptx::argument(dp)};
    const ptx::Allocation memory[] = {{a.data(), a.size() * 2, "a"}, {b.data(), b.size() * 2, "b"},
                                      {d.data(), d.size() * 4, "d", true}};
    stats = ptx::launch(kernels(), kernels().entry(kernel), {.block = {128, 1, 1}, .dynamic_smem = 40960}, args, memory);
  }
  // The largest |D - A·Bᵀ| over the fp64 product's largest magnitude.
  double error() const {
    double worst = 0, largest = 0;
    for (int i = 0; i < 128; ++i)
      for (int j = 0; j < 128; ++j) {
        double sum = 0;
        for (int k = 0; k < 64; ++k) sum += double(decode(ElementType::bf16, a[i * 64 + k])) * decode(ElementType::bf16, b[j * 64 + k]);
        worst = std::max(worst, std::abs(sum - d[i * 128 + j]));
        largest = std::max(largest, std::abs(sum));
      }
    return worst / largest;
  }
  // The launch's error, or "(no error)".
  std::string error_of(const std::string& kernel) {
    try {
      launch(kernel);
    } catch (const ptx::ExecutionError& e) {
      return e.what();
    }
    return "(no error)";
  }
  std::string warning() const {
    const auto it = stats.first_warning.find("operand_not_a_tile");
    return it == stats.first_warning.end() ? "(none)" : it->second;
  }
};

}  // namespace

TEST_CASE("TMA-fed operands read as the box was written: no provenance warning, D exact") {
  Run r(fresh_seed() + 1);
  r.launch("provenance_correct");
  CHECK(r.stats.warnings.count("operand_not_a_tile") == 0);
  CHECK(r.error() < 1e-5);
}

TEST_CASE("A stored to Tensor Memory from the registers its rows were loaded into: no warning, D exact") {
  Run r(fresh_seed() + 20);
  r.launch_stored("provenance_a_stored");
  CHECK(r.stats.warnings.count("operand_not_a_tile") == 0);
  CHECK(r.error() < 1e-5);
}

TEST_CASE("two of a row's loads stored in each other's columns: named at the MMA as the tcgen05.st's") {
  Run r(fresh_seed() + 21);
  r.launch_stored("provenance_a_stored_swapped");
  REQUIRE(r.stats.warnings.count("operand_not_a_tile") >= 1);
  const std::string w = r.warning();
  MESSAGE(w);
  CHECK(w.find("provenance_kernels.cu:") != std::string::npos);
  CHECK(w.find("[a-tmem]") != std::string::npos);
  // Column 0 of row 0 holds A(0, 8 .. 9) and column 4, A(0, 8)'s, holds A(0, 0 .. 1): 16 bytes before it.
  CHECK(w.find("A(0, 8) was stored (tcgen05.st) from -16 bytes past the source of A(0, 0)") != std::string::npos);
  CHECK(r.error() > 0.1);
}

TEST_CASE("two words a converged warp loaded stored in each other's columns: named at the MMA") {
  // The loads of a warp in lockstep (its ld.global warp form) are remembered as a lone thread's are.
  Run r(fresh_seed() + 22);
  r.launch_stored("provenance_a_words_swapped");
  REQUIRE(r.stats.warnings.count("operand_not_a_tile") >= 1);
  const std::string w = r.warning();
  MESSAGE(w);
  CHECK(w.find("[a-tmem]") != std::string::npos);
  // Column 0 of row 0 holds A(0, 2 .. 3), 4 bytes past A(0, 0)'s source, and column 1 A(0, 0 .. 1).
  CHECK(w.find("4 bytes past the source of A(0, 0)") != std::string::npos);
  CHECK(r.error() > 0.1);
}

TEST_CASE("a descriptor without the TMA box's 128B swizzle: named at the MMA, with the swizzle that reads the tile") {
  Run r(fresh_seed() + 2);
  r.launch("provenance_swizzle_none");
  REQUIRE(r.stats.warnings.count("operand_not_a_tile") == 1);
  const std::string w = r.warning();
  MESSAGE(w);
  CHECK(w.find("provenance_kernels.cu:") != std::string::npos);
  CHECK(w.find("tcgen05.mma") != std::string::npos);
  CHECK(w.find("a-desc") != std::string::npos);
  CHECK(w.find("the descriptor's swizzle (layout type 0) is not the one the data was written with: layout type 2 "
               "would read the tile") != std::string::npos);
  CHECK(r.error() > 0.1);  // the hardware computes garbage, and so does the model
}

TEST_CASE("an instruction descriptor that calls A MN-major when the TMA wrote it K-major: named as the transpose") {
  Run r(fresh_seed() + 3);
  r.launch("provenance_a_transposed");
  REQUIRE(r.stats.warnings.count("operand_not_a_tile") >= 1);
  const std::string w = r.warning();
  MESSAGE(w);
  CHECK(w.find("a-desc") != std::string::npos);
  CHECK(w.find("the operand is K-major in shared memory where the instruction descriptor says MN-major") !=
        std::string::npos);
}

TEST_CASE("a K step that never advances the descriptors: the K block added twice is named at the MMA") {
  Run r(fresh_seed() + 5);
  r.launch("provenance_k_step_not_advanced");
  CHECK(r.stats.warnings.count("operand_not_a_tile") == 0);  // each MMA reads a tile: the first K block
  REQUIRE(r.stats.warnings.count("k_block_read_twice") == 1);
  CHECK(r.stats.warnings.at("k_block_read_twice") == 3);  // the second, third and fourth MMA
  const std::string w = r.stats.first_warning.at("k_block_read_twice");
  MESSAGE(w);
  CHECK(w.find("provenance_kernels.cu:") != std::string::npos);
  CHECK(w.find("a K block added twice") != std::string::npos);
}

TEST_CASE("a K step of 32 added to the encoded descriptors (512 bytes): rows 4 on are named, with the step") {
  Run r(fresh_seed() + 7);
  r.launch("provenance_k_step_in_bytes_not_encoded");
  CHECK(r.stats.warnings.count("operand_not_a_tile") == 0);  // each MMA reads rows of one tensor, 4 rows on
  REQUIRE(r.stats.warnings.count("k_block_read_twice") == 1);
  CHECK(r.stats.warnings.at("k_block_read_twice") == 3);  // the second, third and fourth MMA
  const std::string w = r.stats.first_warning.at("k_block_read_twice");
  MESSAGE(w);
  CHECK(w.find("provenance_kernels.cu:") != std::string::npos);
  CHECK(w.find("this MMA reads A(0, 0) and B(0, 0) from where an earlier MMA") != std::string::npos);
  CHECK(w.find("a-desc's start address advanced 512 bytes (encoded 32) from the previous MMA's, where a K step of 16 "
               "bf16 elements is 32 bytes (encoded 2)") != std::string::npos);
  CHECK(w.find("b-desc's start address advanced 512 bytes") != std::string::npos);
  CHECK(r.error() > 0.1);
}

TEST_CASE("a K step of 64 bytes where 16 bf16 are 32: the third MMA, back on the first's K columns, is named") {
  Run r(fresh_seed() + 8);
  r.launch("provenance_k_step_doubled");
  CHECK(r.stats.warnings.count("operand_not_a_tile") == 0);
  REQUIRE(r.stats.warnings.count("k_block_read_twice") == 1);
  CHECK(r.stats.warnings.at("k_block_read_twice") == 2);  // the third (on the first's) and the fourth (the second's)
  const std::string w = r.stats.first_warning.at("k_block_read_twice");
  MESSAGE(w);
  CHECK(w.find("a-desc's start address advanced 64 bytes (encoded 4) from the previous MMA's, where a K step of 16 "
               "bf16 elements is 32 bytes (encoded 2)") != std::string::npos);
  CHECK(r.error() > 0.1);
}

TEST_CASE("the correct kernel adds each K block once") {
  Run r(fresh_seed() + 6);
  r.launch("provenance_correct");
  CHECK(r.stats.warnings.count("k_block_read_twice") == 0);
}

TEST_CASE("an idesc with M >> 4 one bit low (M = 64): storing the unwritten lane 16+ names the MMA and M = 128") {
  Run r(fresh_seed() + 9);
  const std::string e = r.error_of("provenance_m_at_bit_23");
  MESSAGE(e);
  // The whole slab loads (a B200 returns stale bits); the store of an unwritten lane is the error
  // (docs/model.md, Definedness), naming the cell the load read.
  CHECK(e.find("an undefined value reaches global memory") != std::string::npos);
  CHECK(e.find(", as tcgen05.ld.sync.aligned.32x32b.x8.b32 at ") != std::string::npos);
  // Layout F (PTX #tcgen05-data-path-layout-organization): M = 64 uses lanes 0-15 of each quarter, so
  // whichever thread of lanes 16-31 of a quarter stores first holds an unwritten cell.
  std::smatch cell;
  REQUIRE(std::regex_search(e, cell, std::regex(R"(holds Tensor Memory lane (\d+), column 0\b)")));
  const int lane = std::stoi(cell[1]);
  CHECK(lane % 32 >= 16);
  CHECK(std::regex_search(e, std::regex(R"(The MMA at \S*provenance_kernels\.cu:\d+, PTX line \d+ \(tcgen05\.mma)")));
  CHECK(e.find("(M = 64, N = 128) wrote D to lanes 0-15, 32-47, 64-79 and 96-111, columns 0-127, not lane " +
               std::to_string(lane) +
               "; an M of 128 would have written it (idesc bits 24-28 hold M >> 4: 8, here 4)") != std::string::npos);
}

TEST_CASE("an idesc with N = 64 where D is 128 wide: storing the unwritten column 64 names the MMA and its N") {
  Run r(fresh_seed() + 10);
  const std::string e = r.error_of("provenance_n_too_small");
  MESSAGE(e);
  CHECK(e.find("an undefined value reaches global memory") != std::string::npos);
  CHECK(std::regex_search(e, std::regex(R"(holds Tensor Memory lane \d+, column 64\b)")));
  CHECK(std::regex_search(e, std::regex(R"(The MMA at \S*provenance_kernels\.cu:\d+, PTX line \d+ \(tcgen05\.mma)")));
  CHECK(e.find("(M = 128, N = 64) wrote D to lanes 0-127, columns 0-63, not column 64: an N above 64 would have "
               "reached it (idesc bits 17-22 hold N >> 3: 8 here)") != std::string::npos);
}

TEST_CASE("--provenance off: the same planted swizzle goes unnamed") {
  Run r(fresh_seed() + 4);
  r.launch("provenance_swizzle_none", false);
  CHECK(r.stats.warnings.count("operand_not_a_tile") == 0);
}

#endif
