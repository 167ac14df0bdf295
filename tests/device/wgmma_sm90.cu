// Real tensor cores as the judge of the shared-memory half of tcgen05: Hopper's
// wgmma reads shared memory through the same descriptor family, canonical
// layouts and swizzles (tcgen05-facts.md §1). For every mode shared with wgmma,
// operands are placed by the layout library, described by the mma library's
// GMMA descriptors (several K steps, steps inside a swizzle atom, and tiles
// whose swizzle pattern starts off its period so the base offset is non-zero),
// multiplied by wgmma.mma_async on the GPU, and compared with an fp64
// reference. The same bytes and descriptors, in their SM100 form, go through
// the host model's operand fetch and MMA math (tcgen::model, written from the
// PTX rules apart from the layout library): the model must equal the GPU.
// Exit 0: every case exact and every negative case caught; 1: a failure;
// 77: no sm_90 GPU.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "device_check.hpp"
#include "wgmma.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/layout/smem_operand.hpp"
#include "tcgen/mma/descriptor_iterator.hpp"
#include "tcgen/model/mma_math.hpp"
#include "tcgen/model/operand_fetch.hpp"

using namespace tcgen;
using layout::Int;
using layout::Major;
using layout::SmemSwizzle;
using layout::SwizzleAnchor;

