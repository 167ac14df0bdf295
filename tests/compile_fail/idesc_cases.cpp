// Illegal constexpr instruction descriptors must stop the compile with the
// rule's sentence. tests/compile_fail/CMakeLists.txt compiles this file once
// per CASE_idesc_* and checks the compiler's message; CASE_idesc_legal must compile.
#include "tcgen/mma/instr_descriptor.hpp"

using namespace tcgen;
using namespace tcgen::mma;

#if defined(CASE_idesc_legal)
static_assert(instr_descriptor<InstrDescriptorSpec{.n = 256}>() == 0x08400490);  // tcgen05-facts.md §3
constexpr auto mx = instr_descriptor<InstrDescriptorSpec{.kind = MmaKind::mxf4nvf4, .a = ElementType::e2m1,
                                                         .b = ElementType::e2m1, .scale_type = ScaleType::ue4m3}>();
#elif defined(CASE_idesc_n12)
constexpr auto d = instr_descriptor<InstrDescriptorSpec{.n = 12}>();
#elif defined(CASE_idesc_ws_cg2)
constexpr auto d = instr_descriptor<InstrDescriptorSpec{.m = 256, .cta_group = 2, .ws = true}>();
#elif defined(CASE_idesc_i8_negate)
constexpr auto d = instr_descriptor<InstrDescriptorSpec{.kind = MmaKind::i8, .a = ElementType::s8, .b = ElementType::s8,
                                                        .d = ElementType::s32, .negate_a = true}>();
#else
#error "no CASE_ defined"
#endif

int main() { return 0; }
