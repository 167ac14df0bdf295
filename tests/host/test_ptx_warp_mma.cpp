// mma.sync (PTX #warp-level-matrix-instructions-mma) on the PTX interpreter: one warp loads its
// fragments of A, B and C, multiplies, and stores D. The fragments are laid out from CuTe's SM80 MMA
// traits (mma_sync_fragments.hpp), and D is checked against an fp64 product.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "tcgen/core/element_type.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"
#include "tcgen/timing/machine.hpp"
#include "mma_sync_fragments.hpp"

using namespace tcgen;
using test::mma_a_index;
using test::mma_b_index;
using test::mma_c_index;

namespace {

// The kernel: lane l reads words [l·10, l·10 + 10) of `in` (A's k/4 registers, B's k/8, C's 4 in
// that order, the unused ones skipped), and writes D's 4 to `out` + l·4. `opcode`: another in its place.
std::string kernel(int k, const char* type, const std::string& opcode = "") {
  const int na = k / 4, nb = k / 8;
  std::string loads, a_regs, b_regs;
  for (int i = 0; i < na; ++i) {
    loads += "\tld.global.u32 %a" + std::to_string(i) + ", [%rd2+" + std::to_string(4 * i) + "];\n";
    a_regs += (i ? ", %a" : "%a") + std::to_string(i);
  }
  for (int i = 0; i < nb; ++i) {
    loads += "\tld.global.u32 %b" + std::to_string(i) + ", [%rd2+" + std::to_string(16 + 4 * i) + "];\n";
    b_regs += (i ? ", %b" : "%b") + std::to_string(i);
  }
  for (int i = 0; i < 4; ++i) loads += "\tld.global.f32 %c" + std::to_string(i) + ", [%rd2+" + std::to_string(24 + 4 * i) + "];\n";
  return std::string(R"(.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b32 %a<4>;
	.reg .b32 %b<2>;
	.reg .f32 %c<4>;
	.reg .f32 %d<4>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd0, [in];
	ld.param.u64 %rd1, [out];
	mov.u32 %r0, %tid.x;
	mul.wide.u32 %rd3, %r0, 40;
	add.s64 %rd2, %rd0, %rd3;
)") + loads +
         "\t" +
         (opcode.empty() ? "mma.sync.aligned.m16n8k" + std::to_string(k) + ".row.col.f32." + type + "." + type + ".f32"
                         : opcode) +
         " {%d0, %d1, %d2, %d3}, {" + a_regs + "}, {" + b_regs + "}, {%c0, %c1, %c2, %c3};\n" + R"(
	mul.wide.u32 %rd4, %r0, 16;
	add.s64 %rd5, %rd1, %rd4;
	st.global.v4.f32 [%rd5], {%d0, %d1, %d2, %d3};
	ret;
}
)";
}

struct Case {
  int k;
  ElementType type;
  bool integers;  // small integers: every sum exact in f32
};

// Runs the kernel on `in`, D into `out`; under `timing`, its prediction.
ptx::LaunchStats launch(int k, ElementType type, const std::vector<std::uint32_t>& in, std::vector<float>& out,
                        const timing::Machine* timing = nullptr) {
  const ptx::Module m = ptx::Module::parse(kernel(k, type == ElementType::bf16 ? "bf16" : "f16"), "mma_sync.ptx");
  const std::uint32_t* in_p = in.data();
  float* out_p = out.data();
  const ptx::Argument args[] = {ptx::argument(in_p), ptx::argument(out_p)};
  const ptx::Allocation memory[] = {{in.data(), in.size() * 4, "in", false}, {out.data(), out.size() * 4, "out", true}};
  ptx::LaunchConfig config{.block = {32, 1, 1}};
  config.timing = timing;
  return ptx::launch(m, m.entry("k"), config, args, memory);
}

