#pragma once
// One tcgen05.mma instruction as a type: Mma<Spec> for every kind, shape,
// cta_group, .ws and block scaling an InstrDescriptorSpec describes, with the
// 32-bit instruction descriptor computed (and checked) at compile time and
// operands typed, so that an atom only issues with the accumulator, the
// shared-memory tiles and the TMEM A it was built for.
//
// Operand order is the PTX syntax (#tcgen05-mma-instructions-mma):
//   tcgen05.mma{.ws}.cta_group::N.kind::K{.block_scale.scale_vec::VX}
//       [d-tmem], a-desc | [a-tmem], b-desc, idesc{, [scale-A-tmem], [scale-B-tmem]}, enable-input-d;
// with idesc a separate 32-bit operand. Not offered: the disable-output-lane
// mask, scale-input-d, the collector qualifiers and .sp (sparse A).
//
// Mma<S>::accepts<D, A, B>() is constexpr and host-compilable, so the operand
// rules are testable without a GPU; issue() and commit() are device code.
#include <cstdint>
#include <type_traits>

#include "tcgen/mma/commit.hpp"
#include "tcgen/mma/instr_descriptor.hpp"
#include "tcgen/mma/smem_matrix.hpp"
#include "tcgen/tmem/tile.hpp"

namespace tcgen::mma {

// The V of .scale_vec::VX: scale factors per row of A (column of B) and MMA,
// each covering K / V elements (#tcgen05-mma-scale-valid-comb-detail):
// mxf8f6f4 1X (block 32), mxf4 2X (block 32), mxf4nvf4 2X (block 32, ue8m0)
// or 4X (block 16, ue8m0 or ue4m3). 0 for the kinds without block scaling.
constexpr int default_scale_vec(const InstrDescriptorSpec& s) {
  switch (s.kind) {
    case MmaKind::mxf8f6f4: return 1;
    case MmaKind::mxf4: return 2;
    case MmaKind::mxf4nvf4: return s.scale_type == ScaleType::ue4m3 ? 4 : 2;
    default: return 0;
  }
}

template <InstrDescriptorSpec S, int ScaleVec = default_scale_vec(S)>
struct Mma {
  static constexpr InstrDescriptorSpec spec = S;
  static constexpr std::uint32_t idesc = instr_descriptor<S>();  // stops the compile on an illegal spec
  static constexpr int k = k_per_instruction(S);                 // K of one instruction, in elements
  static constexpr int scale_vec = ScaleVec;
  static constexpr bool scaled = block_scaled(S.kind);  // a scalar device code may read
  // With cta_group::2 each CTA of the pair holds half of A's rows and half of
  // B's (CUTLASS 2x1SM traits: ALayout M/2, BLayout N/2 per CTA).
  static constexpr int a_rows = S.m / S.cta_group;
  static constexpr int b_rows = S.n / S.cta_group;

  // The accumulator this atom writes.
  using Accumulator = tmem::AccumulatorTile<layout::AccumulatorSpec{S.m, S.n, S.cta_group, S.ws, S.sparse}, S.d>;

  static_assert(!S.sparse, "Mma issues dense MMAs: tcgen05.mma.sp and its metadata operand are not modelled");
  static_assert(!S.k96, "K = 96 is sm_103a only; Mma targets sm_100a (PTX #tcgen05-matrix-shape-target-isa-note)");
  static_assert(block_scaled(S.kind) || ScaleVec == 0,
                "scale_vec is only for the block-scaled kinds mxf8f6f4, mxf4 and mxf4nvf4");
  static_assert(S.kind != MmaKind::mxf8f6f4 || ScaleVec == 1,
                "kind::mxf8f6f4 takes scale_vec::1X (PTX #tcgen05-mma-scale-valid-comb-detail)");
  static_assert(S.kind != MmaKind::mxf4 || ScaleVec == 2,
                "kind::mxf4 takes scale_vec::2X (PTX #tcgen05-mma-scale-valid-comb-detail)");
  static_assert(S.kind != MmaKind::mxf4nvf4 || ScaleVec == 2 || ScaleVec == 4,
                "kind::mxf4nvf4 takes scale_vec::2X or 4X (PTX #tcgen05-mma-scale-valid-comb-detail)");
  static_assert(S.scale_type != ScaleType::ue4m3 || ScaleVec == 4,
                "ue4m3 scale factors need scale_vec::4X (PTX #tcgen05-mma-scale-valid-comb-detail)");
  static_assert(ScaleVec != 4 || (S.a_sf_id == 0 && S.b_sf_id == 0),
                "scale_vec::4X reads whole 32-bit scale words: a_sf_id and b_sf_id must be 0 "
                "(PTX #tcgen05-mma-scale-factor-a, #tcgen05-mma-scale-factor-b)");

