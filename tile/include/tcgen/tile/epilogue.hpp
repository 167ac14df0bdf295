#pragma once
// The epilogue of one output tile: a warpgroup reads the f32 accumulator
// from Tensor Memory with tcgen05.ld, adds C if there is one, converts to
// D's type and stores to global memory, rows ≥ M and columns ≥ N left out.
//
// Warp w may read only the lanes of its quarter w % 4 (PTX
// #tcgen05-tensor-memory-ld-st-access-restrictions); TileAccess says which
// element each register holds. The stores move 16 bytes at a time, which
// needs each thread's registers to run along one row of D: a 32x32b access
// gives thread t lane 32q + t and `num` consecutive columns, and the
// static_assert below checks that on TileAccess's own map, for every
// quarter, access, thread and register.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tcgen/exec/kernel_arch.hpp"
#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/ld_st.hpp"
#include "tcgen/exec/unroll.hpp"
#include "tcgen/tile/convert.hpp"
#include "tcgen/tile/global_io.hpp"
#include "tcgen/tmem/tile_access.hpp"

namespace tcgen::tile {

// A tile's place in D: its first row and column.
struct TileOrigin {
  int m0 = 0, n0 = 0;
};

// D and C in global memory, row-major with leading dimensions in elements.
template <ElementType D>
struct Output {
  Storage<D>* d = nullptr;
  const Storage<D>* c = nullptr;  // null: D = A·Bᵀ
  int ldd = 0, ldc = 0;
  int m = 0, n = 0;
  bool vector_d = false, vector_c = false;  // 16-byte moves allowed: base and leading dimension aligned
};

template <ElementType D, class Tile, layout::TmemAccess Access>
struct Epilogue {
  using Ld = exec::LdSt<Access>;
  using Walk = tmem::TileAccess<Tile, Access>;
  static constexpr int kVector = 16 / static_cast<int>(sizeof(Storage<D>));  // values per 16-byte move

  // Every register i of thread t holds (row, col0 + i) of the access's
  // first register (row, col0), with col0 a multiple of kVector.
  static consteval bool runs_along_rows() {
    for (int q = 0; q < 4; ++q)
      for (int s = 0; s < Walk::accesses; ++s)
        for (int t = 0; t < 32; ++t) {
          const tmem::Element e0 = Walk::element(q, s, t, 0);
          if (e0.col % kVector != 0) return false;
          for (int i = 0; i < Walk::registers; ++i)
            if (!(Walk::element(q, s, t, i) == tmem::Element{e0.row, e0.col + i})) return false;
        }
    return true;
  }
  static_assert(Walk::registers % kVector == 0, "an access must hold whole 16-byte runs of D");
  static_assert(runs_along_rows(), "the access must give each thread consecutive columns of one row of D");

  // The whole tile, by warp `quarter` (its warp index % 4) of the
  // epilogue warpgroup; `origin` is the tile's place in D.
  template <exec::KernelArch Arch>
  static TCGEN_HD void store(Arch& a, const Tile& acc, int quarter, const Output<D>& out, TileOrigin origin) {
    const int lane = static_cast<int>(a.lane_index());
    // Not unrolled: one access's code (its registers are unrolled below) serves them all.
    for (int s = 0; s < Walk::accesses; ++s) {
      const typename Ld::Registers r = a.ld(Ld{}, Walk::address(acc, quarter, s));
      a.wait_ld();
      const tmem::Element e = Walk::element(quarter, s, lane, 0);
      const int row = origin.m0 + e.row;
      if (row < out.m) {
        TCGEN_UNROLL
        for (int g = 0; g < Walk::registers / kVector; ++g) {
          float v[kVector];
          TCGEN_UNROLL
          for (int j = 0; j < kVector; ++j) v[j] = std::bit_cast<float>(r[g * kVector + j]);
          store_run(out, row, origin.n0 + e.col + g * kVector, v);
        }
      }
    }
  }

 private:
  // D[row][col … col + kVector) = v (+ C), the columns ≥ N left out.
  static TCGEN_HD void store_run(const Output<D>& out, int row, int col, float (&v)[kVector]) {
    const bool whole = col + kVector <= out.n;
    if (out.c != nullptr) {
      const Storage<D>* c = out.c + static_cast<std::size_t>(row) * out.ldc + col;
      if (whole && out.vector_c) {
        const Vec16 w = load16(c);
        Storage<D> cv[kVector];
        static_assert(sizeof cv == sizeof w.w);
        std::memcpy(cv, w.w, sizeof cv);
        TCGEN_UNROLL
        for (int j = 0; j < kVector; ++j) v[j] += to_f32<D>(cv[j]);
      } else {
        TCGEN_UNROLL
        for (int j = 0; j < kVector; ++j)
          if (col + j < out.n) v[j] += to_f32<D>(c[j]);
      }
    }
    Storage<D>* d = out.d + static_cast<std::size_t>(row) * out.ldd + col;
    if (whole && out.vector_d) {
      Vec16 w;
      TCGEN_UNROLL
      for (int j = 0; j < 4; ++j) {
        if constexpr (D == ElementType::f32)
          w.w[j] = std::bit_cast<std::uint32_t>(v[j]);
        else
          w.w[j] = pack2<D>(v[2 * j], v[2 * j + 1]);
      }
      store16(d, w);
    } else {
      TCGEN_UNROLL
      for (int j = 0; j < kVector; ++j)
        if (col + j < out.n) d[j] = from_f32<D>(v[j]);
    }
  }
};

}  // namespace tcgen::tile
