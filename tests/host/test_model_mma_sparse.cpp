// tcgen05.mma.sp in the host model (PTX #tcgen05-mma-instructions-mma-sp,
// #tcgen05-sparse-matrices): a hand-made 2:4 A with its metadata, then random
// sparse A for every kind the model runs (f16, bf16, tf32, f8f6f4 with 8- and
// padded 4-bit A, mxf8f6f4, mxf4, mxf4nvf4), A from shared or Tensor Memory,
// one CTA (M = 128) and a CTA pair (M = 256), each against D computed in fp64
// from the dense A; the sparsity selector; and each rule of the sparse form
// broken once. The test compresses A itself, the way a pruner does (keep two
// values of four, write where they were), and places the metadata by its own
// statement of the layout: JAX's format_tcgen05_sparse_metadata for the
// 32-bit rows of kind::f16 and tf32, CUTLASS's tmem_e_frg for the others.
// Inputs are values whose products and sums fp32 holds exactly, so D must
// equal the reference bit for bit.
#include <array>
#include <cmath>
#include <map>
#include <utility>

#include "test_model_support.hpp"

using namespace model_test;

namespace {

constexpr std::uint32_t kA = 0x400, kB = 0x8000;
constexpr std::uint32_t kD = 0, kMeta = 256, kSfa = 280, kSfb = 288;  // TMEM columns

// Table 42 with the sparsity bit (2) and the selector (bits 0-1).
std::uint32_t sparse_idesc(const Idesc& d, int selector = 0) { return idesc(d) | 1u << 2 | std::uint32_t(selector); }

// One kind as the test runs it: the element types, their idesc codes, and
// the scale vector of the block-scaled kinds (0 for the others).
struct Form {
  MmaKind kind;
  ElementType a, b;
  int atype, btype;
  int scale_vec = 0;
  bool ue8m0 = true;
  const char* what;
};

// The sparse granularity, from PTX's table (#tcgen05-sparse-matrices):
// K values per metadata entry.
int chunk_of(MmaKind k) { return k == MmaKind::tf32 ? 2 : k == MmaKind::mxf4 || k == MmaKind::mxf4nvf4 ? 8 : 4; }
// Dense K per instruction (#tcgen05-kind-shapes): 256 bits of K values.
int dense_k(const Form& f) {
  return f.kind == MmaKind::mxf4 || f.kind == MmaKind::mxf4nvf4 ? 64 : 256 / std::max(8, bits(f.a));
}

// A canonical K-major operand without swizzle, any element width (facts
// §2.1): 16-byte chunk c of row r at start + (r%8)·16 + (r/8)·128 + c·rows·16,
// value i of a chunk at bit i·bits from its first byte; T values a chunk:
// 128 / bits, 16 for padded 4-bit values, 32 for packed ones.
struct Canonical {
  std::uint32_t start;
  int rows, k;
  ElementType type;
  bool packed = false;