void check(const Case& c, std::uint64_t seed) {
  const int K = c.k;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> small(-4, 4);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const auto value = [&] { return round_to(c.type, c.integers ? static_cast<float>(small(rng)) : normal(rng)); };
  std::vector<float> a(16 * K), b(8 * K), cm(16 * 8);  // A (m + 16k), B (n + 8k), C (m + 16n)
  for (float& x : a) x = value();
  for (float& x : b) x = value();
  for (float& x : cm) x = c.integers ? static_cast<float>(small(rng)) : normal(rng);
  std::vector<std::uint32_t> in(32 * 10, 0);
  for (int t = 0; t < 32; ++t) {
    for (int v = 0; v < K / 2; ++v) in[10 * t + v / 2] |= encode(c.type, a[mma_a_index(K, t, v)]) << 16 * (v % 2);
    for (int v = 0; v < K / 4; ++v) in[10 * t + 4 + v / 2] |= encode(c.type, b[mma_b_index(K, t, v)]) << 16 * (v % 2);
    for (int v = 0; v < 4; ++v) in[10 * t + 6 + v] = std::bit_cast<std::uint32_t>(cm[mma_c_index(t, v)]);
  }
  std::vector<float> out(32 * 4, NAN);
  launch(K, c.type, in, out);
  // D against fp64; per row, the worst error over the sum of |terms| (the f32 additions' bound scale).
  double worst = 0;
  for (int t = 0; t < 32; ++t)
    for (int v = 0; v < 4; ++v) {
      const int idx = mma_c_index(t, v), row = idx % 16, col = idx / 16;
      double want = cm[idx], scale = std::fabs(cm[idx]);
      for (int k = 0; k < K; ++k) {
        want += double(a[row + 16 * k]) * double(b[col + 8 * k]);
        scale += std::fabs(double(a[row + 16 * k]) * double(b[col + 8 * k]));
      }
      const double err = std::fabs(out[4 * t + v] - want) / std::max(scale, 1e-30);
      if (c.integers && out[4 * t + v] != want)
        FAIL("lane " << t << " d" << v << " (row " << row << ", column " << col << "): " << out[4 * t + v]
                     << ", expected exactly " << want);
      worst = std::max(worst, err);
    }
  // K + 1 additions in f32, each off by at most half an ulp of the running sum: within (K+1)·2^-24 of Σ|terms|.
  CAPTURE(K);
  CHECK(worst <= (K + 1) * 0x1p-24);
}

}  // namespace

TEST_CASE("mma.sync m16n8k16 and m16n8k8, f16 and bf16 into f32: D = A·B + C by CuTe's fragment layouts") {
  const std::uint64_t seed = std::random_device{}();
  CAPTURE(seed);
  for (const int k : {16, 8})
    for (const ElementType type : {ElementType::fp16, ElementType::bf16})
      for (const bool integers : {true, false}) {
        CAPTURE(k);
        CAPTURE(integers);
        CAPTURE(type == ElementType::bf16);
        check({k, type, integers}, seed + static_cast<std::uint64_t>(k));
      }
}

TEST_CASE("mma.sync under the timing model: counted as untimed, the prediction called a lower bound") {
  // The model has no unit for the warp-level MMA: a prediction that took its time as an issue slot
  // without saying so would be a wrong value without a word.
  const timing::Machine b200;
  std::vector<std::uint32_t> in(320, 0);
  std::vector<float> out(128);
  const ptx::LaunchStats stats = launch(16, ElementType::fp16, in, out, &b200);
  REQUIRE(stats.timing.size() == 1);
  CHECK(stats.timing[0].untimed == 1);  // one warp, one mma.sync
  CHECK(stats.timing[0].summary().find("1 warp instructions the model has no unit for (mma.sync)") != std::string::npos);
  CHECK(stats.timing[0].json().find("\"untimed_instructions\": 1}") != std::string::npos);
}

TEST_CASE("mma.sync forms outside the modelled ones are refused at load, named") {
  const auto refusal = [](const std::string& opcode) {
    try {
      const ptx::Module m = ptx::Module::parse(kernel(16, "f16", opcode), "mma_sync.ptx");
      std::vector<std::uint32_t> in(320), out(128);
      const std::uint32_t* in_p = in.data();
      std::uint32_t* out_p = out.data();
      const ptx::Argument args[] = {ptx::argument(in_p), ptx::argument(out_p)};
      const ptx::Allocation memory[] = {{in.data(), 1280, "in", false}, {out.data(), 512, "out", true}};
      ptx::launch(m, m.entry("k"), {.block = {32, 1, 1}}, args, memory);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // A and B of different types: the decoder's own refusal.
  CHECK(refusal("mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32").find("A and B of one type") != std::string::npos);
  // An f16 accumulator: no form of the row.
  CHECK(refusal("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16").find("not modelled") != std::string::npos);
}
