// The kernels of tests/kernels/, written once and run on the host model by
// tests/host/test_exec_*.cpp, here compiled for sm_100a through
// exec::DeviceArch and, on a B200, run and checked against fp64 as the host
// tests check them: the MMA round trip (round_trip.hpp) and the
// warp-specialised pipeline over two CTAs (pipeline.hpp).
// Exit 0: both match; 1: a mismatch or a CUDA error; 77: no sm_100 GPU
// (the kernels compiled; ctest reports the test as skipped).
//
// `probe_arch` and `probe_direct` are the zero-overhead check of
// docs/kernels.md: one sequence of mbarrier, TMA, MMA and tcgen05.ld steps
// through DeviceArch and written out with the atoms and inline PTX; their
// SASS (cuobjdump -sass -fun ...) is compared there.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "../kernels/gemm_data.hpp"
#include "../kernels/pipeline.hpp"
#include "../kernels/round_trip.hpp"
#include "device_check.hpp"
#include "tcgen/exec/device_arch.hpp"
#include "tcgen/exec/device_launch.hpp"

using namespace tcgen;
using namespace tcgen::kernels;
namespace rt = tcgen::kernels::round_trip;
namespace pl = tcgen::kernels::pipeline;
using exec::DeviceArch;

// ---- the entry points: one line each

__global__ void round_trip_sm100(const __grid_constant__ rt::Params<DeviceArch> p) {
  DeviceArch a;
  rt::kernel(a, p);
}

__global__ void pipeline_sm100(const __grid_constant__ pl::Params<DeviceArch> p) {
  DeviceArch a;
  pl::kernel(a, p);
}

// ---- the zero-overhead probe: thread 0 loads a tile and issues one MMA, warp 0 reads a row block

struct ProbeParams {
  DeviceArch::TensorMap a;
  std::uint32_t* out;
};

__global__ void probe_arch(const __grid_constant__ ProbeParams p) {
  DeviceArch a;
  const std::uint32_t smem = a.smem_base(), bar = smem + rt::kFull;
  if (a.thread_index() == 0) {
    a.mbarrier_init(bar, 1);
    a.mbarrier_arrive_expect_tx(bar, rt::kABytes);
    a.tma_load(p.a, smem, bar, 0, 0);
    a.mbarrier_wait(bar, 0);
    const rt::ATile t(smem);
    a.mma(rt::Atom{}, rt::Atom::Accumulator{tmem::TmemAddress(0, 0)}, t, rt::BTile(smem), 0, false);
    a.commit(rt::Atom{}, bar);
  }
  a.mbarrier_wait(bar, 1);
  a.fence_after_thread_sync();
  const rt::Ld::Registers r = a.ld(rt::Ld{}, tmem::TmemAddress(32 * (a.warp_index() % 4), 0));
  a.wait_ld();
  p.out[a.thread_index()] = r[0] + r[31];
}

__global__ void probe_direct(const __grid_constant__ ProbeParams p) {
  extern __shared__ std::uint8_t dynamic_smem[];
  const std::uint32_t smem =
      (static_cast<std::uint32_t>(__cvta_generic_to_shared(dynamic_smem)) + 1023u) & ~1023u, bar = smem + rt::kFull;
  const auto try_wait = [](std::uint32_t b, std::uint32_t parity) {
    std::uint32_t done;
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(b), "r"(parity)
        : "memory");
    return done != 0;
  };
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(1) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(rt::kABytes) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], "
        "[%2];" ::"r"(smem),
        "l"(reinterpret_cast<std::uint64_t>(&p.a.map)), "r"(bar), "r"(0), "r"(0)
        : "memory");
    while (!try_wait(bar, 0)) {
    }
    const rt::ATile t(smem);
    rt::Atom::issue(rt::Atom::Accumulator{tmem::TmemAddress(0, 0)}, t, rt::BTile(smem), 0, false);
    rt::Atom::commit(bar);
  }
  while (!try_wait(bar, 1)) {
  }
  tmem::fence_after_thread_sync();
  std::uint32_t r[32];
  tmem::Atom<rt::Ld::access>::load(tmem::TmemAddress(32 * (threadIdx.x / 32 % 4), 0), r);
  tmem::wait_ld();
  p.out[threadIdx.x] = r[0] + r[31];
}