  int per_chunk() const { return bits(type) == 4 && packed ? 32 : bits(type) < 8 ? 16 : 128 / bits(type); }
  std::uint32_t size() const { return std::uint32_t(rows) * std::uint32_t(k / per_chunk()) * 16; }
  std::uint64_t desc() const { return smem_desc(start, std::uint32_t(rows) * 16, 128); }
  void place(Staging& s, const std::vector<float>& values) const {
    const int T = per_chunk(), b = bits(type);
    for (int r = 0; r < rows; ++r)
      for (int kk = 0; kk < k; ++kk) {
        const std::uint32_t chunk = start + (r % 8) * 16 + (r / 8) * 128 + std::uint32_t(kk / T) * rows * 16;
        const std::uint64_t v = encode(type, values[std::size_t(r) * k + kk]);
        for (int j = 0; j < b; ++j) {
          const int bit = (kk % T) * b + j;
          if (v >> j & 1) s.bytes.at(chunk - s.base + bit / 8) |= std::uint8_t(1u << (bit % 8));
        }
      }
  }
};

void stage_canonical(Cta& cta, const Canonical& op, const std::vector<float>& values) {
  Staging s(op.start, op.size());
  op.place(s, values);
  s.store(cta, 0);
  cta.fence_proxy_async(0);
}

// Values every type of the form holds exactly: multiples of 1/4 in [-2, 2]
// for the 16- and 32-bit and 8-bit types, e2m1's ±0.5 .. ±2 for 4-bit ones.
float value_for(ElementType t, std::mt19937& rng) {
  if (bits(t) == 4) {
    static constexpr float kFp4[] = {0.5f, 1, 1.5f, 2};
    const int i = std::uniform_int_distribution<int>(0, 7)(rng);
    return (i % 2 ? -1.0f : 1.0f) * kFp4[i / 2];
  }
  int q = 0;
  while (q == 0) q = std::uniform_int_distribution<int>(-8, 8)(rng);
  return q / 4.0f;
}

// A sparse A as a pruner makes it: per chunk the kept positions, the dense
// row (zero elsewhere), the kept values in stored order and the metadata
// entry: two 2-bit indices, the first in bits 0-1, naming where kept value 0
// and 1 (4-bit kinds: two-wide sub-chunk 0 and 1; tf32: 16-bit half 0 and 1
// of the one kept value) came from (#tcgen05-sparse-matrices-kind-*).
struct SparseA {
  int rows, K;
  std::vector<float> dense, kept;
  std::vector<std::uint8_t> entries;  // rows × K / chunk
};

SparseA make_sparse(const Form& f, int rows, unsigned seed) {
  const int K = 2 * dense_k(f), chunk = chunk_of(f.kind), per_row = K / chunk;
  SparseA s{rows, K, std::vector<float>(std::size_t(rows) * K, 0.0f), {}, {}};
  std::mt19937 rng(seed);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < per_row; ++j) {
      float* d = s.dense.data() + std::size_t(r) * K + j * chunk;
      std::vector<int> where;  // the kept positions, in stored order
      if (chunk == 2) {
        const int p = std::uniform_int_distribution<int>(0, 1)(rng);
        where = {p};
        s.entries.push_back(p == 0 ? 0b0100 : 0b1110);  // halves 0-1 or 2-3
      } else {
        int p0 = std::uniform_int_distribution<int>(0, 3)(rng), p1 = std::uniform_int_distribution<int>(0, 2)(rng);
        if (p1 >= p0) ++p1;
        if (p0 > p1 && !(p0 == 2 && p1 == 1)) std::swap(p0, p1);  // 0b0110, (2, 1), is PTX's one descending entry
        s.entries.push_back(std::uint8_t(p0 | p1 << 2));
        where = chunk == 4 ? std::vector<int>{p0, p1} : std::vector<int>{2 * p0, 2 * p0 + 1, 2 * p1, 2 * p1 + 1};
      }
      for (int p : where) {
        d[p] = value_for(f.a, rng);
        s.kept.push_back(d[p]);
      }
    }
  return s;
}

// The Tensor Memory words of 128 rows' metadata (lane, column offset) → word.
// kind::f16 and tf32 (32 bits a row): JAX's format_tcgen05_sparse_metadata,
// meta (M, K/4, 2) of 2-bit indices reshaped (M/128, 8, 2, 8, K/64, 4, 2, 8)
// and transposed (0, 4, 1, 6, 3, 5, 2, 7) into 128 rows × 64 indices, which
// tcgen05.cp .128x128b puts in lanes 0-127, 4 columns. The others (64 bits a
// row): CUTLASS's tmem_e_frg atom (128, K):(1, 128) in bits, row m in lane m,
// its bits in K order.
std::map<std::pair<int, int>, std::uint32_t> metadata_words(const std::vector<std::uint8_t>& entries, int rows) {
  std::map<std::pair<int, int>, std::uint32_t> w;
  const int per_row = int(entries.size()) / rows;  // entries a row
  for (int m = 0; m < rows; ++m)
    for (int i = 0; i < 2 * per_row; ++i) {  // 2-bit index i of row m
      const std::uint32_t index = entries[std::size_t(m) * per_row + i / 2] >> (2 * (i % 2)) & 3;
      int lane = m, at = 2 * i;  // `at`: bit along the lane's columns
      if (per_row == 8) {
        const int a = m / 16, b = m / 8 % 2, c = m % 8, d = i / 16, e = i / 8 % 2, f = i % 8;
        lane = a * 16 + e * 8 + c;
        at = 2 * (d * 16 + b * 8 + f);
      }
      w[{lane, at / 32}] |= index << (at % 32);
    }
  return w;
}

// Stores the words with tcgen05.st from warps 0-3 (each its lane quarter), then waits.
void store_words(Cta& cta, std::uint32_t tmem, int column, int columns,
                 const std::map<std::pair<int, int>, std::uint32_t>& w) {
  for (int q = 0; q < 4; ++q) {
    WarpRegisters r{};
    for (int t = 0; t < 32; ++t)
      for (int c = 0; c < columns; ++c) {
        const auto it = w.find({32 * q + t, c});
        r[t].push_back(it == w.end() ? 0u : it->second);
      }
    cta.st(q, {LdStShape::s32x32b, columns}, tmem + taddr(32 * q, column), r);
    cta.wait_st(q);
  }
}