 private:
  template <class T>
  using Tag = std::type_identity<T>;

  template <layout::AccumulatorSpec DS, ElementType DE>
  static consteval bool check_d(Tag<tmem::AccumulatorTile<DS, DE>>) {
    static_assert(DS.m == S.m, "the accumulator's M must be the atom's M (PTX #tcgen05-data-path-layout-organization)");
    static_assert(DS.n == S.n, "the accumulator's N must be the atom's N (PTX #tcgen05-data-path-layout-organization)");
    static_assert(DS.cta_group == S.cta_group,
                  "the accumulator's cta_group must be the atom's: it decides the data-path layout "
                  "(PTX #tcgen05-data-path-layout-organization)");
    static_assert(DS.ws == S.ws,
                  "the accumulator's .ws must be the atom's: M = 64 is Layout E with .ws, Layout F without "
                  "(PTX #tcgen05-data-path-layout-organization)");
    static_assert(DS.sparse == S.sparse, "the accumulator's sparsity must be the atom's (Layout C is sparse only)");
    static_assert(DE == S.d, "the accumulator's element type must be the atom's D type (idesc dtype)");
    return true;
  }

  template <layout::SmemOperandSpec SA>
  static consteval bool check_a(Tag<SmemMatrix<SA>>) {
    static_assert(SA.element.bits == bits(S.a), "the A tile's element width must be that of the atom's A type");
    static_assert(SA.major == S.a_major, "the A tile's major-ness must be the atom's a_major (idesc bit 15)");
    static_assert(SA.rows == a_rows, "the A tile must have M rows, M/2 per CTA with cta_group::2");
    static_assert(layout::kstep_elements(SA.element) == k,
                  "the A tile's K step must be the atom's K: 6- and 4-bit values are padded to 16 per 16-byte "
                  "chunk for kind::f8f6f4 and mxf8f6f4, 4-bit values packed 32 per chunk for kind::mxf4 and "
                  "mxf4nvf4 (PTX #tcgen05-packing-formats)");
    return true;
  }

  // TS: A from Tensor Memory, M rows in lanes, K along columns
  // (tcgen05-facts-2.md §1; PTX #tcgen05-matrices-majorness). With
  // cta_group::2 and M = 128 each CTA's 64 rows must also be duplicated in
  // lanes 64-127 (facts-2 §1.2, CUTLASS TmemAllocMode::Duplicated); the tile
  // names the first copy.
  template <int M, int K, ElementType E>
  static consteval bool check_a(Tag<tmem::OperandTile<M, K, E>>) {
    static_assert(S.a_major == layout::Major::K,
                  "A from Tensor Memory is K-major: the atom's a_major must be K (PTX #tcgen05-matrices-majorness; "
                  "CUTLASS: \"A from TMEM can't be transposed\")");
    static_assert(M == a_rows, "the TMEM A tile must have M rows, M/2 per CTA with cta_group::2");
    static_assert(E == S.a, "the TMEM A tile's element type must be the atom's A type");
    static_assert(K % k == 0, "the TMEM A tile's K must be a multiple of the atom's K");
    // a_operand() steps 8 columns per K step, so the tile's packing must put
    // one MMA's K in 8 columns: 6- and 4-bit values of kind::f8f6f4 and
    // mxf8f6f4 take a byte each, of kind::mxf4 and mxf4nvf4 half a byte.
    static_assert(tmem::OperandTile<M, K, E>::columns * k == 8u * K,
                  "the TMEM A tile must hold one MMA's K in 8 columns (256 bits of each row): 6- and 4-bit A of "
                  "kind::f8f6f4 and mxf8f6f4 sit in 8-bit containers (PTX #tcgen05-packing-formats-mxf8f6f4-tmem)");
    return true;
  }

