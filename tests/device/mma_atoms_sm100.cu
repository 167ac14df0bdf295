// tcgen05.mma atoms on sm_100a. Two checks:
// 1. Build: every kernel template instantiated below is compiled by ptxas, so
//    each PTX spelling Mma emits (SS and TS, cta_group::1 and ::2, .ws,
//    block-scaled, every kind) is accepted by the assembler in CI;
//    check_sass.sh then finds the instructions in the SASS.
// 2. Run, only on an sm_100 GPU: one 128x128x64 bf16 tile, D = A·B^T through
//    four K steps of Mma::issue and Mma::commit, read back with tcgen05.ld and
//    compared with a host product of small integers (exact in f32).
// Exit 0: the tile matches; 1: it does not; 77: no sm_100 GPU (skipped).
//
// The TMEM allocation, mbarrier wait and tcgen05.ld are minimal inline PTX
// here on purpose: this test checks the atoms, not the TMEM library.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "device_check.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/mma/mma_atom.hpp"

using namespace tcgen;
using namespace tcgen::mma;
using layout::Major;
using layout::SmemOperandSpec;
using layout::SmemSwizzle;
using tmem::TmemAddress;
using T = ElementType;

namespace {

template <int Bits, Major Mj, SmemSwizzle Sw, int Rows, int Cols>
using Dense = SmemMatrix<SmemOperandSpec{layout::dense_element(Bits), Mj, Sw, Rows, Cols}>;
// 6- and 4-bit f8f6f4 operands, 16 values padded to 16 bytes (#tcgen05-packing-formats).
template <int Bits, int Rows, int Cols>
using Padded = SmemMatrix<SmemOperandSpec{layout::padded_element(Bits), Major::K, SmemSwizzle::b128, Rows, Cols}>;
template <int M, int N, int CtaGroup = 1, bool Ws = false, T E = T::f32>
using Acc = tmem::AccumulatorTile<layout::AccumulatorSpec{M, N, CtaGroup, Ws}, E>;

// ---- 1. every variant through ptxas ------------------------------------------

// All K steps of the tiles, then the commit of the atom's cta_group.
template <class Atom, class D, class A, class B>
__global__ void issue_all(D d, A a, B b, std::uint32_t mbarrier) {
  for (int k = 0; k < B::ksteps; ++k) Atom::issue(d, a, b, k, k > 0);
  Atom::commit(mbarrier);
}
template <class Atom, class D, class A, class B>
__global__ void issue_all_scaled(D d, A a, B b, TmemAddress scale_a, TmemAddress scale_b, std::uint32_t mbarrier) {
  for (int k = 0; k < B::ksteps; ++k) Atom::issue(d, a, b, k, k > 0, scale_a, scale_b);
  Atom::commit_multicast(mbarrier, 0x3);
}

constexpr auto K = Major::K;
constexpr auto MN = Major::MN;
constexpr auto SW128 = SmemSwizzle::b128;

// kind::f16: bf16 M128 N256 SS and TS; fp16 -> fp16 with both operands MN-major.
using Bf16 = Mma<InstrDescriptorSpec{.n = 256}>;
template __global__ void issue_all<Bf16>(Acc<128, 256>, Dense<16, K, SW128, 128, 64>, Dense<16, K, SW128, 256, 64>,
                                         std::uint32_t);
template __global__ void issue_all<Bf16>(Acc<128, 256>, tmem::OperandTile<128, 64, T::bf16>,
                                         Dense<16, K, SW128, 256, 64>, std::uint32_t);
using Fp16 = Mma<InstrDescriptorSpec{.a = T::fp16, .b = T::fp16, .d = T::fp16, .a_major = MN, .b_major = MN}>;
template __global__ void issue_all<Fp16>(Acc<128, 128, 1, false, T::fp16>, Dense<16, MN, SW128, 128, 64>,
                                         Dense<16, MN, SW128, 128, 64>, std::uint32_t);
// kind::tf32, B MN-major in the 128B-with-32B-atoms swizzle tf32 transposes need.
using Tf32 = Mma<InstrDescriptorSpec{.kind = MmaKind::tf32, .a = T::tf32, .b = T::tf32, .b_major = MN}>;
template __global__ void issue_all<Tf32>(Acc<128, 128>, Dense<32, K, SW128, 128, 32>,
                                         Dense<32, MN, SmemSwizzle::b128_base32b, 128, 32>, std::uint32_t);
// kind::f8f6f4: e4m3 x e4m3, and padded e2m1 A x e4m3 B; TS with e5m2 A.
using E4m3 = Mma<InstrDescriptorSpec{.kind = MmaKind::f8f6f4, .a = T::e4m3, .b = T::e4m3}>;
template __global__ void issue_all<E4m3>(Acc<128, 128>, Dense<8, K, SW128, 128, 128>, Dense<8, K, SW128, 128, 128>,
                                         std::uint32_t);
using E2m1E4m3 = Mma<InstrDescriptorSpec{.kind = MmaKind::f8f6f4, .a = T::e2m1, .b = T::e4m3, .n = 64}>;
template __global__ void issue_all<E2m1E4m3>(Acc<128, 64>, Padded<4, 128, 128>, Dense<8, K, SW128, 64, 128>,
                                             std::uint32_t);
using E5m2Ts = Mma<InstrDescriptorSpec{.kind = MmaKind::f8f6f4, .a = T::e5m2, .b = T::e4m3, .m = 64, .n = 64}>;
template __global__ void issue_all<E5m2Ts>(Acc<64, 64>, tmem::OperandTile<64, 128, T::e5m2>,
                                           Dense<8, K, SW128, 64, 128>, std::uint32_t);
// kind::i8: s8 x s8 -> s32, SS and TS.
using I8 = Mma<InstrDescriptorSpec{.kind = MmaKind::i8, .a = T::s8, .b = T::s8, .d = T::s32, .n = 64}>;
template __global__ void issue_all<I8>(Acc<128, 64, 1, false, T::s32>, Dense<8, K, SW128, 128, 128>,
                                       Dense<8, K, SW128, 64, 128>, std::uint32_t);
template __global__ void issue_all<I8>(Acc<128, 64, 1, false, T::s32>, tmem::OperandTile<128, 128, T::s8>,
                                       Dense<8, K, SW128, 64, 128>, std::uint32_t);
// .ws: M64 (Layout E) and M32 (Layout G), SS and TS.
using Ws64 = Mma<InstrDescriptorSpec{.m = 64, .ws = true}>;
template __global__ void issue_all<Ws64>(Acc<64, 128, 1, true>, Dense<16, K, SW128, 64, 64>,
                                         Dense<16, K, SW128, 128, 64>, std::uint32_t);
template __global__ void issue_all<Ws64>(Acc<64, 128, 1, true>, tmem::OperandTile<64, 64, T::bf16>,
                                         Dense<16, K, SW128, 128, 64>, std::uint32_t);
using Ws32 = Mma<InstrDescriptorSpec{.m = 32, .n = 256, .ws = true}>;
template __global__ void issue_all<Ws32>(Acc<32, 256, 1, true>, Dense<16, K, SmemSwizzle::b64, 32, 64>,
                                         Dense<16, K, SmemSwizzle::b64, 256, 64>, std::uint32_t);
// cta_group::2: M256 (A and B halves per CTA: 128 rows each), SS and TS; M128 SS.
using Pair = Mma<InstrDescriptorSpec{.m = 256, .n = 256, .cta_group = 2}>;
template __global__ void issue_all<Pair>(Acc<256, 256, 2>, Dense<16, K, SW128, 128, 64>,
                                         Dense<16, K, SW128, 128, 64>, std::uint32_t);
template __global__ void issue_all<Pair>(Acc<256, 256, 2>, tmem::OperandTile<128, 64, T::bf16>,
                                         Dense<16, K, SW128, 128, 64>, std::uint32_t);
using Pair128 = Mma<InstrDescriptorSpec{.kind = MmaKind::f8f6f4, .a = T::e4m3, .b = T::e4m3, .cta_group = 2}>;
template __global__ void issue_all<Pair128>(Acc<128, 128, 2>, Dense<8, K, SW128, 64, 128>,
                                            Dense<8, K, SW128, 64, 128>, std::uint32_t);

// Block-scaled kinds, each with .scale_vec::VX: mxf8f6f4 1X (SS, TS and
// cta_group::2), mxf4 2X, mxf4nvf4 2X (ue8m0) and 4X (ue4m3).
using Mx8 = Mma<InstrDescriptorSpec{.kind = MmaKind::mxf8f6f4, .a = T::e4m3, .b = T::e4m3}>;
template __global__ void issue_all_scaled<Mx8>(Acc<128, 128>, Dense<8, K, SW128, 128, 128>,
                                               Dense<8, K, SW128, 128, 128>, TmemAddress, TmemAddress, std::uint32_t);
template __global__ void issue_all_scaled<Mx8>(Acc<128, 128>, tmem::OperandTile<128, 128, T::e4m3>,
                                               Dense<8, K, SW128, 128, 128>, TmemAddress, TmemAddress, std::uint32_t);
using Mx8Pair = Mma<InstrDescriptorSpec{.kind = MmaKind::mxf8f6f4, .a = T::e4m3, .b = T::e2m1, .m = 256, .n = 256,
                                        .cta_group = 2, .a_sf_id = 1, .b_sf_id = 3}>;
template __global__ void issue_all_scaled<Mx8Pair>(Acc<256, 256, 2>, Dense<8, K, SW128, 128, 128>,
                                                   Padded<4, 128, 128>, TmemAddress, TmemAddress, std::uint32_t);
using Mxf4 = Mma<InstrDescriptorSpec{.kind = MmaKind::mxf4, .a = T::e2m1, .b = T::e2m1, .a_sf_id = 2}>;
template __global__ void issue_all_scaled<Mxf4>(Acc<128, 128>, Dense<4, K, SW128, 128, 256>,
                                                Dense<4, K, SW128, 128, 256>, TmemAddress, TmemAddress, std::uint32_t);
using Nvf4x2 = Mma<InstrDescriptorSpec{.kind = MmaKind::mxf4nvf4, .a = T::e2m1, .b = T::e2m1, .n = 256}>;
template __global__ void issue_all_scaled<Nvf4x2>(Acc<128, 256>, Dense<4, K, SW128, 128, 256>,
                                                  Dense<4, K, SW128, 256, 256>, TmemAddress, TmemAddress,
                                                  std::uint32_t);
using Nvf4x4 = Mma<InstrDescriptorSpec{.kind = MmaKind::mxf4nvf4, .a = T::e2m1, .b = T::e2m1, .n = 256,
                                       .scale_type = ScaleType::ue4m3}>;
template __global__ void issue_all_scaled<Nvf4x4>(Acc<128, 256>, Dense<4, K, SW128, 128, 256>,
                                                  Dense<4, K, SW128, 256, 256>, TmemAddress, TmemAddress,
                                                  std::uint32_t);
template __global__ void issue_all_scaled<Nvf4x4>(Acc<128, 256>, tmem::OperandTile<128, 256, T::e2m1>,
                                                  Dense<4, K, SW128, 256, 256>, TmemAddress, TmemAddress,
                                                  std::uint32_t);

// ---- 2. one tile on an sm_100 GPU ----------------------------------------------

constexpr int kM = 128, kN = 128, kK = 64;
using Check = Mma<InstrDescriptorSpec{.m = kM, .n = kN}>;  // bf16 x bf16 -> f32, both K-major
using CheckA = Dense<16, K, SW128, kM, kK>;
using CheckB = Dense<16, K, SW128, kN, kK>;
using CheckD = Check::Accumulator;
constexpr int kABytes = kM * kK * 2, kBBytes = kN * kK * 2;
static_assert(CheckA::operand.size_bytes() == kABytes && CheckB::operand.size_bytes() == kBBytes);

__device__ std::uint32_t smem_address(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }

// A and B arrive as shared-memory images built on the host for a tile at a
// 1024-byte-aligned address: there the absolute-address swizzle equals the
// swizzle of the offset, so the bytes are copied verbatim.
__global__ void gemm_tile(const std::uint8_t* a_image, const std::uint8_t* b_image, float* d_out) {
  extern __shared__ std::uint8_t smem_raw[];
  __shared__ std::uint64_t mbarrier;
  __shared__ std::uint32_t tmem_base;
  const std::uint32_t raw = smem_address(smem_raw);
  std::uint8_t* tile = smem_raw + ((1024 - raw % 1024) % 1024);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

  for (int i = tid * 16; i < kABytes + kBBytes; i += blockDim.x * 16) {
    const std::uint8_t* src = i < kABytes ? a_image + i : b_image + (i - kABytes);
    *reinterpret_cast<uint4*>(tile + i) = *reinterpret_cast<const uint4*>(src);
  }
  // Plain stores are generic-proxy writes; the MMA reads through the async proxy (tcgen05-facts.md §7).
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_address(&tmem_base)),
                 "n"(CheckD::columns)
                 : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (tid == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(&mbarrier)) : "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const CheckD d{TmemAddress::from_raw(tmem_base)};