// The metadata of `a` from `column` on: 4 bits an entry, 32 bits a column.
void store_metadata(Cta& cta, std::uint32_t tmem, int column, const SparseA& a) {
  store_words(cta, tmem, column, int(a.entries.size()) / a.rows * 4 / 32, metadata_words(a.entries, a.rows));
}

// Scale factors (rows × V bytes, factor j of row r) as PTX lays them out
// (#tcgen05-mma-scale-factor-a): row r's word at lane r % 32 of each 32-lane
// partition, column r / 32, byte j.
void store_scales(Cta& cta, std::uint32_t tmem, int column, const std::vector<std::uint8_t>& sf, int rows, int vec) {
  std::map<std::pair<int, int>, std::uint32_t> w;
  for (int r = 0; r < rows; ++r)
    for (int q = 0; q < 4; ++q)
      for (int j = 0; j < vec; ++j)
        w[{r % 32 + 32 * q, r / 32}] |= std::uint32_t(sf[std::size_t(r) * vec + j]) << (8 * j);
  store_words(cta, tmem, column, (rows + 31) / 32, w);
}

// The st → mma hand-off: each warp's fence::before_thread_sync, a barrier, the issuer's fence::after_thread_sync.
void hand_to_issuer(Cta& cta) {
  for (int w = 0; w < 4; ++w) cta.fence_before_thread_sync(w);
  cta.bar_sync();
  cta.fence_after_thread_sync(0);
}

double scale_value(std::uint8_t x, bool ue8m0) {
  return ue8m0 ? std::ldexp(1.0, int(x) - 127) : std::ldexp(1.0 + (x & 7) / 8.0, (x >> 3) - 7);
}

// D = (A·sfa)(B·sfb)ᵀ in fp64 from the dense A, factor j of a row covering K values [j·K/V, (j+1)·K/V).
std::vector<double> scaled_reference(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k,
                                     const std::vector<std::uint8_t>& sfa, const std::vector<std::uint8_t>& sfb,
                                     int vec, bool ue8m0) {
  if (!vec) return reference(a, b, m, n, k);
  std::vector<double> d(std::size_t(m) * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int kk = 0; kk < k; ++kk)
        d[std::size_t(i) * n + j] += double(a[std::size_t(i) * k + kk]) *
                                     scale_value(sfa[std::size_t(i) * vec + kk * vec / k], ue8m0) *
                                     double(b[std::size_t(j) * k + kk]) *
                                     scale_value(sfb[std::size_t(j) * vec + kk * vec / k], ue8m0);
  return d;
}

// Random factors: UE8M0 2^-1 .. 2^1, or UE4M3 1 .. 1.875.
std::vector<std::uint8_t> scale_bytes(int rows, int vec, bool ue8m0, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> e(-1, 1), mant(0, 7);
  std::vector<std::uint8_t> v(std::size_t(rows) * vec);
  for (auto& x : v) x = ue8m0 ? std::uint8_t(127 + e(rng)) : std::uint8_t(7 << 3 | mant(rng));
  return v;
}

std::uint32_t form_idesc(const Form& f, int n, int m = 128) {
  if (f.scale_vec) return mx_idesc({.n = n, .atype = f.atype, .btype = f.btype, .ue8m0 = f.ue8m0, .m = m}) | 1u << 2;
  return sparse_idesc({.m = m, .n = n, .dtype = 1, .atype = f.atype, .btype = f.btype});
}

