// The B200 timing model (docs/timing.md): each constant's effect on a
// micro-kernel against the public figure it came from (SemiAnalysis
// microbench-blackwell, b200-timing-facts.md), a kernel bound by each unit
// reported as bound by it, and the PTX interpreter's trace of a real kernel.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tcgen/timing/mma_cost.hpp"
#include "tcgen/timing/placement.hpp"
#include "tcgen/timing/simulate.hpp"

#if defined(TCGEN_SEED_PTX)
#include "tcgen/core/element_type.hpp"
#include "tcgen/ptx/launch.hpp"
#endif

using namespace tcgen;
using namespace tcgen::timing;

namespace {

const Machine kB200;

// A grid of `ctas` CTAs, one cluster each, whose warps are given by make(cta, warp).
template <class Make>
LaunchTrace grid(int ctas, int warps, Make make) {
  LaunchTrace t;
  t.kernel = "micro";
  t.grid[0] = static_cast<std::uint32_t>(ctas);
  t.threads = static_cast<std::uint32_t>(warps * 32);
  t.smem_bytes = 200 * 1024;  // one CTA per SM
  t.clusters_total = static_cast<std::uint64_t>(ctas);
  for (int c = 0; c < ctas; ++c) {
    ClusterTrace& cl = t.clusters.emplace_back();
    cl.index = static_cast<std::uint64_t>(c);
    CtaTrace& cta = cl.ctas.emplace_back();
    for (int w = 0; w < warps; ++w) cta.warps.push_back(make(c, w));
  }
  return t;
}

Prediction predict(const LaunchTrace& t) {
  const Placement p = place(kB200, t.clusters_total, 1, t.threads, t.smem_bytes);
  return simulate(t, p, kB200);
}

double cycles(const Prediction& p) { return (p.seconds - kB200.launch_seconds) * kB200.clock_hz; }

Record mma(int m, int n, int k, MmaRate rate = MmaRate::bits16, double bytes = 2, bool ts = false) {
  Record r;
  r.op = Op::mma;
  r.mma = {.m = m, .n = n, .k = k, .rate = rate, .element_bytes = bytes, .a_from_tmem = ts};
  return r;
}

PhaseKey mbar(std::uint64_t cluster, std::uint64_t phase, std::uint32_t id = 0x100) {
  return {cluster, 0, PhaseKey::Kind::mbarrier, id, phase};
}

// One warp: `n` MMAs back to back, a commit, a wait for it.
WarpTrace mma_chain(const Record& one, int n, std::uint64_t cluster) {
  WarpTrace w;
  for (int i = 0; i < n; ++i) w.records.push_back(one);
  Record commit;
  commit.op = Op::commit;
  commit.signals = {mbar(cluster, 0)};
  w.records.push_back(commit);
  Record wait;
  wait.op = Op::wait;
  wait.phase = mbar(cluster, 0);
  w.records.push_back(wait);
  return w;
}

}  // namespace

// umma_throughput/tput_results_max.csv (deep pipeline, cycles per MMA) and
// umma_latency/fit_results.csv (one MMA, cycles), SemiAnalysis microbench-blackwell on a B200.
TEST_CASE("tcgen05.mma's cycles and latency match SemiAnalysis' B200 measurements within 1.5%") {
  struct Point {
    const char* what;
    MmaShape shape;
    double cycles, latency;  // latency 0: not measured
  };
  const Point points[] = {
      {"BF16 SS 128x256x16", {.m = 128, .n = 256, .k = 16}, 128.61, 264},
      {"BF16 SS 128x128x16", {.m = 128, .n = 128, .k = 16}, 64.62, 200},
      {"BF16 SS 128x64x16 (shared-memory bound)", {.m = 128, .n = 64, .k = 16}, 48.56, 168},
      {"BF16 TS 128x64x16", {.m = 128, .n = 64, .k = 16, .a_from_tmem = true}, 32.49, 136},
      {"BF16 TS 128x256x16", {.m = 128, .n = 256, .k = 16, .a_from_tmem = true}, 128.61, 232},
      {"BF16 SS 64x256x16 (M=64 half rate)", {.m = 64, .n = 256, .k = 16}, 128.55, 0},
      {"BF16 SS 2-SM 256x256x16", {.m = 256, .n = 256, .k = 16, .pair = true}, 128.75, 298},
      {"BF16 SS 2-SM 128x256x16", {.m = 128, .n = 256, .k = 16, .pair = true}, 64.73, 0},
      {"E4M3 SS 128x256x32", {.m = 128, .n = 256, .k = 32, .rate = MmaRate::bits8, .element_bytes = 1}, 128.31, 264},
      {"F4 SS 128x256x64", {.m = 128, .n = 256, .k = 64, .rate = MmaRate::bits4, .element_bytes = 0.5}, 128.18, 264},
  };
  for (const Point& p : points) {
    CAPTURE(p.what);
    const MmaCost c = mma_cost(p.shape, kB200);
    CHECK(c.cycles == doctest::Approx(p.cycles).epsilon(0.015));
    if (p.latency > 0) CHECK(c.latency == doctest::Approx(p.latency).epsilon(0.015));
  }
}