  template <layout::SmemOperandSpec SB>
  static consteval bool check_b(Tag<SmemMatrix<SB>>) {
    static_assert(SB.element.bits == bits(S.b), "the B tile's element width must be that of the atom's B type");
    static_assert(SB.major == S.b_major, "the B tile's major-ness must be the atom's b_major (idesc bit 16)");
    static_assert(SB.rows == b_rows, "the B tile must have N rows, N/2 per CTA with cta_group::2");
    static_assert(layout::kstep_elements(SB.element) == k,
                  "the B tile's K step must be the atom's K: 6- and 4-bit values are padded to 16 per 16-byte "
                  "chunk for kind::f8f6f4 and mxf8f6f4, 4-bit values packed 32 per chunk for kind::mxf4 and "
                  "mxf4nvf4 (PTX #tcgen05-packing-formats)");
    return true;
  }

  template <layout::SmemOperandSpec SA, layout::SmemOperandSpec SB>
  static consteval bool check_k(Tag<SmemMatrix<SA>>, Tag<SmemMatrix<SB>>) {
    static_assert(SA.cols == SB.cols, "A and B tiles must have the same K");
    return true;
  }
  template <int M, int K, ElementType E, layout::SmemOperandSpec SB>
  static consteval bool check_k(Tag<tmem::OperandTile<M, K, E>>, Tag<SmemMatrix<SB>>) {
    static_assert(K == SB.cols, "A and B tiles must have the same K");
    return true;
  }

 public:
  // True when D, A and B (SmemMatrix, or tmem::OperandTile for A) are what
  // this atom writes and reads; otherwise the compile stops at the first rule
  // they break, with its sentence.
  template <class D, class A, class B>
  static consteval bool accepts() {
    return check_d(Tag<D>{}) && check_a(Tag<A>{}) && check_b(Tag<B>{}) && check_k(Tag<A>{}, Tag<B>{});
  }

#if defined(__CUDACC__)
  // D (+)= A·B for K step k of the A and B tiles; `accumulate` is
  // enable-input-d (false: D = A·B, the first MMA of a chain). Issued by one
  // thread; completion is signalled through commit().
  template <class D, class A, class B>
    requires(!scaled)
  __device__ static void issue(D d, A a, B b, int kstep, bool accumulate) {
    static_assert(accepts<D, A, B>());
    emit(d.address.raw(), a_operand(a, kstep), b.kstep(kstep), accumulate, 0u, 0u);
  }

  // Block-scaled: D (+)= (A·scale_A)(B·scale_B), the scale factors at the
  // given TMEM addresses; a_sf_id and b_sf_id of the spec pick their
  // sub-column (PTX #tcgen05-block-scaling, #tcgen05-mma-scale-factor-a).
  template <class D, class A, class B>
    requires(scaled)
  __device__ static void issue(D d, A a, B b, int kstep, bool accumulate, tmem::TmemAddress scale_a,
                               tmem::TmemAddress scale_b) {
    static_assert(accepts<D, A, B>());
    emit(d.address.raw(), a_operand(a, kstep), b.kstep(kstep), accumulate, scale_a.raw(), scale_b.raw());
  }

  // tcgen05.commit of this atom's cta_group (commit.hpp).
  __device__ static void commit(std::uint32_t mbarrier) { mma::commit<S.cta_group>(mbarrier); }
  __device__ static void commit_multicast(std::uint32_t mbarrier, std::uint16_t cta_mask) {
    mma::commit_multicast<S.cta_group>(mbarrier, cta_mask);
  }