// One sparse MMA, M = 128, N = 64, of the form: A from shared memory or (ts) Tensor Memory;
// ws: tcgen05.mma.ws.sp, whose D at M = 128 is Layout D as without .ws.
void run_one(const Form& f, bool ts, unsigned seed, bool ws = false) {
  CAPTURE(f.what);
  CAPTURE(ts);
  CAPTURE(ws);
  constexpr int M = 128, N = 64;
  const SparseA a = make_sparse(f, M, seed);
  std::mt19937 rng(seed + 1);
  std::vector<float> b(std::size_t(N) * a.K);
  for (float& x : b) x = value_for(f.b, rng);
  const bool packed = f.kind == MmaKind::mxf4 || f.kind == MmaKind::mxf4nvf4;
  const Canonical A{kA, M, a.K / 2, f.a, packed}, B{kB, N, a.K, f.b, packed};
  Kernel kn;
  stage_canonical(kn.cta, B, b);
  std::optional<std::uint32_t> a_tmem;
  if (ts) {  // 32 / bits values a cell, lower K in lower bits (tcgen05-facts-2.md §1.2)
    const int per_cell = 32 / bits(f.a), columns = a.K / 2 / per_cell;
    std::map<std::pair<int, int>, std::uint32_t> w;
    for (int r = 0; r < M; ++r)
      for (int kk = 0; kk < a.K / 2; ++kk)
        w[{r, kk / per_cell}] |= std::uint32_t(encode(f.a, a.kept[std::size_t(r) * a.K / 2 + kk]))
                                 << (bits(f.a) * (kk % per_cell));
    store_words(kn.cta, kn.tmem, 300, columns, w);
    a_tmem = kn.tmem + 300;
  } else {
    stage_canonical(kn.cta, A, a.kept);
  }
  store_metadata(kn.cta, kn.tmem, kMeta, a);
  std::vector<std::uint8_t> sfa, sfb;
  if (f.scale_vec) {
    sfa = scale_bytes(M, f.scale_vec, f.ue8m0, seed + 2);
    sfb = scale_bytes(N, f.scale_vec, f.ue8m0, seed + 3);
    store_scales(kn.cta, kn.tmem, kSfa, sfa, M, f.scale_vec);
    store_scales(kn.cta, kn.tmem, kSfb, sfb, N, f.scale_vec);
  }
  hand_to_issuer(kn.cta);
  MmaVariant v{.ws = ws, .scale_vec = f.scale_vec, .sp_meta_tmem = kn.tmem + kMeta};
  if (f.scale_vec) {
    v.scale_a_tmem = kn.tmem + kSfa;
    v.scale_b_tmem = kn.tmem + kSfb;
  }
  if (ts)
    kn.cta.mma_ts({0, 0}, f.kind, kn.tmem + kD, *a_tmem, B.desc(), form_idesc(f, N), false, CtaGroup::one, v);
  else
    kn.cta.mma_ss({0, 0}, f.kind, kn.tmem + kD, A.desc(), B.desc(), form_idesc(f, N), false, CtaGroup::one, v);
  kn.cta.commit({0, 0}, Kernel::kMbar);
  for (int w = 0; w < 4; ++w) kn.await(w, 0);
  const auto ref = scaled_reference(a.dense, b, M, N, a.K, sfa, sfb, f.scale_vec, f.ue8m0);
  CHECK(mismatches(read_d(kn.cta, kn.tmem + kD, M, N), ref) == 0);
  for (int w = 0; w < 4; ++w) kn.cta.wait_ld(w);
  kn.end();
}

using T = ElementType;
const Form kF16{MmaKind::f16, T::fp16, T::fp16, 0, 0, 0, true, "f16"};
const Form kBf16{MmaKind::f16, T::bf16, T::bf16, 1, 1, 0, true, "bf16"};
const Form kTf32{MmaKind::tf32, T::tf32, T::tf32, 2, 2, 0, true, "tf32"};
const Form kE4m3{MmaKind::f8f6f4, T::e4m3, T::e5m2, 0, 1, 0, true, "f8f6f4 e4m3 x e5m2"};
const Form kE2m1{MmaKind::f8f6f4, T::e2m1, T::e4m3, 5, 0, 0, true, "f8f6f4 e2m1 (padded) x e4m3"};
const Form kMx8{MmaKind::mxf8f6f4, T::e4m3, T::e4m3, 0, 0, 1, true, "mxf8f6f4 1X"};
const Form kMx4{MmaKind::mxf4, T::e2m1, T::e2m1, 1, 1, 2, true, "mxf4 2X"};
const Form kNv4{MmaKind::mxf4nvf4, T::e2m1, T::e2m1, 1, 1, 4, false, "mxf4nvf4 4X UE4M3"};

}  // namespace

