// Definedness (docs/model.md, Definedness) in the raw-PTX style of the seed's
// kernels: one warp allocates 32 columns of Tensor Memory, writes lanes 0-15
// of its quarter with one tcgen05.st.16x64b.x4 (8 columns), and reads the whole
// 32-lane slab back with tcgen05.ld.32x32b.x8, as a kernel whose M = 64 MMA
// wrote 16 lanes of each quarter does. Lanes 16-31 receive cells never
// written: on a B200 stale bits. The variants use them or not: the correct one
// stores only lanes 0-15; the others store the unwritten lanes, use them as an
// address or a branch condition, compute on them, or move them through shared
// memory or a shuffle first. Built by nvcc -ptx for sm_100a.
#include <cstdint>

namespace {

enum Variant {
  written_lanes_only,  // stores lanes 0-15 only: silent
  all_lanes,           // stores lanes 16-31 too
  as_address,          // lanes 16-31 index the output with the value they read
  as_branch,           // lanes 16-31 branch on it
  arithmetic,          // every lane stores 2·v + 1
  through_shared,      // every lane stores its registers to shared memory; lanes `only_written` or all read back
  shuffled,            // lanes 0-15 take lane + 16's value by shfl; lanes 16-31 take lane - 16's (written)
  shuffled_back,       // lanes 0-15 store the value of lane + 16
};

template <Variant V>
__device__ void run(std::uint32_t* out) {
  __shared__ std::uint32_t slot;
  __shared__ std::uint32_t stash[32 * 8];
  const int lane = threadIdx.x % 32;
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"(
      static_cast<std::uint32_t>(__cvta_generic_to_shared(&slot))));
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;");
  const std::uint32_t tmem = *static_cast<volatile std::uint32_t*>(&slot);

  // Lanes 0-15, columns 0-7: thread t's register i holds 100·t + i + 1.
  const std::uint32_t v = 100u * lane + 1u;
  asm volatile("tcgen05.st.sync.aligned.16x64b.x4.b32 [%0], {%1, %2, %3, %4};" ::"r"(tmem), "r"(v), "r"(v + 1),
               "r"(v + 2), "r"(v + 3));
  asm volatile("tcgen05.wait::st.sync.aligned;");
  std::uint32_t r[8];
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
               : "r"(tmem));
  asm volatile("tcgen05.wait::ld.sync.aligned;");

  if constexpr (V == written_lanes_only) {
    if (lane < 16)
      for (int j = 0; j < 8; ++j) out[lane * 8 + j] = r[j];
  } else if constexpr (V == all_lanes) {
    for (int j = 0; j < 8; ++j) out[lane * 8 + j] = r[j];
  } else if constexpr (V == as_address) {
    if (lane < 16)
      for (int j = 0; j < 8; ++j) out[lane * 8 + j] = r[j];
    else
      out[r[3] % 256] = 1;
  } else if constexpr (V == as_branch) {
    if (lane < 16) {
      for (int j = 0; j < 8; ++j) out[lane * 8 + j] = r[j];
    } else {
      std::uint32_t taken;
      asm volatile(
          "{\n\t.reg .pred p;\n\tsetp.eq.u32 p, %1, 12345;\n\tmov.u32 %0, 0;\n\t@p bra.uni DONE;\n\t"
          "mov.u32 %0, 1;\n\tDONE:\n\t}"
          : "=r"(taken)
          : "r"(r[5]));
      out[256 + lane] = taken;
    }
  } else if constexpr (V == arithmetic) {
    out[lane] = 2 * r[2] + 1;
  } else if constexpr (V == through_shared) {
    for (int j = 0; j < 8; ++j) stash[lane * 8 + j] = r[j];
    __syncwarp();
    const int from = (lane + 8) % 32;  // lanes 0-7 and 24-31 read written lanes' rows, 8-23 read 16-31's or 0-15's
    if (from < 16)
      for (int j = 0; j < 8; ++j) out[lane * 8 + j] = stash[from * 8 + j];
    __syncwarp();
    out[256 + lane] = stash[lane * 8];  // lane 16 reads back its own unwritten cell
  } else if constexpr (V == shuffled) {
    const std::uint32_t s = __shfl_sync(0xFFFFFFFFu, r[1], lane ^ 16);
    if (lane >= 16) out[lane * 8] = s;  // lane l - 16's row: written
  } else if constexpr (V == shuffled_back) {
    const std::uint32_t s = __shfl_sync(0xFFFFFFFFu, r[1], lane ^ 16);
    if (lane < 16) out[lane * 8] = s;  // lane l + 16's row: never written
  }
  __syncwarp();
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" ::"r"(tmem));
}

}  // namespace

extern "C" __global__ void definedness_written_lanes_only(std::uint32_t* out) { run<written_lanes_only>(out); }
extern "C" __global__ void definedness_all_lanes(std::uint32_t* out) { run<all_lanes>(out); }
extern "C" __global__ void definedness_as_address(std::uint32_t* out) { run<as_address>(out); }
extern "C" __global__ void definedness_as_branch(std::uint32_t* out) { run<as_branch>(out); }
extern "C" __global__ void definedness_arithmetic(std::uint32_t* out) { run<arithmetic>(out); }
extern "C" __global__ void definedness_through_shared(std::uint32_t* out) { run<through_shared>(out); }
extern "C" __global__ void definedness_shuffled(std::uint32_t* out) { run<shuffled>(out); }
extern "C" __global__ void definedness_shuffled_back(std::uint32_t* out) { run<shuffled_back>(out); }