 private:
  // A's K step as the instruction takes it: a descriptor (SS) or a TMEM address (TS).
  template <class A>
  __device__ static auto a_operand(A a, int kstep) {
    if constexpr (tmem::is_tmem_operand<A>)
      return a.kstep(kstep).raw();
    else
      return a.kstep(kstep);
  }

  // Inline asm wants its text as one string literal, so the kind (the one
  // word of the spelling that is not a number) picks one of seven literals;
  // cta_group (%5) and the scale vector size (%6) go in as immediates.
  // `a` is a 64-bit descriptor (SS) or a 32-bit TMEM address (TS).
  template <class AOperand>
  __device__ static void emit(std::uint32_t d, AOperand a, std::uint64_t b, bool accumulate, std::uint32_t scale_a,
                              std::uint32_t scale_b) {
    constexpr bool tmem_a = sizeof(AOperand) == 4;
    const std::uint32_t enable_input_d = accumulate;
#define TCGEN_MMA_ASM(op, kind, qualifiers, a_text, a_constraint, scales)                                 \
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t" op ".cta_group::%5.kind::" kind qualifiers \
               " [%0], " a_text ", %2, %3" scales ", p;\n\t}" ::"r"(d),                                    \
               a_constraint(a), "l"(b), "r"(idesc), "r"(enable_input_d), "n"(S.cta_group), "n"(ScaleVec),   \
               "r"(scale_a), "r"(scale_b))
#define TCGEN_MMA_BY_KIND(op, qualifiers, a_text, a_constraint, scales)                              \
  if constexpr (S.kind == MmaKind::f16) {                                                              \
    TCGEN_MMA_ASM(op, "f16", qualifiers, a_text, a_constraint, scales);                                \
  } else if constexpr (S.kind == MmaKind::tf32) {                                                      \
    TCGEN_MMA_ASM(op, "tf32", qualifiers, a_text, a_constraint, scales);                               \
  } else if constexpr (S.kind == MmaKind::f8f6f4) {                                                    \
    TCGEN_MMA_ASM(op, "f8f6f4", qualifiers, a_text, a_constraint, scales);                             \
  } else if constexpr (S.kind == MmaKind::i8) {                                                        \
    TCGEN_MMA_ASM(op, "i8", qualifiers, a_text, a_constraint, scales);                                 \
  } else if constexpr (S.kind == MmaKind::mxf8f6f4) {                                                  \
    TCGEN_MMA_ASM(op, "mxf8f6f4", qualifiers, a_text, a_constraint, scales);                           \
  } else if constexpr (S.kind == MmaKind::mxf4) {                                                      \
    TCGEN_MMA_ASM(op, "mxf4", qualifiers, a_text, a_constraint, scales);                               \
  } else {                                                                                             \
    TCGEN_MMA_ASM(op, "mxf4nvf4", qualifiers, a_text, a_constraint, scales);                           \
  }
    if constexpr (scaled) {
      if constexpr (tmem_a) {
        TCGEN_MMA_BY_KIND("tcgen05.mma", ".block_scale.scale_vec::%6X", "[%1]", "r", ", [%7], [%8]")
      } else {
        TCGEN_MMA_BY_KIND("tcgen05.mma", ".block_scale.scale_vec::%6X", "%1", "l", ", [%7], [%8]")
      }
    } else if constexpr (S.ws) {
      if constexpr (tmem_a) {
        TCGEN_MMA_BY_KIND("tcgen05.mma.ws", "", "[%1]", "r", "")
      } else {
        TCGEN_MMA_BY_KIND("tcgen05.mma.ws", "", "%1", "l", "")
      }
    } else {
      if constexpr (tmem_a) {
        TCGEN_MMA_BY_KIND("tcgen05.mma", "", "[%1]", "r", "")
      } else {
        TCGEN_MMA_BY_KIND("tcgen05.mma", "", "%1", "l", "")
      }
    }
#undef TCGEN_MMA_BY_KIND
#undef TCGEN_MMA_ASM
  }
#endif
};

}  // namespace tcgen::mma