TEST_CASE("a hand-made 2:4 A: every meaningful metadata entry, D against fp64 of the dense A") {
  // kind::f16 (fp16 → f32), M = 128, N = 8, K = 32: eight chunks of four a row, each entry of PTX's list
  // (#tcgen05-sparse-matrices-kind-f16-f8f8f4-mxf8f6f4) once, the eighth repeating the first. Row r keeps
  // values (r % 5 + 1)/4 · {1, -1, 2, ...}; the dense row is written out by hand from the entries.
  constexpr int M = 128, N = 8, K = 32;
  constexpr std::uint8_t kEntries[8] = {0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110, 0b0100};
  // Where each entry puts kept values 0 and 1 of its chunk: (0,1) (0,2) (0,3) (1,2) (1,3) (2,1) (2,3) (0,1).
  constexpr int kWhere[8][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 1}, {2, 3}, {0, 1}};
  SparseA a{M, K, std::vector<float>(std::size_t(M) * K, 0.0f), {}, {}};
  for (int r = 0; r < M; ++r)
    for (int j = 0; j < 8; ++j) {
      a.entries.push_back(kEntries[j]);
      for (int s = 0; s < 2; ++s) {
        const float v = float((r % 5 + 1) * (s ? -1 : 1) * (j % 3 + 1)) / 4.0f;
        a.kept.push_back(v);
        a.dense[std::size_t(r) * K + 4 * j + kWhere[j][s]] = v;
      }
    }
  // B: row n holds n + 1 at K position k when k % 4 == n % 4, else 1/4: each kept position weighs differently.
  std::vector<float> b(std::size_t(N) * K);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) b[std::size_t(n) * K + k] = k % 4 == n % 4 ? float(n + 1) : 0.25f;
  // Row 0 by hand: chunk j keeps v = (j%3+1)/4 at kWhere[j][0] and -v at kWhere[j][1], so D[0][n] =
  // Σ_j v (w(p0) - w(p1)), w(p) = n + 1 where p = n % 4, 1/4 elsewhere.
  //   n = 0: chunks 0, 1, 2, 7 start at position 0: 3/4 · (1/4 + 2/4 + 3/4 + 2/4) = 1.5.
  //   n = 1: chunk 0 (0,1) -1/4·7/4, chunk 3 (1,2) +1/4·7/4, chunk 4 (1,3) +2/4·7/4, chunk 5 (2,1) -3/4·7/4,
  //          chunk 7 (0,1) -2/4·7/4: -3/4 · 7/4 = -1.3125. Chunk 5's 0b0110 puts its first value at 2 and its
  //          second at 1; read the other way round it would add +3/4·7/4 and give +1.3125.
  const std::vector<double> ref = reference(a.dense, b, M, N, K);
  CHECK(ref[0] == 1.5);
  CHECK(ref[1] == -1.3125);
  Kernel kn;
  stage_canonical(kn.cta, {kA, M, K / 2, T::fp16}, a.kept);
  stage_canonical(kn.cta, {kB, N, K, T::fp16}, b);
  store_metadata(kn.cta, kn.tmem, kMeta, a);
  hand_to_issuer(kn.cta);
  kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem + kD, Canonical{kA, M, K / 2, T::fp16}.desc(),
                Canonical{kB, N, K, T::fp16}.desc(), sparse_idesc({.n = N, .dtype = 1, .atype = 0, .btype = 0}), false,
                CtaGroup::one, {.sp_meta_tmem = kn.tmem + kMeta});
  kn.cta.commit({0, 0}, Kernel::kMbar);
  for (int w = 0; w < 4; ++w) kn.await(w, 0);
  const std::vector<float> d = read_d(kn.cta, kn.tmem + kD, M, N);
  CHECK(d[0] == 1.5f);
  CHECK(d[1] == -1.3125f);
  CHECK(mismatches(d, ref) == 0);
  for (int w = 0; w < 4; ++w) kn.cta.wait_ld(w);
  kn.end();
}

TEST_CASE("random sparse A, every kind, A from shared and from Tensor Memory: D = dense A · B") {
  unsigned seed = 100;
  for (const Form& f : {kF16, kBf16, kTf32, kE4m3, kE2m1, kMx8, kMx4, kNv4}) run_one(f, false, seed++);
  // A in Tensor Memory: the 8-, 16- and 32-bit types (4-bit A in Tensor Memory is not modelled).
  for (const Form& f : {kF16, kBf16, kTf32, kE4m3, kMx8}) run_one(f, true, seed++);
  // tcgen05.mma.ws.sp (#tcgen05-mma-instructions-mma-ws-sp), M = 128: the metadata layout of Layout D.
  for (const Form& f : {kBf16, kE4m3}) run_one(f, false, seed++, true);
}

