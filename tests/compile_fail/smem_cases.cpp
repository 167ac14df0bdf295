// Shared-memory plans that must not compile, each stopped by a static_assert
// whose sentence says what is allowed. tests/compile_fail/CMakeLists.txt
// compiles this file once per CASE_*; CASE_smem_legal must compile.
#include "tcgen/tile/smem_plan.hpp"

using namespace tcgen::tile;

#if defined(CASE_smem_legal)
// The GEMM's plan: 4 stages of 48 KB, its barriers, the TMEM address slot.
using Smem = SmemPlan<buffer("stages", 49152, 1024, 4), barriers("full", 4, 1), barriers("empty", 4, 1),
                      barriers("acc_empty", 2, 4), buffer("tmem_slot", 4, 4)>;
static_assert(Smem::offset<"full"> == 4 * 49152 && Smem::offset<"empty"> == 4 * 49152 + 32);
static_assert(Smem::offset<"tmem_slot"> == 4 * 49152 + 80 && Smem::bytes == 4 * 49152 + 84);
static_assert(Smem::address<"stages">(1024, 2) == 1024 + 2 * 49152 && Smem::barrier<"empty">(0, 3) == 4 * 49152 + 56);
// An entry after an odd-sized one moves up to its alignment.
using Packed = SmemPlan<buffer("rows", 4 * 3), buffer("tile", 2048, 1024)>;
static_assert(Packed::offset<"tile"> == 1024 && Packed::stride<"rows"> == 16);
#elif defined(CASE_smem_overlap)
using P = SmemPlan<buffer("q", 4096, 1024), buffer("k", 1024, 1024).at(2048)>;
constexpr auto n = P::bytes;
#elif defined(CASE_smem_misaligned)
using P = SmemPlan<buffer("rows", 512), buffer("tile", 4096, 1024).at(512)>;
constexpr auto n = P::bytes;
#elif defined(CASE_smem_arrivals_zero)
using P = SmemPlan<buffer("stage", 1024, 1024), barriers("full", 2, 0)>;
constexpr auto n = P::bytes;
#elif defined(CASE_smem_arrivals_over)
using P = SmemPlan<barriers("done", 1, 1u << 20)>;
constexpr auto n = P::bytes;
#elif defined(CASE_smem_capacity)
using P = SmemPlan<buffer("stages", 65536, 1024, 4)>;
constexpr auto n = P::bytes;
#elif defined(CASE_smem_capacity_wrap)
// 4 x 2 GiB: 8 GiB, which 32-bit sizes would see as 0.
using P = SmemPlan<buffer("huge", 1u << 31, 16, 4)>;
constexpr auto n = P::bytes;
#elif defined(CASE_smem_duplicate_name)
using P = SmemPlan<barriers("full", 2, 1), barriers("full", 2, 1)>;
constexpr auto n = P::bytes;
#elif defined(CASE_smem_alignment)
using P = SmemPlan<buffer("odd", 64, 48)>;
constexpr auto n = P::bytes;
#elif defined(CASE_smem_unknown_entry)
using P = SmemPlan<buffer("q", 1024, 1024)>;
constexpr auto a = P::address<"k">(0);
#elif defined(CASE_smem_barrier_as_buffer)
using P = SmemPlan<barriers("full", 2, 1)>;
constexpr auto a = P::address<"full">(0);
#endif

int main() { return 0; }
