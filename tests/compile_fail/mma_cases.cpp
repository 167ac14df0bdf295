// An MMA atom given operands that do not match its kind, shape and majors
// must stop the compile with the rule's sentence. tests/compile_fail/CMakeLists.txt
// compiles this file once per CASE_mma_* and checks the compiler's message;
// CASE_mma_legal must compile.
#include "tcgen/mma/mma_atom.hpp"

using namespace tcgen;
using namespace tcgen::mma;
using layout::Major;
using layout::SmemOperandSpec;
using layout::SmemSwizzle;
using T = ElementType;

template <int Bits, Major Mj, int Rows, int Cols = 64>
using Tile = SmemMatrix<SmemOperandSpec{layout::dense_element(Bits), Mj, SmemSwizzle::b128, Rows, Cols}>;
template <int M, int N, int CtaGroup = 1, T E = T::f32>
using Acc = tmem::AccumulatorTile<layout::AccumulatorSpec{M, N, CtaGroup, false}, E>;

using Bf16 = Mma<InstrDescriptorSpec{.n = 256}>;  // bf16 x bf16 -> f32, M128 N256, both K-major

#if defined(CASE_mma_legal)
static_assert(Bf16::accepts<Acc<128, 256>, Tile<16, Major::K, 128>, Tile<16, Major::K, 256>>());
static_assert(Bf16::accepts<Acc<128, 256>, tmem::OperandTile<128, 64, T::bf16>, Tile<16, Major::K, 256>>());
#elif defined(CASE_mma_accumulator_n)
static_assert(Bf16::accepts<Acc<128, 128>, Tile<16, Major::K, 128>, Tile<16, Major::K, 256>>());
#elif defined(CASE_mma_a_major)
static_assert(Bf16::accepts<Acc<128, 256>, Tile<16, Major::MN, 128>, Tile<16, Major::K, 256>>());
#elif defined(CASE_mma_a_element)
static_assert(Bf16::accepts<Acc<128, 256>, Tile<8, Major::K, 128, 128>, Tile<16, Major::K, 256>>());
#elif defined(CASE_mma_ts_mn_major)
using MnA = Mma<InstrDescriptorSpec{.a_major = Major::MN}>;
static_assert(MnA::accepts<Acc<128, 128>, tmem::OperandTile<128, 64, T::bf16>, Tile<16, Major::K, 128>>());
#elif defined(CASE_mma_cta_group)
using Pair = Mma<InstrDescriptorSpec{.m = 128, .n = 128, .cta_group = 2}>;
static_assert(Pair::accepts<Acc<128, 128, 1>, Tile<16, Major::K, 64>, Tile<16, Major::K, 64>>());
#elif defined(CASE_mma_b_rows_cg2)
using Pair = Mma<InstrDescriptorSpec{.m = 256, .n = 256, .cta_group = 2}>;
static_assert(Pair::accepts<Acc<256, 256, 2>, Tile<16, Major::K, 128>, Tile<16, Major::K, 256>>());
#elif defined(CASE_mma_d_element)
static_assert(Bf16::accepts<Acc<128, 256, 1, T::fp16>, Tile<16, Major::K, 128>, Tile<16, Major::K, 256>>());
#elif defined(CASE_mma_dense_fp4_f8f6f4)
using Fp4 = Mma<InstrDescriptorSpec{.kind = MmaKind::f8f6f4, .a = T::e2m1, .b = T::e4m3, .n = 128}>;
static_assert(Fp4::accepts<Acc<128, 128>, Tile<4, Major::K, 128, 256>, Tile<8, Major::K, 128, 128>>());
#elif defined(CASE_mma_ts_fp4_f8f6f4)
using Fp4 = Mma<InstrDescriptorSpec{.kind = MmaKind::f8f6f4, .a = T::e2m1, .b = T::e4m3, .n = 128}>;
static_assert(Fp4::accepts<Acc<128, 128>, tmem::OperandTile<128, 128, T::e2m1>, Tile<8, Major::K, 128, 128>>());
#elif defined(CASE_mma_ue4m3_2x)
using Nvf4 = Mma<InstrDescriptorSpec{.kind = MmaKind::mxf4nvf4, .a = T::e2m1, .b = T::e2m1,
                                     .scale_type = ScaleType::ue4m3},
                 2>;
constexpr auto idesc = Nvf4::idesc;
#else
#error "no CASE_ defined"
#endif

int main() { return 0; }