TEST_CASE("the sparsity selector picks the metadata column: CUTLASS's and JAX's K steps from one address") {
  // Four MMAs of K = 32 (kind::f16, bf16) along one 128-wide K, as CUTLASS and JAX issue them: the
  // metadata of step s in column kMeta + s (JAX's 128 × 64 tile, copied as 4 columns), step s
  // addressed as column kMeta + 2·(s/2) with selector s % 2; a tf32 pair of steps with selector 2 and 3.
  for (const Form& f : {kBf16, kTf32}) {
    CAPTURE(f.what);
    constexpr int M = 128, N = 16, steps = 4;
    const int k_step = 2 * dense_k(f), K = steps * k_step;
    std::vector<SparseA> parts;
    for (int s = 0; s < steps; ++s) parts.push_back(make_sparse(f, M, 40 + unsigned(s)));
    std::mt19937 rng(7);
    std::vector<float> dense(std::size_t(M) * K), b(std::size_t(N) * K);
    for (float& x : b) x = value_for(f.b, rng);
    Kernel kn;
    for (int s = 0; s < steps; ++s) {
      for (int r = 0; r < M; ++r)
        std::copy_n(parts[std::size_t(s)].dense.begin() + std::ptrdiff_t(r) * k_step, k_step,
                    dense.begin() + std::ptrdiff_t(r) * K + s * k_step);
      stage_canonical(kn.cta, {kA + 0x1000u * std::uint32_t(s), M, k_step / 2, f.a}, parts[std::size_t(s)].kept);
      std::vector<float> bs(std::size_t(N) * k_step);
      for (int n = 0; n < N; ++n)
        std::copy_n(b.begin() + std::ptrdiff_t(n) * K + s * k_step, k_step, bs.begin() + std::ptrdiff_t(n) * k_step);
      stage_canonical(kn.cta, {kB + 0x1000u * std::uint32_t(s), N, k_step, f.b}, bs);
      store_metadata(kn.cta, kn.tmem, int(kMeta) + s, parts[std::size_t(s)]);
    }
    hand_to_issuer(kn.cta);
    for (int s = 0; s < steps; ++s) {
      // tf32: the last two steps name kMeta itself with selector 2 and 3.
      const bool far = f.kind == MmaKind::tf32 && s >= 2;
      const std::uint32_t meta = kn.tmem + kMeta + (far ? 0u : std::uint32_t(2 * (s / 2)));
      kn.cta.mma_ss({0, 0}, f.kind, kn.tmem + kD, Canonical{kA + 0x1000u * std::uint32_t(s), M, k_step / 2, f.a}.desc(),
                    Canonical{kB + 0x1000u * std::uint32_t(s), N, k_step, f.b}.desc(),
                    sparse_idesc({.n = N, .dtype = 1, .atype = f.atype, .btype = f.btype}, far ? s : s % 2), s > 0,
                    CtaGroup::one, {.sp_meta_tmem = meta});
    }
    kn.cta.commit({0, 0}, Kernel::kMbar);
    for (int w = 0; w < 4; ++w) kn.await(w, 0);
    CHECK(mismatches(read_d(kn.cta, kn.tmem + kD, M, N), reference(dense, b, M, N, K)) == 0);
    for (int w = 0; w < 4; ++w) kn.cta.wait_ld(w);
    kn.end();
  }
}

TEST_CASE("a sparse pair MMA (M = 256, kind::f16 as CUTLASS's 83_blackwell_sparse_gemm): each CTA its rows' metadata") {
  // PTX #tcgen05-issue-granularity: CTA v holds rows [128v, 128v + 128) of A (stored half) and of D, and rows
  // [v·N/2, (v+1)·N/2) of B; its metadata lies in its own Tensor Memory at [sp-meta-tmem], as A would.
  constexpr int M = 256, N = 64;
  const SparseA a = make_sparse(kBf16, M, 77);
  std::mt19937 rng(78);
  std::vector<float> b(std::size_t(N) * a.K);
  for (float& x : b) x = value_for(T::bf16, rng);
  std::array<Cta, 2> cta{Cta(CtaConfig{.rank = 0}), Cta(CtaConfig{.rank = 1})};
  cta[0].pair_with(cta[1]);
  std::array<std::uint32_t, 2> tmem{};
  const Canonical A{kA, M / 2, a.K / 2, T::bf16}, B{kB, N / 2, a.K, T::bf16};
  for (int v = 0; v < 2; ++v) {
    Cta& c = cta[std::size_t(v)];
    c.alloc(0, Kernel::kTmemSlot, 512, CtaGroup::two);
    c.mbarrier_init({0, 0}, Kernel::kMbar, 1);
    c.bar_sync();
    tmem[std::size_t(v)] = c.ld_shared_u32(0, Kernel::kTmemSlot);
    SparseA half{M / 2, a.K, {}, {}, {}};
    const std::ptrdiff_t kept_rows = (M / 2) * a.K / 2, entry_rows = (M / 2) * 8, b_rows = (N / 2) * a.K;
    half.kept.assign(a.kept.begin() + v * kept_rows, a.kept.begin() + (v + 1) * kept_rows);
    half.entries.assign(a.entries.begin() + v * entry_rows, a.entries.begin() + (v + 1) * entry_rows);
    stage_canonical(c, A, half.kept);
    stage_canonical(c, B, {b.begin() + v * b_rows, b.begin() + (v + 1) * b_rows});
    store_metadata(c, tmem[std::size_t(v)], kMeta, half);
    for (int w = 0; w < 4; ++w) c.fence_before_thread_sync(w);
  }
  // Each CTA's stores reach the issuer of the even CTA through barrier.cluster, then its fence.
  Cta* both[] = {&cta[0], &cta[1]};
  Cta::cluster_barrier(both);
  cta[0].fence_after_thread_sync(0);
  cta[0].mma_ss({0, 0}, MmaKind::f16, tmem[0] + kD, A.desc(), B.desc(),
                sparse_idesc({.m = M, .n = N, .dtype = 1, .atype = 1, .btype = 1}), false, CtaGroup::two,
                {.sp_meta_tmem = tmem[0] + kMeta});
  for (Cta& c : cta) cta[0].commit({0, 0}, Kernel::kMbar, CtaGroup::two, &c);
  const std::vector<double> ref = reference(a.dense, b, M, N, a.K);
  for (int v = 0; v < 2; ++v) {
    Cta& c = cta[std::size_t(v)];
    for (int w = 0; w < 4; ++w) {
      REQUIRE(c.mbarrier_try_wait(w, Kernel::kMbar, 0));
      c.fence_after_thread_sync(w);
    }
    INFO("CTA of rank " << v);
    CHECK(mismatches(read_d(c, tmem[std::size_t(v)] + kD, 128, N),
                     {ref.begin() + std::ptrdiff_t(v) * 128 * N, ref.begin() + std::ptrdiff_t(v + 1) * 128 * N}) == 0);
    for (int w = 0; w < 4; ++w) c.wait_ld(w);
  }
  for (int v = 0; v < 2; ++v) {
    cta[std::size_t(v)].dealloc(0, tmem[std::size_t(v)], 512, CtaGroup::two);
    cta[std::size_t(v)].finish();
  }
}