namespace {

constexpr int kM = 64, kN = 64, kSteps = 4;
constexpr int kMaxSteps = 8;
constexpr int kSmemBytes = 96 * 1024;  // A and B tiles plus room for a misaligned start

enum class Variant { bf16_kk, bf16_mm, f16_kk, f16_mm, tf32, e4m3 };

struct VariantInfo {
  const char* name;
  ElementType type;
  Major major;
};
constexpr VariantInfo kVariants[] = {
    {"bf16 K/K", ElementType::bf16, Major::K},  {"bf16 MN/MN", ElementType::bf16, Major::MN},
    {"fp16 K/K", ElementType::fp16, Major::K},  {"fp16 MN/MN", ElementType::fp16, Major::MN},
    {"tf32 K/K", ElementType::tf32, Major::K},  {"e4m3 K/K", ElementType::e4m3, Major::K},
};

// One warpgroup: copy the host-built image into shared memory at a 1024-byte
// aligned base, run the K steps, write D (64x64, row-major). Descriptors come
// from the host with start addresses relative to that base; the base's
// absolute address is added here (a multiple of 1024, so no swizzle phase moves).
__global__ void run_case(const std::uint8_t* image, int image_bytes, const std::uint64_t* desc_a,
                         const std::uint64_t* desc_b, int steps, Variant variant, float* out) {
  extern __shared__ std::uint8_t smem[];
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  const std::uint32_t aligned = (base + 1023u) & ~1023u;
  std::uint8_t* tile = smem + (aligned - base);
  for (int i = threadIdx.x; i < image_bytes; i += blockDim.x) tile[i] = image[i];
  // Generic-proxy stores become visible to wgmma's async proxy only after this fence.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();

  // One wgmma per K step, m64n64k{16,8,32}, D in 32 f32 registers per thread.
  float d[kN / 2];
  for (float& x : d) x = 0.0f;
  wgmma::fence();
  for (int k = 0; k < steps; ++k) {
    const std::uint64_t a = desc_a[k] + (aligned >> 4), b = desc_b[k] + (aligned >> 4);
    switch (variant) {
      case Variant::bf16_kk: wgmma::mma_async<ElementType::bf16, kN, Major::K, Major::K>(d, a, b, k > 0); break;
      case Variant::bf16_mm: wgmma::mma_async<ElementType::bf16, kN, Major::MN, Major::MN>(d, a, b, k > 0); break;
      case Variant::f16_kk: wgmma::mma_async<ElementType::fp16, kN, Major::K, Major::K>(d, a, b, k > 0); break;
      case Variant::f16_mm: wgmma::mma_async<ElementType::fp16, kN, Major::MN, Major::MN>(d, a, b, k > 0); break;
      case Variant::tf32: wgmma::mma_async<ElementType::tf32, kN, Major::K, Major::K>(d, a, b, k > 0); break;
      case Variant::e4m3: wgmma::mma_async<ElementType::e4m3, kN, Major::K, Major::K>(d, a, b, k > 0); break;
    }
  }
  wgmma::commit_group();
  wgmma::wait_group<0>();
  for (int i = 0; i < kN / 2; ++i) {
    const wgmma::DElement e = wgmma::d_element(static_cast<int>(threadIdx.x), i);
    out[e.row * kN + e.col] = d[i];
  }
}

// Values n/8, |n| <= 8: exact in every type here, and every product and sum
// of 128 of them is exact in fp32, so the GPU must match fp64 exactly.
float small_value(std::mt19937& rng) { return static_cast<float>(static_cast<int>(rng() % 17) - 8) / 8.0f; }

void store(std::vector<std::uint8_t>& image, Int address, ElementType t, float v) {
  const std::uint32_t b = encode(t, v);
  for (int i = 0; i < bits(t) / 8; ++i) image.at(address + i) = static_cast<std::uint8_t>(b >> (8 * i));
}

struct Placement {
  const char* name;
  Int start;  // tile start relative to a 1024-byte aligned base
  SwizzleAnchor anchor;
};
constexpr Placement kPlacements[] = {
    {"aligned", 0, SwizzleAnchor::absolute},
    {"start+384, absolute swizzle", 384, SwizzleAnchor::absolute},
    {"start+384, tile swizzle (base offset 3)", 384, SwizzleAnchor::tile},
};

struct Result {
  double max_abs_error = 0;
  int base_offset = 0;
  bool model_equal = false;  // the host model's D equals the GPU's, bit for bit
};

model::MmaKind model_kind(ElementType t) {
  return t == ElementType::tf32 ? model::MmaKind::tf32 : t == ElementType::e4m3 ? model::MmaKind::f8f6f4 : model::MmaKind::f16;
}

// D of the K steps through the host model, from the SM100 descriptors of the same tiles.
std::vector<float> model_product(const std::vector<std::uint8_t>& image, const VariantInfo& v, const layout::SmemOperand& a,
                                 Int a_start, const layout::SmemOperand& b, Int b_start, SwizzleAnchor anchor,
                                 std::uint64_t sbo_skew) {
  const mma::KStepDescriptors ka(a, a_start, mma::DescriptorArch::sm100, anchor), kb(b, b_start, mma::DescriptorArch::sm100, anchor);
  const int k = model::k_per_instruction(model_kind(v.type));
  const bool mn = v.major == Major::MN;
  std::vector<float> d(kM * kN, 0.0f);
  for (int s = 0; s < kSteps; ++s) {
    const model::Operand ma = model::fetch_operand(image, 0, ka[s] + (sbo_skew << 32), kM, k, v.type, mn);
    const model::Operand mb = model::fetch_operand(image, 0, kb[s] + (sbo_skew << 32), kN, k, v.type, mn);
    model::mma_accumulate(ma, mb, d.data(), s > 0, false, false);
  }
  return d;
}

struct Device {
  std::uint8_t* image;
  std::uint64_t *desc_a, *desc_b;
  float* out;
};

// Lays out random A (64 x K) and B (64 x K), runs them on the GPU, compares.
// sbo_skew adds to every descriptor's SBO field (negative cases).
Result run(const Device& dev, const VariantInfo& v, Variant variant, SmemSwizzle swizzle, const Placement& p,
           std::uint64_t sbo_skew, std::mt19937& rng) {
  const layout::SmemElement element = layout::dense_element(bits(v.type));
  const Int k_total = kSteps * layout::kstep_elements(element);
  const layout::SmemOperand a(layout::SmemOperandSpec{element, v.major, swizzle, kM, k_total});
  const layout::SmemOperand b(layout::SmemOperandSpec{element, v.major, swizzle, kN, k_total});
  const Int a_start = p.start, b_start = 32768 + p.start;
  std::vector<std::uint8_t> image(65536, 0);
  std::vector<float> av(kM * k_total), bv(kN * k_total);
  for (Int r = 0; r < kM; ++r)
    for (Int k = 0; k < k_total; ++k) store(image, a.address(a_start, r, k, p.anchor), v.type, av[r * k_total + k] = small_value(rng));
  for (Int r = 0; r < kN; ++r)
    for (Int k = 0; k < k_total; ++k) store(image, b.address(b_start, r, k, p.anchor), v.type, bv[r * k_total + k] = small_value(rng));

  std::uint64_t da[kMaxSteps], db[kMaxSteps];
  const mma::KStepDescriptors ka(a, a_start, mma::DescriptorArch::sm90, p.anchor), kb(b, b_start, mma::DescriptorArch::sm90, p.anchor);
  for (int k = 0; k < kSteps; ++k) {
    da[k] = ka[k] + (sbo_skew << 32);
    db[k] = kb[k] + (sbo_skew << 32);
  }
  CUDA_CHECK(cudaMemcpy(dev.image, image.data(), image.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dev.desc_a, da, sizeof da, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dev.desc_b, db, sizeof db, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dev.out, 0, sizeof(float) * kM * kN));
  run_case<<<1, 128, kSmemBytes>>>(dev.image, static_cast<int>(image.size()), dev.desc_a, dev.desc_b, kSteps, variant, dev.out);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> got(kM * kN);
  CUDA_CHECK(cudaMemcpy(got.data(), dev.out, sizeof(float) * got.size(), cudaMemcpyDeviceToHost));

  Result res;
  res.model_equal = model_product(image, v, a, a_start, b, b_start, p.anchor, sbo_skew) == got;
  res.base_offset = static_cast<int>(mma::decode(ka[0], mma::DescriptorArch::sm90).base_offset);
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < kN; ++n) {
      double ref = 0;
      for (Int k = 0; k < k_total; ++k) ref += double(av[m * k_total + k]) * double(bv[n * k_total + k]);
      res.max_abs_error = std::max(res.max_abs_error, std::abs(ref - double(got[m * kN + n])));
    }
  return res;
}

}  // namespace