  if (tid == 0) {
    const CheckA a(smem_address(tile));
    const CheckB b(smem_address(tile + kABytes));
    for (int k = 0; k < CheckA::ksteps; ++k) Check::issue(d, a, b, k, k > 0);
    Check::commit(smem_address(&mbarrier));
  }
  std::uint32_t done = 0;
  while (!done)
    asm volatile(
        "{\n\t.reg .pred P;\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%1], 0;\n\tselp.u32 %0, 1, 0, P;\n\t}"
        : "=r"(done)
        : "r"(smem_address(&mbarrier))
        : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  // Layout D (M = 128, cta_group::1): row m in lane m, column n in column n.
  // Warp w may read lanes 32w..32w+31; 32x32b gives thread t lane t, register i column i.
  for (int c0 = 0; c0 < kN; c0 += 8) {
    std::uint32_t r[8];
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
                 : "r"(d.address.lane_offset(32 * warp).col_offset(c0).raw()));
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    for (int i = 0; i < 8; ++i) d_out[(32 * warp + lane) * kN + c0 + i] = __uint_as_float(r[i]);
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  if (warp == 0) {
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(d.address.raw()), "n"(CheckD::columns)
                 : "memory");
  }
}

// Small integers: every product and sum is exact in bf16 and f32.
float a_value(int m, int k) { return static_cast<float>((m * 3 + k * 5) % 7 - 3); }
float b_value(int n, int k) { return static_cast<float>((n * 7 + k * 3) % 5 - 2); }