TEST_CASE("a lone MMA chain: 8192 FLOP per cycle per SM deep, one MMA's latency shallow") {
  SUBCASE("deep: 256 MMAs 128x256x16 back to back reach SemiAnalysis' 8152.9 FLOP/cycle within 1%") {
    const LaunchTrace t = grid(1, 1, [](int c, int) { return mma_chain(mma(128, 256, 16), 256, c); });
    const Prediction p = predict(t);
    CHECK(p.tensor_flops == 256.0 * 2 * 128 * 256 * 16);
    CHECK(p.tensor_flops / cycles(p) == doctest::Approx(8152.9).epsilon(0.01));
    CHECK(p.bound == "tensor pipe");
  }
  SUBCASE("shallow: MMA, commit, wait, 100 times: each takes one MMA's measured latency (264) and a wake") {
    LaunchTrace t = grid(1, 1, [](int, int) { return WarpTrace{}; });
    WarpTrace& w = t.clusters[0].ctas[0].warps[0];
    for (std::uint64_t i = 0; i < 100; ++i) {
      Record commit;
      commit.op = Op::commit;
      commit.signals = {mbar(0, i)};
      Record wait;
      wait.op = Op::wait;
      wait.phase = mbar(0, i);
      w.records.insert(w.records.end(), {mma(128, 256, 16), commit, wait});
    }
    const double per = cycles(predict(t)) / 100;
    CHECK(per == doctest::Approx(264 + kB200.mbarrier_wake + 2).epsilon(0.01));
  }
}

TEST_CASE("a TMA stream over every SM runs at the 7.26 TB/s SemiAnalysis measured, bound by HBM") {
  // 148 CTAs each loading its own 16 MiB in 128-row boxes of 128-byte rows, four in flight.
  constexpr int kBoxes = 1024;
  LaunchTrace t = grid(148, 1, [](int c, int) {
    WarpTrace w;
    for (int b = 0; b < kBoxes; ++b) {
      if (b >= 4) {  // a ring of four stages: wait for the box four back
        Record wait;
        wait.op = Op::wait;
        wait.phase = mbar(static_cast<std::uint64_t>(c), static_cast<std::uint64_t>(b - 4));
        w.records.push_back(wait);
      }
      Record load;
      load.op = Op::tma_load;
      load.bytes = 16384;
      load.rows = 128;
      load.signals = {mbar(static_cast<std::uint64_t>(c), static_cast<std::uint64_t>(b))};
      w.records.push_back(load);
    }
    return w;
  });
  t.memory.push_back({"A", 148ull * kBoxes * 16384, 148ull * kBoxes * 4, 0});
  const Prediction p = predict(t);
  CHECK(p.bound == "HBM");
  CHECK(p.hbm_tb_per_s() == doctest::Approx(7.26).epsilon(0.02));
}

TEST_CASE("a kernel bound by each unit is reported as bound by it") {
  const auto one_record = [](Record r, int warps) {
    return grid(1, warps, [r](int, int) {
      WarpTrace w;
      for (int i = 0; i < 64; ++i) w.records.push_back(r);
      return w;
    });
  };
  SUBCASE("issue slots: integer work in 8 warps") {
    Record r;
    r.op = Op::arrive;
    r.work.issued = 1000;
    CHECK(predict(one_record(r, 8)).bound == "issue slots");
  }
  SUBCASE("MUFU: ex2 in 8 warps, 32 lanes each at 16 per cycle per SM") {
    Record r;
    r.op = Op::arrive;
    r.work = {.issued = 100, .mufu = 100};
    const Prediction p = predict(one_record(r, 8));
    CHECK(p.bound == "MUFU");
    // 8 warps × 64 × 100 ex2 × 32 lanes at 16 a cycle
    CHECK(cycles(p) == doctest::Approx(8.0 * 64 * 100 * 32 / 16).epsilon(0.02));
  }
  SUBCASE("shared memory: 128 bytes per cycle") {
    Record r;
    r.op = Op::arrive;
    r.work = {.issued = 4, .smem_bytes = 4096};
    const Prediction p = predict(one_record(r, 4));
    CHECK(p.bound == "shared memory");
    CHECK(cycles(p) == doctest::Approx(4.0 * 64 * 4096 / 128).epsilon(0.02));
  }
  SUBCASE("TMA: 16-byte rows, a request each") {
    Record r;
    r.op = Op::tma_load;
    r.bytes = 16 * 1024;
    r.rows = 1024;
    CHECK(predict(one_record(r, 1)).bound == "TMA");
  }
  SUBCASE("tensor pipe: MMAs back to back") {
    CHECK(predict(one_record(mma(128, 256, 16), 1)).bound == "tensor pipe");
  }
  SUBCASE("latency: a chain of global loads") {
    Record r;
    r.op = Op::global_load;
    r.bytes = 128;
    r.rows = 1;
    CHECK(predict(one_record(r, 1)).bound == "latency");
  }
}