TEST_CASE("sparse MMA rules: metadata values, metadata lane, the sparsity bit, written cells, allocation, shapes") {
  constexpr int M = 128, N = 64;
  const Canonical A{kA, M, 16, T::bf16}, B{kB, N, 32, T::bf16};
  const std::uint32_t id = sparse_idesc({.n = N});
  // A kernel with A and B staged and bf16 metadata at `column` (with `entry`, every entry that value).
  const auto setup = [&](Kernel& kn, int entry = -1, int column = kMeta) {
    SparseA a = make_sparse(kBf16, M, 5);
    if (entry >= 0) a.entries.assign(a.entries.size(), std::uint8_t(entry));
    stage_canonical(kn.cta, A, a.kept);
    stage_canonical(kn.cta, B, std::vector<float>(std::size_t(N) * 32, 1.0f));
    store_metadata(kn.cta, kn.tmem, column, a);
    hand_to_issuer(kn.cta);
  };
  const auto mma = [&](Kernel& kn, std::uint32_t idesc_bits, std::optional<std::uint32_t> meta) {
    kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem + kD, A.desc(), B.desc(), idesc_bits, false, CtaGroup::one,
                  {.sp_meta_tmem = meta});
  };
  SUBCASE("an entry PTX gives no meaning") {
    Kernel kn;
    setup(kn, 0b0000);  // both kept values in position 0
    expect_rule([&] { mma(kn, id, kn.tmem + kMeta); }, Rule::sparse_metadata_value,
                {"sp-meta entry of row 0, K chunk 0 = 0b0000", "lane 0, column 256, bits 0-3",
                 "#tcgen05-sparse-matrices-kind-f16-f8f8f4-mxf8f6f4"});
  }
  SUBCASE("0b0000 for a chunk of zeros, as CUTLASS's compressor writes it: a counted PTX letter") {
    // sm90_sparse_gemm_compressor.hpp leaves both indices 0 when a chunk of four holds no nonzero value;
    // 83_blackwell_sparse_gemm passes its own check on B200s with it. Row 3 keeps zeros in chunk 2.
    Kernel kn;
    SparseA a = make_sparse(kBf16, M, 8);
    a.entries[3 * 8 + 2] = 0b0000;
    a.kept[3 * 16 + 4] = a.kept[3 * 16 + 5] = 0.0f;
    for (int p = 0; p < 4; ++p) a.dense[3 * 32 + 8 + p] = 0.0f;
    stage_canonical(kn.cta, A, a.kept);
    std::mt19937 rng(9);
    std::vector<float> b(std::size_t(N) * 32);
    for (float& x : b) x = value_for(T::bf16, rng);
    stage_canonical(kn.cta, B, b);
    store_metadata(kn.cta, kn.tmem, kMeta, a);
    hand_to_issuer(kn.cta);
    expect_letter(kn.cta, [&] { mma(kn, id, kn.tmem + kMeta); }, Rule::sparse_metadata_zero_chunk,
                  {"row 3, K chunk 2 = 0b0000", "kept values are zero"});
    kn.cta.commit({0, 0}, Kernel::kMbar);
    for (int w = 0; w < 4; ++w) kn.await(w, 0);
    CHECK(mismatches(read_d(kn.cta, kn.tmem + kD, M, N), reference(a.dense, b, M, N, 32)) == 0);
    for (int w = 0; w < 4; ++w) kn.cta.wait_ld(w);
    kn.end();
  }
  SUBCASE("0b1000 is an f16 entry but not a tf32 one") {
    Kernel kn;
    SparseA a = make_sparse(kTf32, M, 6);
    a.entries[9] = 0b1000;  // row 1, chunk 1
    stage_canonical(kn.cta, {kA, M, 8, T::tf32}, a.kept);
    stage_canonical(kn.cta, {kB, N, 16, T::tf32}, std::vector<float>(std::size_t(N) * 16, 1.0f));
    store_metadata(kn.cta, kn.tmem, kMeta, a);
    hand_to_issuer(kn.cta);
    expect_rule([&] {
      kn.cta.mma_ss({0, 0}, MmaKind::tf32, kn.tmem + kD, Canonical{kA, M, 8, T::tf32}.desc(),
                    Canonical{kB, N, 16, T::tf32}.desc(), sparse_idesc({.n = N, .atype = 2, .btype = 2}), false,
                    CtaGroup::one, {.sp_meta_tmem = kn.tmem + kMeta});
    }, Rule::sparse_metadata_value,
                {"row 1, K chunk 1 = 0b1000", "0b0100 or 0b1110", "#tcgen05-sparse-matrices-kind-tf32"});
  }
  SUBCASE("the metadata of M = 128 starts at lane 0") {
    Kernel kn;
    setup(kn);
    expect_rule([&] { mma(kn, id, kn.tmem + taddr(32, kMeta)); }, Rule::sparse_metadata_lane,
                {"sp-meta-tmem lane = 32", "Layout D"});
  }
  SUBCASE("the idesc's sparsity bit and the spelling agree") {
    Kernel kn;
    setup(kn);
    expect_rule([&] { mma(kn, idesc({.n = N}), kn.tmem + kMeta); }, Rule::idesc_invalid,
                {"idesc.sparse = 0", "tcgen05.mma.sp.cta_group::1.kind::f16", "bit 2 must be 1"});
    expect_rule([&] { mma(kn, id, std::nullopt); }, Rule::idesc_invalid, {"idesc.sparse = 1", "needs tcgen05.mma.sp"});
  }
  SUBCASE("metadata never written") {
    Kernel kn;
    setup(kn);
    expect_rule([&] { mma(kn, id, kn.tmem + 400); }, Rule::uninitialized_tmem,
                {"lane 0, column 400", "reads sparsity metadata from it through [sp-meta-tmem]"});
  }
  SUBCASE("the selector's column outside the allocation") {
    Kernel kn(256);
    setup(kn, -1, 252);  // [sp-meta-tmem] 253 with selector 3 reads column 256, past the 256 allocated
    expect_rule([&] { mma(kn, sparse_idesc({.n = N}, 3), kn.tmem + 253); }, Rule::tmem_outside_allocation,
                {"column = 256"});
  }
  SUBCASE("kind::f8f6f4 reads all its columns: its selector must be 0") {
    Kernel kn;
    expect_rule([&] {
      kn.cta.mma_ss({0, 0}, MmaKind::f8f6f4, kn.tmem + kD, A.desc(), B.desc(),
                    sparse_idesc({.n = N, .atype = 0, .btype = 0}, 1), false, CtaGroup::one,
                    {.sp_meta_tmem = kn.tmem + kMeta});
    }, Rule::idesc_invalid, {"idesc.sparse_selector = 1", "kind::f8f6f4"});
  }
  SUBCASE("shapes: Layout F's metadata is not modelled; a sparse block-scaled pair is M = 256") {
    Kernel kn;
    expect_rule([&] { mma(kn, sparse_idesc({.m = 64, .n = N}), kn.tmem + kMeta); }, Rule::unsupported,
                {"idesc.m = 64", "Layout F"});
    std::array<Cta, 2> pair{Cta(CtaConfig{.rank = 0}), Cta(CtaConfig{.rank = 1})};
    pair[0].pair_with(pair[1]);
    for (Cta& c : pair) c.alloc(0, Kernel::kTmemSlot, 512, CtaGroup::two);
    expect_rule([&] { pair[0].mma_ss({0, 0}, MmaKind::f16, 0, A.desc(), B.desc(), sparse_idesc({.n = N}), false,
                                     CtaGroup::two, {.sp_meta_tmem = kMeta}); },
                Rule::unsupported, {"Layout C"});
    expect_rule([&] { pair[0].mma_ss({0, 0}, MmaKind::mxf8f6f4, 0, A.desc(), B.desc(), mx_idesc({.n = N}) | 1u << 2,
                                     false, CtaGroup::two, {.scale_vec = 1, .sp_meta_tmem = kMeta}); },
                Rule::idesc_invalid, {"expected M = 256 for a sparse kind::mxf8f6f4 with cta_group::2"});
  }
}