// Row-major values -> the tile's bytes, each bf16 at the byte the canonical layout puts it.
template <class Tile>
std::vector<std::uint8_t> smem_image(float (*value)(int, int)) {
  std::vector<std::uint8_t> image(static_cast<std::size_t>(Tile::operand.size_bytes()));
  for (int r = 0; r < Tile::spec.rows; ++r)
    for (int c = 0; c < Tile::spec.cols; ++c) {
      const auto bits = static_cast<std::uint16_t>(encode(T::bf16, value(r, c)));
      std::memcpy(&image[static_cast<std::size_t>(Tile::operand.address(0, r, c))], &bits, 2);
    }
  return image;
}

}  // namespace

int main() {
  const cudaDeviceProp prop = require_gpu(10, 0);  // the sm_100a kernels compiled either way

  const std::vector<std::uint8_t> a = smem_image<CheckA>(a_value), b = smem_image<CheckB>(b_value);
  std::uint8_t *d_a = nullptr, *d_b = nullptr;
  float* d_d = nullptr;
  CUDA_CHECK(cudaMalloc(&d_a, a.size()));
  CUDA_CHECK(cudaMalloc(&d_b, b.size()));
  CUDA_CHECK(cudaMalloc(&d_d, sizeof(float) * kM * kN));
  CUDA_CHECK(cudaMemcpy(d_a, a.data(), a.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_b, b.data(), b.size(), cudaMemcpyHostToDevice));
  gemm_tile<<<1, 128, kABytes + kBBytes + 1024>>>(d_a, d_b, d_d);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> d(static_cast<std::size_t>(kM) * kN);
  CUDA_CHECK(cudaMemcpy(d.data(), d_d, sizeof(float) * d.size(), cudaMemcpyDeviceToHost));
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_d);

  int bad = 0;
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < kN; ++n) {
      float want = 0;
      for (int k = 0; k < kK; ++k) want += a_value(m, k) * b_value(n, k);
      const float got = d[static_cast<std::size_t>(m) * kN + n];
      if (got != want && bad++ < 5) std::printf("  D[%d][%d] = %g, expected %g\n", m, n, got, want);
    }
  std::printf("%s: %d of %d elements differ (%s, idesc 0x%08X)\n", bad ? "FAILED" : "PASSED", bad, kM * kN, prop.name,
              Check::idesc);
  return bad ? 1 : 0;
}