TEST_CASE("a wait lasts until the last record completing its phase; its share is reported per warp") {
  // Warp 0 works 10000 cycles and arrives; warp 1 waits for that arrival, then works 1000.
  LaunchTrace t = grid(1, 2, [](int, int w) {
    WarpTrace trace;
    Record r;
    if (w == 0) {
      r.op = Op::arrive;
      r.work.issued = 10000;
      r.signals = {mbar(0, 0)};
    } else {
      r.op = Op::wait;
      r.phase = mbar(0, 0);
    }
    trace.records.push_back(r);
    Record end;
    end.op = Op::exit;
    end.work.issued = w == 0 ? 0 : 1000;
    trace.records.push_back(end);
    return trace;
  });
  const Prediction p = predict(t);
  CHECK(cycles(p) == doctest::Approx(10000 + kB200.mbarrier_wake + 1000).epsilon(0.001));
  REQUIRE(p.waits.size() == 2);
  CHECK(p.waits[1].at("mbarrier 0x100") == doctest::Approx((10000 + kB200.mbarrier_wake) / cycles(p)).epsilon(0.001));
  CHECK(p.unresolved_waits == 0);
}

TEST_CASE("CTAs placed as the hardware does: occupancy, waves, a sample that keeps the fullest SM") {
  const Placement p = place(kB200, 512, 1, 128, 196 * 1024);  // gau-nernst v1a at 4096³
  CHECK(p.ctas_per_sm == 1);
  CHECK(p.groups == 148);
  const std::vector<std::uint64_t> s = p.sampled_groups(8, 1);
  CHECK(s.size() == 8);
  CHECK(s.front() == 0);  // group 0 gets ceil(512 / 148) = 4 CTAs, the most
  CHECK(place(kB200, 100, 2, 256, 100 * 1024).groups == 74);
  CHECK(place(kB200, 1000, 1, 128, 16 * 1024).ctas_per_sm == 13);  // 228 KiB / (16 KiB + 1 KiB)
  CHECK_THROWS_WITH(place(kB200, 1, 1, 128, 230 * 1024), doctest::Contains("shared memory"));
}

#if defined(TCGEN_SEED_PTX)
// The seed's raw-PTX QKᵀ (tests/ptx_programs/seed_kernels.cu): one CTA, TMA-free loads into shared
// memory, four tcgen05.mma 128x128x16 committed to an mbarrier, tcgen05.ld of S.
TEST_CASE("the PTX interpreter's trace of a real kernel: its MMAs' FLOPs, every wait resolved, the same result") {
  static const ptx::Module m = ptx::Module::load(TCGEN_SEED_PTX);
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::uint16_t> q(128 * 64), k(128 * 64);
  for (auto* v : {&q, &k})
    for (auto& x : *v) x = static_cast<std::uint16_t>(encode(ElementType::bf16, normal(rng)));
  const auto run = [&](const Machine* timing) {
    std::vector<float> s(128 * 128, -1.0f);
    const std::uint16_t *qp = q.data(), *kp = k.data();
    float* sp = s.data();
    const ptx::Argument args[] = {ptx::argument(qp), ptx::argument(kp), ptx::argument(sp)};
    const ptx::Allocation memory[] = {{q.data(), q.size() * 2, "q"}, {k.data(), k.size() * 2, "k"},
                                      {s.data(), s.size() * 4, "s", true}};
    ptx::LaunchConfig config{.block = {128, 1, 1}, .dynamic_smem = 32784};
    config.timing = timing;
    const ptx::LaunchStats stats = ptx::launch(m, m.entry("seed_qk_hd64"), config, args, memory);
    return std::make_pair(s, stats);
  };
  const auto [plain, plain_stats] = run(nullptr);
  const auto [timed, timed_stats] = run(&kB200);
  CHECK(plain == timed);  // timing never changes a result
  CHECK(plain_stats.timing.empty());
  REQUIRE(timed_stats.timing.size() == 1);
  const Prediction& p = timed_stats.timing[0];
  CHECK(p.tensor_flops == 2.0 * 128 * 128 * 64);
  CHECK(p.unresolved_waits == 0);
  CHECK(p.ctas_simulated == 1);
  // Q and K read (16 KiB each), S written (64 KiB): each allocation in full, once.
  CHECK(p.bytes_hbm == 16384 * 2 + 65536);
}
#endif