// ---- DeviceArch::cp: every tcgen05.cp shape, compiled for ptxas to check
// (explicit instantiations keep them), not run; one kernel per cta_group, as
// a kernel's tcgen05 instructions share one. Where each shape's data lands is
// checked in tmem_sm100.cu through tmem::copy, which DeviceArch::cp issues.
template <int CtaGroup>
__global__ void __cluster_dims__(CtaGroup, 1, 1) arch_copy_spellings(std::uint64_t desc) {
  DeviceArch a;
  if (a.thread_index() == 0) {
#define TCGEN_X(code, suffix, rows, columns) a.cp(tmem::CopyShape::code, tmem::TmemAddress(0, 0), desc, CtaGroup);
    TCGEN_COPY_SHAPES(TCGEN_X)
#undef TCGEN_X
  }
}
template __global__ void arch_copy_spellings<1>(std::uint64_t);
template __global__ void arch_copy_spellings<2>(std::uint64_t);

// ---- the host side

namespace {

template <class T>
T* to_device(const std::vector<T>& v) {
  T* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, sizeof(T) * v.size()));
  CUDA_CHECK(cudaMemcpy(d, v.data(), sizeof(T) * v.size(), cudaMemcpyHostToDevice));
  return d;
}

std::vector<float> from_device(const float* d, std::size_t n) {
  std::vector<float> v(n);
  CUDA_CHECK(cudaMemcpy(v.data(), d, sizeof(float) * n, cudaMemcpyDeviceToHost));
  return v;
}

// One GEMM: M × N outputs of the kernel over K, checked with the host tests' bound.
bool check(const char* name, const std::vector<float>& d, const Bf16Matrix& a, const Bf16Matrix& b) {
  const std::string beyond = beyond_f32_bound(d, a, b);
  std::printf("%s: %s\n%s", name, beyond.empty() ? "PASSED" : "FAILED", beyond.c_str());
  return beyond.empty();
}

}  // namespace

int main() {
  const cudaDeviceProp prop = require_gpu(10, 0);  // the sm_100a kernels compiled either way
  bool ok = true;

  {  // the round trip
    const Bf16Matrix a = random_bf16(rt::kM, rt::kK, 1), b = random_bf16(rt::kN, rt::kK, 2);
    std::uint8_t *da = to_device(a.bytes), *db = to_device(b.bytes);
    float* dd = to_device(std::vector<float>(static_cast<std::size_t>(rt::kM) * rt::kN, -1.0f));
    const rt::Params<DeviceArch> p{exec::device_tensor_map(operand_map(rt::kM, rt::kK, rt::kM), da),
                                   exec::device_tensor_map(operand_map(rt::kN, rt::kK, rt::kN), db), dd};
    CUDA_CHECK(exec::device::launch(round_trip_sm100, {1, 1, 1}, rt::kThreads, rt::kSmemBytes, p));
    CUDA_CHECK(cudaDeviceSynchronize());
    ok &= check("round trip 128x128x64", from_device(dd, static_cast<std::size_t>(rt::kM) * rt::kN), a, b);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dd);
  }
  {  // the pipeline, two CTAs
    constexpr int kCtas = 2, kN = pl::kN * kCtas;
    const Bf16Matrix a = random_bf16(pl::kM, pl::kK, 11), b = random_bf16(kN, pl::kK, 12);
    std::uint8_t *da = to_device(a.bytes), *db = to_device(b.bytes);
    float* dd = to_device(std::vector<float>(static_cast<std::size_t>(pl::kM) * kN, -1.0f));
    const pl::Params<DeviceArch> p{exec::device_tensor_map(operand_map(pl::kM, pl::kK, pl::kM), da),
                                   exec::device_tensor_map(operand_map(kN, pl::kK, pl::kN), db), dd, kN};
    CUDA_CHECK(exec::device::launch(pipeline_sm100, {kCtas, 1, 1}, pl::kThreads, pl::kSmemBytes, p));
    CUDA_CHECK(cudaDeviceSynchronize());
    ok &= check("pipeline 128x256x256, 2 stages", from_device(dd, static_cast<std::size_t>(pl::kM) * kN), a, b);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dd);
  }
  std::printf("%s on %s\n", ok ? "PASSED" : "FAILED", prop.name);
  return ok ? 0 : 1;
}
