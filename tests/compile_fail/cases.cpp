// Illegal constexpr configurations must stop the compile with a sentence.
// tests/compile_fail/CMakeLists.txt compiles this file once per CASE_* and
// checks the compiler's message; CASE_legal must compile.
#include "tcgen/layout/smem_operand.hpp"
#include "tcgen/layout/tmem_thread_map.hpp"

using namespace tcgen::layout;

#if defined(CASE_legal)
constexpr auto op = smem_operand<SmemOperandSpec{dense_element(32), Major::MN, SmemSwizzle::b128_base32b, 64, 16}>();
constexpr auto acc = accumulator_layout<AccumulatorSpec{64, 256, 1, false}>();
constexpr auto map = thread_map<TmemAccess{TmemShape::s16x256b, 32, true}>();
#elif defined(CASE_tf32_mn_major_128b)
constexpr auto op = smem_operand<SmemOperandSpec{dense_element(32), Major::MN, SmemSwizzle::b128, 64, 16}>();
#elif defined(CASE_k_major_base32b)
constexpr auto op = smem_operand<SmemOperandSpec{dense_element(16), Major::K, SmemSwizzle::b128_base32b, 64, 64}>();
#elif defined(CASE_bf16_base32b)
constexpr auto op = smem_operand<SmemOperandSpec{dense_element(16), Major::MN, SmemSwizzle::b128_base32b, 64, 64}>();
#elif defined(CASE_mn_major_fp4)
constexpr auto op = smem_operand<SmemOperandSpec{padded_element(4), Major::MN, SmemSwizzle::b128, 128, 64}>();
#elif defined(CASE_rows_not_multiple)
constexpr auto op = smem_operand<SmemOperandSpec{dense_element(16), Major::K, SmemSwizzle::b128, 100, 64}>();
#elif defined(CASE_cols_not_kstep)
constexpr auto op = smem_operand<SmemOperandSpec{dense_element(16), Major::K, SmemSwizzle::none, 128, 8}>();
#elif defined(CASE_accumulator_m96)
constexpr auto acc = accumulator_layout<AccumulatorSpec{96, 128, 1, false}>();
#elif defined(CASE_accumulator_ws_cg2)
constexpr auto acc = accumulator_layout<AccumulatorSpec{128, 128, 2, true}>();
#elif defined(CASE_accumulator_n12)
constexpr auto acc = accumulator_layout<AccumulatorSpec{128, 12, 1, false}>();
#elif defined(CASE_atom_num3)
constexpr auto map = thread_map<TmemAccess{TmemShape::s32x32b, 3}>();
#elif defined(CASE_atom_16x256b_x64)
constexpr auto map = thread_map<TmemAccess{TmemShape::s16x256b, 64}>();
#else
#error "no CASE_ defined"
#endif

int main() { return 0; }
