// Definedness (docs/model.md, Definedness): a tcgen05.ld of Tensor Memory cells
// never written is no fault; the registers it fills are undefined, and their
// use is: stored to global memory, used as an address or a branch condition,
// after arithmetic, through shared memory or a shuffle. The raw-PTX kernels
// (tests/ptx_programs/definedness_kernels.cu) write lanes 0-15 of a quarter and
// read all 32; storing only the written lanes is silent and exact. Strict keeps
// the fault at the load.
#include <doctest/doctest.h>

#if defined(TCGEN_DEFINEDNESS_PTX)

#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include "tcgen/model/ld_st_access.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/ptx/launch.hpp"

using namespace tcgen;

namespace {

const ptx::Module& kernels() {
  static const ptx::Module m = ptx::Module::load(TCGEN_DEFINEDNESS_PTX);
  return m;
}

struct Run {
  std::vector<std::uint32_t> out = std::vector<std::uint32_t>(512, 0);
  ptx::LaunchStats stats;
  void launch(const std::string& kernel, bool strict = false) {
    std::uint32_t* p = out.data();
    const ptx::Argument args[] = {ptx::argument(p)};
    const ptx::Allocation memory[] = {{out.data(), out.size() * 4, "out", true}};
    ptx::LaunchConfig config{.block = {32, 1, 1}};
    config.strict = strict;
    stats = ptx::launch(kernels(), kernels().entry(kernel), config, args, memory);
  }
};

// What the kernels' tcgen05.st.16x64b.x4 wrote to cell (lane, column): 100·thread + register + 1.
std::uint32_t written(int lane, int column) {
  const model::LdStAccess st{.shape = model::LdStShape::s16x64b, .num = 4};
  for (int t = 0; t < 32; ++t)
    for (int i = 0; i < 4; ++i)
      if (const model::CellOffset c = model::cell_offset(st, t, i, 0); c.lane == lane && c.column == column)
        return 100u * static_cast<std::uint32_t>(t) + static_cast<std::uint32_t>(i) + 1u;
  return 0;
}

// The launch's error message, "" when it passes.
std::string failure(const std::string& kernel, bool strict = false) {
  Run r;
  try {
    r.launch(kernel, strict);
  } catch (const ptx::ExecutionError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& part) {
  if (s.find(part) != std::string::npos) return true;
  MESSAGE("missing \"" << part << "\" in: " << s);
  return false;
}

// The origin a report names, "lane L, column C", and the lane of the thread that was stopped: the
// threads of the warp run in the schedule's order, so which undefined lane stores first varies.
struct Reported {
  int cell_lane = -1, column = -1, thread_lane = -1;
};
Reported reported(const std::string& e) {
  Reported r;
  std::smatch m;
  if (std::regex_search(e, m, std::regex("holds Tensor Memory lane (\\d+), column (\\d+), as tcgen05.ld")))
    r.cell_lane = std::stoi(m[1]), r.column = std::stoi(m[2]);
  if (std::regex_search(e, m, std::regex(", lane (\\d+) \\(thread"))) r.thread_lane = std::stoi(m[1]);
  return r;
}

}  // namespace

TEST_CASE("definedness: loading a slab of which 16 lanes were written and storing those is silent and exact") {
  Run r;
  r.launch("definedness_written_lanes_only");
  for (int lane = 0; lane < 16; ++lane)
    for (int c = 0; c < 8; ++c) REQUIRE(r.out[static_cast<std::size_t>(lane * 8 + c)] == written(lane, c));
  for (int i = 16 * 8; i < 512; ++i) REQUIRE(r.out[static_cast<std::size_t>(i)] == 0);
  CHECK(r.stats.warnings.empty());
}

TEST_CASE("definedness: storing the unwritten lanes is reported at the store, naming the cell and the load") {
  const std::string e = failure("definedness_all_lanes");
  CHECK(has(e, "definedness_kernels.cu:"));
  CHECK(has(e, "st.global"));
  CHECK(has(e, "an undefined value reaches global memory"));
  CHECK(has(e, ", as tcgen05.ld.sync.aligned.32x32b.x8.b32 at "));
  CHECK(has(e, "definedness_kernels.cu:46, PTX line"));  // the load
  CHECK(has(e, "it was never written since its tcgen05.alloc"));
  CHECK(has(e, "[undefined_value_used]"));
  const Reported r = reported(e);  // the first thread to store an undefined value, its own lane's cell
  CHECK(r.cell_lane >= 16);
  CHECK(r.cell_lane == r.thread_lane);
  CHECK(r.column == 0);
}

TEST_CASE("definedness: an undefined value used as an address or a branch condition is reported there") {
  const std::string address = failure("definedness_as_address");
  CHECK(has(address, "an undefined value reaches an address"));
  CHECK(reported(address).cell_lane >= 16);
  CHECK(reported(address).column == 3);
  const std::string branch = failure("definedness_as_branch");
  CHECK(has(branch, "bra.uni"));
  CHECK(has(branch, "an undefined value reaches a branch's guard predicate"));
  CHECK(reported(branch).cell_lane >= 16);
  CHECK(reported(branch).column == 5);
}

TEST_CASE("definedness: arithmetic on an undefined value, then stored, is reported at the store with its origin") {
  const std::string e = failure("definedness_arithmetic");
  CHECK(has(e, "st.global"));
  CHECK(has(e, "an undefined value reaches global memory"));
  CHECK(has(e, "definedness_kernels.cu:72"));  // out[lane] = 2 * r[2] + 1
  CHECK(reported(e).cell_lane >= 16);
  CHECK(reported(e).column == 2);
}

TEST_CASE("definedness: shared memory and shuffles carry it; defined values stay defined") {
  const std::string shared = failure("definedness_through_shared");  // lanes 0-7, 24-31 store written rows first
  CHECK(has(shared, "an undefined value reaches global memory"));
  CHECK(has(shared, "definedness_kernels.cu:80"));  // out[256 + lane] = stash[lane * 8]
  CHECK(reported(shared).cell_lane >= 16);
  CHECK(reported(shared).cell_lane == reported(shared).thread_lane);
  CHECK(reported(shared).column == 0);
  Run r;
  r.launch("definedness_shuffled");  // lanes 16-31 take lanes 0-15's values: written
  for (int lane = 16; lane < 32; ++lane) CHECK(r.out[static_cast<std::size_t>(lane * 8)] == written(lane - 16, 1));
  const std::string back = failure("definedness_shuffled_back");
  CHECK(has(back, "an undefined value reaches global memory"));
  CHECK(reported(back).cell_lane >= 16);
  CHECK(reported(back).cell_lane == reported(back).thread_lane + 16);  // the source lane's state moved
  CHECK(reported(back).column == 1);
}

TEST_CASE("definedness: strict keeps the fault at the load") {
  for (const char* kernel : {"definedness_written_lanes_only", "definedness_all_lanes"}) {
    const std::string e = failure(kernel, true);
    CHECK(has(e, "tcgen05.ld.sync.aligned.32x32b.x8.b32"));
    CHECK(has(e, "definedness_kernels.cu:46"));
    CHECK(has(e, "cell = lane 16, column 0"));
    CHECK(has(e, "it was never written since its tcgen05.alloc"));
    CHECK(has(e, "Tensor Memory holds no defined value after tcgen05.alloc"));
  }
}

#endif