int main() {
  require_gpu(9, -1);  // wgmma is sm_90a only
  CUDA_CHECK(cudaFuncSetAttribute(run_case, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  Device dev{};
  CUDA_CHECK(cudaMalloc(&dev.image, 65536));
  CUDA_CHECK(cudaMalloc(&dev.desc_a, sizeof(std::uint64_t) * kMaxSteps));
  CUDA_CHECK(cudaMalloc(&dev.desc_b, sizeof(std::uint64_t) * kMaxSteps));
  CUDA_CHECK(cudaMalloc(&dev.out, sizeof(float) * kM * kN));

  std::mt19937 rng(20261129);
  int cases = 0, failures = 0;
  for (int vi = 0; vi < 6; ++vi)
    for (SmemSwizzle sw : {SmemSwizzle::none, SmemSwizzle::b32, SmemSwizzle::b64, SmemSwizzle::b128})
      for (const Placement& p : kPlacements) {
        if (sw == SmemSwizzle::none && p.anchor == SwizzleAnchor::tile) continue;  // no pattern to anchor
        const Result r = run(dev, kVariants[vi], static_cast<Variant>(vi), sw, p, 0, rng);
        const bool ok = r.max_abs_error == 0.0 && r.model_equal;
        ++cases;
        failures += !ok;
        std::printf("%-4s %-11s swizzle %-5s %-40s base_offset %d  max |err| %-8g model %s\n", ok ? "PASS" : "FAIL",
                    kVariants[vi].name, layout::name(sw), p.name, r.base_offset, r.max_abs_error,
                    r.model_equal ? "equal" : "DIFFERS");
      }
  // Negative case: a wrong SBO must be seen as a mismatch (the check can fail).
  const Result wrong = run(dev, kVariants[0], Variant::bf16_kk, SmemSwizzle::b128, kPlacements[0], 64, rng);
  const bool caught = wrong.max_abs_error > 0.0;
  std::printf("%-4s negative: bf16 K/K 128B with SBO + 1024 B gives max |err| %g (must be non-zero); "
              "the model, given the same wrong descriptors, %s the GPU\n",
              caught ? "PASS" : "FAIL", wrong.max_abs_error, wrong.model_equal ? "equals" : "differs from");
  failures += !caught;
  std::printf("%s: %d cases, %d failed\n", failures ? "FAILED" : "PASSED", cases + 1, failures);
  return failures ? 1 : 0;
}
