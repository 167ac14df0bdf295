// The host model of TMA tiled loads (tcgen/model/tma.hpp), checked three ways:
//   - validate() against the cuTensorMapEncodeTiled rules of the CUDA Driver
//     API (../shared/reference/tcgen05-facts-2.md §5.1), one bad field each;
//   - tma_load() against addresses computed by hand from facts-2 §5.2 (linear
//     box image, dim 0 fastest; the swizzle XOR of tcgen05-facts.md §2.3 on
//     absolute addresses; zero fill; full-box transaction bytes);
//   - the cross-check: the image a box load writes equals the layout
//     library's canonical operand tile (SmemOperand::address) holding the same
//     elements, for K-major and MN-major, every swizzle, aligned and +384 bases.
#include "tcgen/model/tma.hpp"

#include <doctest/doctest.h>

#include "expect_error.hpp"
#include "tcgen/core/element_type.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "../shared/tma_tiles.hpp"
#include "tcgen/layout/smem_operand.hpp"

using namespace tcgen;
using tma::TensorMapSpec;
using tma::TmaSwizzle;

// tma_load takes the span's address as the map's global address, which must
// be 16-byte aligned: operator new gives that to every std::vector here.
static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= 16);

namespace {

// A 2D map over rows × cols elements, rows pitch bytes apart.
TensorMapSpec map_2d(std::uint32_t element_bytes, std::uint64_t cols, std::uint64_t rows, std::uint64_t pitch,
                     std::uint32_t box0, std::uint32_t box1, TmaSwizzle swizzle = TmaSwizzle::none) {
  TensorMapSpec s;
  s.element_bytes = element_bytes;
  s.rank = 2;
  s.global_dims = {cols, rows, 1, 1, 1};
  s.global_strides = {pitch, 0, 0, 0};
  s.box_dims = {box0, box1, 1, 1, 1};
  s.swizzle = swizzle;
  return s;
}

// Global bf16-sized values v(row, col) = 256·row + col + 1 (never 0, so a
// zero-filled element is told apart), little-endian, rows 2·cols bytes apart.
std::vector<std::uint8_t> numbered(int rows, int cols) {
  std::vector<std::uint8_t> g(static_cast<std::size_t>(2 * rows * cols));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const int v = 256 * r + c + 1;
      g[2 * (r * cols + c)] = static_cast<std::uint8_t>(v);
      g[2 * (r * cols + c) + 1] = static_cast<std::uint8_t>(v >> 8);
    }
  return g;
}
int value(int row, int col) { return 256 * row + col + 1; }
int at16(const std::vector<std::uint8_t>& image, int byte) { return image.at(byte) | image.at(byte + 1) << 8; }

}  // namespace

// ------------------------------------------------------------------ validate --

TEST_CASE("validate: a legal map passes, with the limits themselves") {
  TensorMapSpec s = map_2d(2, 256, 256, (std::uint64_t{1} << 40) - 16, 64, 256, TmaSwizzle::b128);
  s.global_dims[1] = std::uint64_t{1} << 32;
  s.element_strides = {1, 8, 1, 1, 1};
  CHECK_NOTHROW(s.validate(0x7f0000001000));
}

TEST_CASE("validate: each DRV rule of cuTensorMapEncodeTiled names its field") {
  const TensorMapSpec good = map_2d(2, 256, 64, 512, 64, 64, TmaSwizzle::b128);
  auto bad = [&](auto change, const char* field, std::uint64_t address = 0x1000) {
    TensorMapSpec s = good;
    change(s);
    expect_error([&] { s.validate(address); }, field);
  };
  bad([](TensorMapSpec& s) { s.element_bytes = 3; }, "element_bytes");
  bad([](TensorMapSpec& s) { s.rank = 0; }, "rank");
  bad([](TensorMapSpec& s) { s.rank = 6; }, "rank");
  bad([](TensorMapSpec&) {}, "global_address", 0x1008);  // "must be 16 byte aligned"
  bad([](TensorMapSpec& s) { s.global_dims[1] = 0; }, "global_dims[1]");
  bad([](TensorMapSpec& s) { s.global_dims[0] = (std::uint64_t{1} << 32) + 1; }, "global_dims[0]");
  bad([](TensorMapSpec& s) { s.global_strides[0] = 520; }, "global_strides[0]");  // "a multiple of 16"
  bad([](TensorMapSpec& s) { s.global_strides[0] = std::uint64_t{1} << 40; }, "global_strides[0]");  // "less than 2^40"
  bad([](TensorMapSpec& s) { s.box_dims[1] = 0; }, "box_dims[1]");
  bad([](TensorMapSpec& s) { s.box_dims[1] = 257; }, "box_dims[1]");
  bad([](TensorMapSpec& s) { s.box_dims[0] = 60; }, "box_dims[0]");  // 120 B: not a multiple of 16
  bad([](TensorMapSpec& s) { s.swizzle = TmaSwizzle::b64; }, "box_dims[0]");  // 128 B inner box > 64-byte span
  bad([](TensorMapSpec& s) { s.swizzle = TmaSwizzle::b32; }, "box_dims[0]");
  bad([](TensorMapSpec& s) { s.element_strides[1] = 0; }, "element_strides[1]");
  bad([](TensorMapSpec& s) { s.element_strides[1] = 9; }, "element_strides[1]");
  bad([](TensorMapSpec& s) { s.oob_fill = tma::TmaOobFill::nan_request_zero_fma; }, "oob_fill");
  // Entries at and beyond rank are not arguments of the map.
  TensorMapSpec s = good;
  s.box_dims[2] = 0;
  s.global_dims[3] = 0;
  CHECK_NOTHROW(s.validate(0x1000));
  // A swizzle span holds smaller inner boxes (DRV: "<= the swizzle size").
  s.box_dims[0] = 8;
  CHECK_NOTHROW(s.validate(0x1000));
}

TEST_CASE("8-byte elements (INT64, as FlashMLA moves 8 e4m3 bytes at once): the bytes of the 1-byte view") {
  // A 448-byte row is 56 INT64 elements, one box (boxDim <= 256); FlashMLA's
  // MODEL1 decode loads each key's nope bytes so. The same rows through a
  // UINT8 map (boxes of 224) land on the same bytes.
  std::vector<std::uint8_t> g(3 * 576);
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = static_cast<std::uint8_t>(i * 7 + 3);
  const auto wide = map_2d(8, 56, 3, 576, 56, 1);
  CHECK_NOTHROW(wide.validate(0x1000));
  CHECK(wide.box_bytes() == 448);
  std::vector<std::uint8_t> a(448, 0xEE), lo(224, 0xEE), hi(224, 0xEE);
  CHECK(model::tma_load(wide, g, {0, 2, 0, 0, 0}, a, 0, 0) == 448);
  const auto narrow = map_2d(1, 448, 3, 576, 224, 1);
  CHECK(model::tma_load(narrow, g, {0, 2, 0, 0, 0}, lo, 0, 0) == 224);
  CHECK(model::tma_load(narrow, g, {224, 2, 0, 0, 0}, hi, 0, 0) == 224);
  CHECK(std::equal(lo.begin(), lo.end(), a.begin()));
  CHECK(std::equal(hi.begin(), hi.end(), a.begin() + 224));
  CHECK(a[0] == g[2 * 576]);
  CHECK(a[447] == g[2 * 576 + 447]);
  // Past the tensor: whole 8-byte elements of zeros.
  std::vector<std::uint8_t> c(448, 0xEE);
  CHECK(model::tma_load(wide, g, {50, 2, 0, 0, 0}, c, 0, 0) == 448);
  CHECK(c[6 * 8 - 1] == g[2 * 576 + 447]);
  CHECK(c[6 * 8] == 0);
  CHECK(c[447] == 0);
}

TEST_CASE("packed 4- and 6-bit types: 16-value chunks packed in global memory, padded to 16 bytes in shared") {
  // DRV (cuTensorMapEncodeTiled): 16U4_ALIGN8B "copies '16 x U4' packed values to memory aligned as 8
  // bytes. There are no gaps"; 16U4_ALIGN16B leaves "8 byte gaps between every 8 byte chunk";
  // 16U6_ALIGN16B "4 byte gaps between every 12 byte chunk". Transaction bytes: the packed bytes
  // (CUTLASS's block-scaled TmaTransactionBytes: elements × 4 or 6 bits).
  alignas(32) std::array<std::uint8_t, 4 * 512> g;  // 4 rows of 512 bytes; ALIGN16B needs 32-byte addresses
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = static_cast<std::uint8_t>(i * 13 + 5);
  auto packed_map = [](int type, std::uint64_t cols, std::uint32_t box0) {
    TensorMapSpec s = map_2d(1, cols, 4, 512, box0, 2);
    s.data_type = type;
    return s;
  };
  // ALIGN8B: 256 values of row 1 from value 64 on: bytes 32 .. 159 of the row, packed.
  const auto u4 = packed_map(13, 1024, 256);
  CHECK(u4.box_bytes() == 256);
  std::vector<std::uint8_t> a(512, 0xEE);
  CHECK(model::tma_load(u4, g, {64, 1, 0, 0, 0}, a, 0, 0) == 256);
  CHECK(a[0] == g[512 + 32]);
  CHECK(a[127] == g[512 + 159]);
  CHECK(a[128] == g[1024 + 32]);  // the box's second row
  // ALIGN16B: 128 values (64 bytes) of row 0 land as 8 chunks of 8 bytes, 16 bytes apart.
  const auto u4p = packed_map(14, 1024, 128);
  CHECK(u4p.box_bytes() == 256);
  CHECK(u4p.transaction_bytes() == 128);
  std::vector<std::uint8_t> b(256, 0xEE);
  CHECK(model::tma_load(u4p, g, {128, 0, 0, 0, 0}, b, 0, 0) == 128);
  CHECK(b[0] == g[64]);
  CHECK(b[7] == g[71]);
  CHECK(b[8] == 0xEE);  // the gap is left alone
  CHECK(b[16] == g[72]);
  CHECK(b[128] == g[512 + 64]);
  // U6_ALIGN16B: 12-byte chunks, 4-byte gaps; row 0 holds 512 · 8 / 6 values, rounded to chunks.
  const auto u6 = packed_map(15, 640, 128);
  CHECK(u6.transaction_bytes() == 2 * 96);
  std::vector<std::uint8_t> c(256, 0xEE);
  CHECK(model::tma_load(u6, g, {128, 0, 0, 0, 0}, c, 0, 0) == 192);
  CHECK(c[0] == g[96]);
  CHECK(c[11] == g[107]);
  CHECK(c[12] == 0xEE);
  CHECK(c[16] == g[108]);
  // Out of the tensor: whole chunks of zeros (640 values end at chunk 40 of the row).
  std::vector<std::uint8_t> d(256, 0xEE);
  model::tma_load(u6, g, {576, 0, 0, 0, 0}, d, 0, 0);
  CHECK(d[3 * 16 + 11] == g[(576 / 16 + 3) * 12 + 11]);
  CHECK(d[4 * 16] == 0);
  CHECK(d[4 * 16 + 12] == 0xEE);
  // The DRV rules of the packed types, and a box starting inside a unit.
  expect_error([&] { packed_map(14, 1000, 128).validate(0x1000); }, "global_dims[0]");
  expect_error([&] { packed_map(14, 1024, 64).validate(0x1000); }, "box_dims[0]");
  expect_error([&] { packed_map(15, 1024, 128).validate(0x1010); }, "global_address");
  auto stride16 = packed_map(14, 1024, 128);
  stride16.global_strides[0] = 528;
  expect_error([&] { stride16.validate(0x1000); }, "global_strides[0]");
  CHECK_NOTHROW(packed_map(13, 1024, 32).validate(0x1010));
  expect_error([&] { model::tma_load(u4p, g, {8, 0, 0, 0, 0}, b, 0, 0); }, "coords[0]");
}

TEST_CASE("touched bytes: what a box reads, the elements inside the tensor alone") {
  const auto s = map_2d(2, 100, 10, 256, 32, 4);
  CHECK(s.touched_bytes({0, 0, 0, 0, 0}) == std::array<std::uint64_t, 2>{0, 3 * 256 + 64});
  CHECK(s.touched_bytes({90, 8, 0, 0, 0}) == std::array<std::uint64_t, 2>{8 * 256 + 180, 9 * 256 + 200});
  CHECK(s.touched_bytes({-8, -2, 0, 0, 0}) == std::array<std::uint64_t, 2>{0, 256 + 48});
  const auto none = s.touched_bytes({100, 0, 0, 0, 0});
  CHECK(none[0] == none[1]);
  // Element strides: rows 1, 4, 7 of a box of 3 (boxDim 9, stride 3) from row 1, rows 8+ outside a 6-row tensor.
  auto strided = map_2d(2, 100, 6, 256, 32, 9);
  strided.element_strides = {1, 3, 1, 1, 1};
  CHECK(strided.touched_bytes({0, 1, 0, 0, 0}) == std::array<std::uint64_t, 2>{256, 4 * 256 + 64});
}

TEST_CASE("box extents and transaction bytes: ceil(boxDim/elementStrides), entry 0 ignored") {
  TensorMapSpec s = map_2d(2, 16, 16, 32, 8, 4);
  CHECK(s.box_bytes() == 64);
  s.element_strides = {4, 3, 1, 1, 1};  // DRV: "the first element of this array is ignored"
  CHECK(s.box_extent(0) == 8);
  CHECK(s.box_extent(1) == 2);  // ceil(4 / 3)
  CHECK(s.box_bytes() == 32);
  CHECK(s.box_extent(2) == 1);  // beyond rank
}

// ------------------------------------------------------------ hand examples --

TEST_CASE("tma_load, no swizzle: element (x0, x1) at 2·(x0 + 8·x1), dim 0 fastest") {
  const auto g = numbered(4, 16);  // 4 rows × 16 values, pitch 32 B
  std::vector<std::uint8_t> image(256, 0xEE);
  const auto s = map_2d(2, 16, 4, 32, 8, 2);
  CHECK(model::tma_load(s, g, {4, 1, 0, 0, 0}, image, 0, 0) == 32);
  CHECK(at16(image, 0) == value(1, 4));
  CHECK(at16(image, 22) == value(2, 7));  // x0 = 3, x1 = 1
  CHECK(image[32] == 0xEE);               // nothing past the box
}

TEST_CASE("tma_load, 128B swizzle: the pattern follows the absolute shared address") {
  const auto g = numbered(8, 64);  // 8 rows of 128 B
  const auto s = map_2d(2, 64, 8, 128, 64, 8, TmaSwizzle::b128);
  std::vector<std::uint8_t> image(4096, 0xEE);
  CHECK(model::tma_load(s, g, {}, image, 0, 1024) == 1024);
  // (3, 10): linear 3·128 + 20, chunk 1 of line 3 -> chunk 1 ^ 3 = 2.
  CHECK(at16(image, 1024 + 3 * 128 + 2 * 16 + 4) == value(3, 10));
  CHECK(at16(image, 1024) == value(0, 0));

  // At 1024 + 384 the box starts on line 11, phase 11 % 8 = 3: no re-anchoring at the box start.
  std::fill(image.begin(), image.end(), 0xEE);
  model::tma_load(s, g, {}, image, 0, 1408);
  CHECK(at16(image, 1408 + 16 * (0 ^ 3)) == value(0, 0));
  CHECK(at16(image, 1408 + 16 * (1 ^ 3)) == value(0, 8));
  CHECK(at16(image, 1920 + 16 * (1 ^ 7)) == value(4, 8));  // row 4 at 1920 = line 15, phase 7
  CHECK(at16(image, 2048) == value(5, 0));                  // row 5 at 2048 = line 16, phase 0
  // The image base only says where the image lies; the same load into an image at 1024 writes the same bytes.
  std::vector<std::uint8_t> shifted(3072, 0xEE);
  model::tma_load(s, g, {}, shifted, 1024, 1408);
  CHECK(std::equal(shifted.begin(), shifted.end(), image.begin() + 1024));
}

TEST_CASE("tma_load, 32B, 64B and 128B_atom32B swizzles") {
  const auto g = numbered(8, 64);
  std::vector<std::uint8_t> image(1024, 0xEE);
  // 32B: rows of 32 B; bit 4 ^= bit 7. Row 4 is at 128: its two chunks swap.
  model::tma_load(map_2d(2, 64, 8, 128, 16, 8, TmaSwizzle::b32), g, {}, image, 0, 0);
  CHECK(at16(image, 96) == value(3, 0));
  CHECK(at16(image, 128 + 16) == value(4, 0));
  CHECK(at16(image, 128) == value(4, 8));
  // 64B: rows of 64 B; bits 4-5 ^= bits 7-8. (6, 8): linear 400, chunk 1 of line 3 -> chunk 2.
  model::tma_load(map_2d(2, 64, 8, 128, 32, 8, TmaSwizzle::b64), g, {}, image, 0, 0);
  CHECK(at16(image, 64) == value(1, 0));
  CHECK(at16(image, 384 + 32) == value(6, 8));
  // 128B_atom32B: 32-byte units, bits 5-6 ^= bits 7-8. tf32 rows of 128 B:
  // unit 0 of line 1 -> unit 1; unit 1 of line 3 -> unit 2.
  std::vector<std::uint8_t> g32(8 * 128);
  for (std::size_t i = 0; i < g32.size(); ++i) g32[i] = static_cast<std::uint8_t>(i / 4);  // element index (mod 256)
  model::tma_load(map_2d(4, 32, 8, 128, 32, 4, TmaSwizzle::b128_atom32b), g32, {}, image, 0, 0);
  CHECK(image[128 + 32] == 32);       // (1, 0)
  CHECK(image[384 + 64] == 96 + 8);   // (3, 8)
  CHECK(image[384 + 32] == 96 + 16);  // (3, 16): unit 2 -> 1
}

TEST_CASE("tma_load: a row narrower than the swizzle span is padded to the span") {
  // Seen on an H200 (tests/device/tma_sm90.cu): a 64-byte row under 128B swizzle
  // leaves the other 64 bytes of its 128-byte line untouched.
  const auto g = numbered(8, 64);
  const auto s = map_2d(2, 64, 8, 128, 32, 4, TmaSwizzle::b128);
  CHECK(s.smem_row_bytes() == 128);
  CHECK(map_2d(2, 64, 8, 128, 32, 4).smem_row_bytes() == 64);  // no swizzle: rows packed
  std::vector<std::uint8_t> image(1024, 0xEE);
  CHECK(model::tma_load(s, g, {}, image, 0, 0) == 256);  // transaction bytes: the box, not the padding
  CHECK(at16(image, 48) == value(0, 24));
  CHECK(image[64] == 0xEE);
  CHECK(at16(image, 128 + 16 * (0 ^ 1)) == value(1, 0));  // row 1 on line 1, phase 1
  CHECK(at16(image, 128 + 16 * (1 ^ 1)) == value(1, 8));
  CHECK(at16(image, 384 + 16 * (3 ^ 3)) == value(3, 24));  // row 3 on line 3, phase 3
  CHECK(std::all_of(image.begin() + 384 + 64, image.begin() + 512, [](std::uint8_t b) { return b == 0xEE; }));
}

TEST_CASE("tma_load: out-of-bounds elements are zeros, negative coordinates allowed, full-box bytes") {
  const auto g = numbered(4, 16);
  const auto s = map_2d(2, 16, 4, 32, 8, 2);
  std::vector<std::uint8_t> image(64, 0xEE);
  // Box at (12, 3): columns 16..19 and row 4 lie outside.
  CHECK(model::tma_load(s, g, {12, 3, 0, 0, 0}, image, 0, 0) == 32);
  CHECK(at16(image, 2 * 3) == value(3, 15));
  CHECK(at16(image, 2 * 4) == 0);
  CHECK(at16(image, 2 * 8) == 0);  // (0, 1): row 4
  // Box at (-2, -1): row -1 and columns -2, -1 lie outside.
  CHECK(model::tma_load(s, g, {-2, -1, 0, 0, 0}, image, 0, 0) == 32);
  CHECK(at16(image, 2 * 2) == 0);                // (2, 0): row -1
  CHECK(at16(image, 2 * (1 + 8)) == 0);          // (1, 1): column -1
  CHECK(at16(image, 2 * (2 + 8)) == value(0, 0));
  CHECK(at16(image, 2 * (7 + 8)) == value(0, 5));
  // Wholly outside: every byte zero, and still the full box counted (facts-2 §5.2, as CUTLASS expects).
  CHECK(model::tma_load(s, g, {100, -50, 0, 0, 0}, image, 0, 0) == 32);
  CHECK(std::all_of(image.begin(), image.begin() + 32, [](std::uint8_t b) { return b == 0; }));
  CHECK(image[32] == 0xEE);
}

TEST_CASE("tma_load: element strides on dim 1 take every n-th row") {
  const auto g = numbered(8, 16);
  auto s = map_2d(2, 16, 8, 32, 8, 4);
  s.element_strides = {1, 2, 1, 1, 1};
  std::vector<std::uint8_t> image(64, 0xEE);
  CHECK(model::tma_load(s, g, {0, 1, 0, 0, 0}, image, 0, 0) == 32);
  CHECK(at16(image, 0) == value(1, 0));
  CHECK(at16(image, 16 + 2) == value(3, 1));
  CHECK(image[32] == 0xEE);
}

TEST_CASE("tma_store: the box written back where tma_load read it, out-of-bounds elements not written") {
  // Box at (12, 3) of a 16 × 4 tensor: columns 16..19 and row 4 lie outside (as above).
  const auto g = numbered(4, 16);
  const auto s = map_2d(2, 16, 4, 32, 8, 2);
  std::vector<std::uint8_t> image(64, 0xEE);
  model::tma_load(s, g, {12, 3, 0, 0, 0}, image, 0, 0);
  std::vector<std::uint8_t> out(g.size(), 0x55);
  CHECK(model::tma_store(s, out, {12, 3, 0, 0, 0}, image, 0, 0) == 2 * 4);  // row 3, columns 12..15
  for (std::size_t i = 0; i < g.size(); i += 2) {
    const std::size_t row = i / 32, col = i % 32 / 2;
    const bool in_box = row == 3 && col >= 12;
    CAPTURE(row);
    CAPTURE(col);
    CHECK(at16(out, i) == (in_box ? at16(g, i) : 0x5555));
  }
  // Swizzled and at a shifted base: store(load(x)) = x over a whole in-bounds box, nothing else.
  const auto big = numbered(64, 64);
  const auto sw = map_2d(2, 64, 64, 128, 64, 16, TmaSwizzle::b128);
  std::vector<std::uint8_t> smem(4096 + 2048, 0);
  model::tma_load(sw, big, {0, 8, 0, 0, 0}, smem, 0, 1024);
  std::vector<std::uint8_t> back(big.size(), 0);
  CHECK(model::tma_store(sw, back, {0, 8, 0, 0, 0}, smem, 0, 1024) == 64 * 16 * 2);
  for (std::size_t row = 0; row < 64; ++row) {
    const bool in_box = row >= 8 && row < 24;
    CAPTURE(row);
    CHECK(std::equal(back.begin() + row * 128, back.begin() + row * 128 + 128,
                     in_box ? big.begin() + row * 128 : std::vector<std::uint8_t>(128, 0).begin()));
  }
  expect_error([&] { model::tma_store(sw, back, {0, 0, 0, 0, 0}, smem, 0, 1040); }, "src_address");
}

TEST_CASE("tma_load: bad destinations, tensors and maps name their field") {
  const auto g = numbered(8, 64);
  const auto s = map_2d(2, 64, 8, 128, 64, 8, TmaSwizzle::b128);
  std::vector<std::uint8_t> image(2048);
  expect_error([&] { model::tma_load(s, g, {}, image, 0, 64); }, "dst_address");    // not 128-byte aligned
  expect_error([&] { model::tma_load(s, g, {}, image, 0, 1152); }, "dst_address");  // 1 KiB box ends past 2048
  expect_error([&] { model::tma_load(s, g, {}, image, 1024, 896); }, "dst_address");  // starts before the image
  // Linear bytes inside the image, but the swizzle moves them out: a 32-byte
  // row on line 7 (phase 7) lands at 896 + 16 · (0 ^ 7) = 1008 > 928.
  std::vector<std::uint8_t> short_image(928);
  expect_error([&] { model::tma_load(map_2d(2, 64, 8, 128, 16, 1, TmaSwizzle::b128), g, {}, short_image, 0, 896); },
               "dst_address");
  expect_error([&] { model::tma_load(s, std::span(g).first(1000), {}, image, 0, 0); }, "global");
  expect_error([&] { model::tma_load(s, std::span(g).subspan(8), {}, image, 0, 0); }, "global_address");
  auto bad = s;
  bad.box_dims[0] = 65;
  expect_error([&] { model::tma_load(bad, g, {}, image, 0, 0); }, "box_dims[0]");
}

// --------------------------------------------- cross-check with tcgen::layout --

namespace {

using test_tma::box_map;
using test_tma::Matrix;
using test_tma::random_matrix;
using test_tma::Tile;
using layout::Int;
using layout::Major;
using layout::SmemSwizzle;

constexpr std::uint8_t kUntouched = 0xA5;

// Index of the first differing byte, -1 if none.
Int first_difference(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  const auto p = std::mismatch(a.begin(), a.end(), b.begin());
  return p.first == a.end() ? -1 : p.first - a.begin();
}

std::vector<Tile> all_tiles() {
  std::vector<Tile> tiles;
  const std::pair<SmemSwizzle, TmaSwizzle> swizzles[] = {
      {SmemSwizzle::none, TmaSwizzle::none}, {SmemSwizzle::b32, TmaSwizzle::b32},
      {SmemSwizzle::b64, TmaSwizzle::b64}, {SmemSwizzle::b128, TmaSwizzle::b128}};
  for (std::uint32_t e : {1u, 2u, 4u})
    for (const auto& [sw, tma] : swizzles) {
      const Int T = 16 / e, span_elems = layout::swizzle_bytes(sw) / e;
      tiles.push_back({Major::K, sw, tma, e, 64, sw == SmemSwizzle::none ? 2 * T : span_elems});
      if (e < 4) tiles.push_back({Major::MN, sw, tma, e, sw == SmemSwizzle::none ? 64 : span_elems, 32});
    }
  // tf32 MN-major exists only as 128B with 32-byte atoms (PTX Table 52), TMA's 128B_ATOM_32B.
  tiles.push_back({Major::MN, SmemSwizzle::b128_base32b, TmaSwizzle::b128_atom32b, 4, 32, 32});
  return tiles;
}

constexpr Int kImageBase = 0x2000, kImageBytes = 16384;

}  // namespace

TEST_CASE("cross-check: a box load writes the layout library's canonical operand tile") {
  std::mt19937 rng(20261130);
  int checked = 0;
  for (const Tile& t : all_tiles()) {
    const Matrix m = random_matrix(t.e, 208, 104, rng);  // 208 and 104: multiples of every T and of 8
    const Int T = 16 / t.e;
    const layout::SmemOperand operand = t.operand();
    // In bounds; hanging over the far edges; starting before both near edges.
    for (const auto& [c0, s0] : {std::pair<Int, Int>{32, 8}, {m.contig - T, 80}, {-T, -8}})
      for (Int dst : {kImageBase + 1024, kImageBase + 1024 + 384}) {
        CAPTURE(layout::name(t.major));
        CAPTURE(layout::name(t.swizzle));
        CAPTURE(t.e);
        CAPTURE(c0);
        CAPTURE(s0);
        CAPTURE(dst);
        std::array<std::int32_t, 5> coords{};
        const TensorMapSpec spec = box_map(m, t, c0, s0, coords);
        std::vector<std::uint8_t> image(kImageBytes, kUntouched);
        const std::uint32_t tx = model::tma_load(spec, m.bytes, coords, image, kImageBase, static_cast<std::uint32_t>(dst));
        CHECK(tx == t.rows * t.cols * t.e);
        CHECK(first_difference(image, test_tma::layout_image(m, t, operand, c0, s0, kImageBase, kImageBytes, dst, layout::SwizzleAnchor::absolute, kUntouched)) == -1);
        ++checked;
      }
  }
  CHECK(checked == 21 * 6);  // 21 tiles × 3 origins × 2 bases
}

TEST_CASE("cross-check can fail: another swizzle, or a pattern anchored at the tile, is a different image") {
  std::mt19937 rng(7);
  const Tile t{Major::K, SmemSwizzle::b128, TmaSwizzle::b128, 2, 64, 64};
  const Matrix m = random_matrix(2, 208, 104, rng);
  std::array<std::int32_t, 5> coords{};
  const TensorMapSpec spec = box_map(m, t, 32, 8, coords);
  std::vector<std::uint8_t> image(kImageBytes, kUntouched);
  const Int dst = kImageBase + 1024 + 384;
  model::tma_load(spec, m.bytes, coords, image, kImageBase, static_cast<std::uint32_t>(dst));
  const Tile other{Major::K, SmemSwizzle::b64, TmaSwizzle::b64, 2, 64, 64};
  CHECK(first_difference(image, test_tma::layout_image(m, t, other.operand(), 32, 8, kImageBase, kImageBytes, dst, layout::SwizzleAnchor::absolute, kUntouched)) != -1);
  CHECK(first_difference(image, test_tma::layout_image(m, t, t.operand(), 32, 8, kImageBase, kImageBytes, dst, layout::SwizzleAnchor::tile, kUntouched)) != -1);
}

// ------------------------------------------------------------------ gather4 --

TEST_CASE("tile::gather4: four rows by index into four box rows, swizzled on the absolute address, zeros outside") {
  // A 40 × 104 bf16 tensor; the map's box is one row of 64 (128 bytes), 128B swizzle.
  const int rows = 40, cols = 104;
  const std::vector<std::uint8_t> g = numbered(rows, cols);
  const TensorMapSpec s = map_2d(2, cols, rows, 2 * cols, 64, 1, TmaSwizzle::b128);
  // Rows 7, 39, 7 again and 40 (past the tensor: zeros), from column 50 (columns 104+ are zeros too).
  const std::array<std::int32_t, 4> picked{7, 39, 7, 40};
  const std::uint32_t base = 0x400, dst = 0x800 + 3 * 128;  // the fourth 128-byte line of a 1024-byte period
  std::vector<std::uint8_t> image(4096, 0xEE);
  const std::uint32_t bytes = model::tma_load_gather4(s, g, 50, picked, image, base, dst);
  CHECK(bytes == 4 * 128);
  int wrong = 0;
  for (int i = 0; i < 4; ++i)
    for (int x = 0; x < 64; ++x) {
      // Row i of the window is line dst + 128·i; the 16-byte chunk moves by bits 7-9 of that address.
      const std::uint32_t line = dst + 128u * static_cast<std::uint32_t>(i), off = 2u * static_cast<std::uint32_t>(x);
      const std::uint32_t at = line + (off ^ (((line >> 7) & 7u) << 4));
      const int col = 50 + x, row = picked[static_cast<std::size_t>(i)];
      const int want = row < rows && col < cols ? value(row, col) : 0;
      wrong += at16(image, static_cast<int>(at - base)) != want;
    }
  CHECK(wrong == 0);
  // Bytes outside the four lines are untouched.
  CHECK(std::count(image.begin(), image.end(), std::uint8_t{0xEE}) == static_cast<long>(image.size() - 512));

  TensorMapSpec two_rows = s;
  two_rows.box_dims[1] = 2;
  CHECK(message_of<Error>([&] { model::tma_load_gather4(two_rows, g, 0, picked, image, base, dst); })
            .find("box_dims[1] = 2 is invalid: 1: tile::gather4's map names one row") != std::string::npos);
}

TEST_CASE("tma_store with a reduction: floats add to nearest even by the map's type; undefined pairs refused") {
  // PTX #data-movement-and-conversion-instructions-cp-reduce-async-bulk-tensor. One row of four.
  const auto bits16 = [](ElementType t, float x) { return static_cast<std::uint16_t>(encode(t, x)); };
  for (const auto& [type, data_type] : {std::pair{ElementType::bf16, 9}, std::pair{ElementType::fp16, 6}}) {
    CAPTURE(name(type));
    TensorMapSpec s = map_2d(2, 8, 1, 16, 8, 1);  // 16 bytes: the smallest box row
    s.data_type = data_type;
    // Half an ulp of 1: 2^-8 for bf16 (8 bits), 2^-11 for fp16 (11 bits). The fourth element: 1 + 0.5.
    const float half_ulp = type == ElementType::bf16 ? 0x1p-8f : 0x1p-11f;
    const std::uint16_t g[8] = {bits16(type, 1.0f), bits16(type, 1.0f + 2 * half_ulp), bits16(type, 3.0f),
                                bits16(type, 1.0f)};
    const std::uint16_t smem_values[8] = {bits16(type, half_ulp), bits16(type, half_ulp), bits16(type, -1.0f),
                                          bits16(type, 0.5f)};
    std::vector<std::uint8_t> global(16), smem(16);
    std::memcpy(global.data(), g, 16);
    std::memcpy(smem.data(), smem_values, 16);
    CHECK(model::tma_store(s, global, {0, 0, 0, 0, 0}, smem, 0, 0, model::TmaReduce::add) == 16);
    std::uint16_t out[8];
    std::memcpy(out, global.data(), 16);
    CHECK(decode(type, out[0]) == 1.0f);                     // 1 + half an ulp: a tie, to even (1)
    CHECK(decode(type, out[1]) == 1.0f + 4 * half_ulp);      // 1 + 3 half ulps: a tie, to even (1 + 2 ulp)
    CHECK(decode(type, out[2]) == 2.0f);
    CHECK(decode(type, out[3]) == 1.5f);
  }
  TensorMapSpec f = map_2d(4, 4, 1, 16, 4, 1);
  f.data_type = 7;  // FLOAT32: and is not defined on it
  std::vector<std::uint8_t> global(16), smem(16);
  expect_error([&] { model::tma_store(f, global, {0, 0, 0, 0, 0}, smem, 0, 0, model::TmaReduce::and_); },
               "data_type");
  // A spec built without a type (a HostArch map; an encoded map always holds one): nothing to combine by.
  f.data_type = -1;
  expect_error([&] { model::tma_store(f, global, {0, 0, 0, 0, 0}, smem, 0, 0, model::TmaReduce::add); },
               "data_type");
}

// ------------------------------------------------------------------- im2col --

namespace {

// An NHWC tensor of 2-byte values v(n, h, w, c) = 4096·n + 256·h + 16·w + c + 1 (never 0), C = 8
// channels (one 16-byte row a pixel), as a rank-4 im2col map (C, W, H, N).
struct Nhwc {
  int n, h, w;
  static constexpr int kC = 8;
  std::vector<std::uint8_t> bytes;
  Nhwc(int n_, int h_, int w_) : n(n_), h(h_), w(w_), bytes(static_cast<std::size_t>(2 * n_ * h_ * w_ * kC)) {
    for (int i = 0; i < n; ++i)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          for (int c = 0; c < kC; ++c) {
            const int v = value(i, y, x, c), at = 2 * (((i * h + y) * w + x) * kC + c);
            bytes[at] = static_cast<std::uint8_t>(v);
            bytes[at + 1] = static_cast<std::uint8_t>(v >> 8);
          }
  }
  static int value(int i, int y, int x, int c) { return 4096 * i + 256 * y + 16 * x + c + 1; }
  TensorMapSpec map(std::array<std::int32_t, 2> lower, std::array<std::int32_t, 2> upper, std::uint32_t pixels,
                    std::array<std::uint32_t, 2> stride = {1, 1}) const {
    TensorMapSpec s;
    s.element_bytes = 2;
    s.rank = 4;
    s.global_dims = {kC, std::uint64_t(w), std::uint64_t(h), std::uint64_t(n), 1};
    s.global_strides = {2 * kC, std::uint64_t(2 * kC * w), std::uint64_t(2 * kC * w * h), 0};
    s.element_strides = {1, stride[0], stride[1], 1, 1};
    s.im2col = {.on = true, .lower_corner = {lower[0], lower[1], 0}, .upper_corner = {upper[0], upper[1], 0},
                .channels_per_pixel = kC, .pixels_per_column = pixels};
    return s;
  }
};

}  // namespace

TEST_CASE("im2col: the box's pixels W first, then H and the batch, each moved by the offsets; zeros outside") {
  // 3×3 filter, padding 1 on a 4 × 5 image: lower corner -1, upper corner 1 - (3 - 1) = -1 (CUTLASS's
  // and the driver's convention), so the box holds W positions -1 .. 3 and H positions -1 .. 2.
  const Nhwc t(2, 4, 5);
  const TensorMapSpec s = t.map({-1, -1}, {-1, -1}, 8);
  CHECK(s.im2col_positions(1) == 5);
  CHECK(s.im2col_positions(2) == 4);
  CHECK(s.box_bytes() == 8 * 16);
  std::vector<std::uint8_t> image(8 * 16, 0xEE);
  // From the box's pixel (w, h) = (2, -1) of batch 0 with offsets (1, 2): rows 0-1 are w = 2, 3 of
  // h = -1, then the next H row: w = -1 .. 3 of h = 0, then w = -1 of h = 1; each moved by (+1, +2).
  CHECK(model::tma_load_im2col(s, t.bytes, {0, 2, -1, 0, 0}, {1, 2, 0}, image, 0, 0) == 8 * 16);
  const std::array<std::array<int, 3>, 8> pixel{{{0, 1, 3}, {0, 1, 4}, {0, 2, 0}, {0, 2, 1}, {0, 2, 2}, {0, 2, 3},
                                                 {0, 2, 4}, {0, 3, 0}}};  // (n, h, w) after the offsets
  for (int r = 0; r < 8; ++r) {
    CAPTURE(r);
    const auto [n, y, x] = pixel[std::size_t(r)];
    CHECK(at16(image, 16 * r + 2 * 3) == Nhwc::value(n, y, x, 3));
  }
  // Past the last H row the batch goes on: from (3, 2) of batch 0, row 1 is (-1, -1) of batch 1,
  // row 2 (0, -1); moved by (1, 1). With offsets (0, 0) they are padding: zeros.
  std::fill(image.begin(), image.end(), 0xEE);
  model::tma_load_im2col(s, t.bytes, {0, 3, 2, 0, 0}, {1, 1, 0}, image, 0, 0);
  CHECK(at16(image, 0) == Nhwc::value(0, 3, 4, 0));
  CHECK(at16(image, 16) == Nhwc::value(1, 0, 0, 0));
  CHECK(at16(image, 32) == Nhwc::value(1, 0, 1, 0));
  model::tma_load_im2col(s, t.bytes, {0, 3, 2, 0, 0}, {0, 0, 0}, image, 0, 0);
  CHECK(at16(image, 16) == 0);
  CHECK(at16(image, 32 + 14) == 0);
  // Past the last batch: zeros, and a first pixel that is no position of the box is refused.
  model::tma_load_im2col(s, t.bytes, {0, 3, 2, 1, 0}, {1, 1, 0}, image, 0, 0);
  CHECK(at16(image, 16) == 0);
  expect_error([&] { model::tma_load_im2col(s, t.bytes, {0, 4, 0, 0, 0}, {}, image, 0, 0); }, "coords[1]");
  expect_error([&] { model::tma_load(s, t.bytes, {0, 0, 0, 0, 0}, image, 0, 0); }, "mode");
  // The driver's limits: pixels at most 1024, a rank-4 corner within 8 bits.
  expect_error([&] { t.map({-1, -1}, {-1, -1}, 1025).validate(0x1000); }, "pixels_per_column");
  expect_error([&] { t.map({-200, -1}, {-1, -1}, 8).validate(0x1000); }, "lower_corner[0]");
}

TEST_CASE("im2col against the convolution's own definition: every row of the implicit GEMM's A, any stride") {
  // fprop's A row m = (n, p, q), column block (r, s): input (n, p·stride - pad + r·dil, q·stride - pad + s·dil),
  // zero outside. The map: lower = -pad, upper = pad - (R - 1)·dil, traversal stride = the conv stride,
  // offsets = (s·dil, r·dil); the load starts at output pixel m0's anchor.
  const Nhwc t(2, 7, 6);
  for (const auto& [stride, pad, dil] : {std::array{1, 1, 1}, std::array{2, 1, 1}, std::array{1, 2, 2}, std::array{2, 0, 1}}) {
    CAPTURE(stride);
    CAPTURE(pad);
    CAPTURE(dil);
    constexpr int R = 3;
    const int P = (t.h + 2 * pad - dil * (R - 1) - 1) / stride + 1, Q = (t.w + 2 * pad - dil * (R - 1) - 1) / stride + 1;
    const TensorMapSpec s = t.map({-pad, -pad}, {pad - (R - 1) * dil, pad - (R - 1) * dil}, 16,
                                  {std::uint32_t(stride), std::uint32_t(stride)});
    REQUIRE(s.im2col_positions(1) == Q);
    REQUIRE(s.im2col_positions(2) == P);
    const int M = t.n * P * Q;
    for (int m0 = 0; m0 < M; m0 += 16)
      for (int r = 0; r < R; ++r)
        for (int c = 0; c < R; ++c) {
          const int n0 = m0 / (P * Q), p0 = m0 / Q % P, q0 = m0 % Q;
          std::vector<std::uint8_t> image(16 * 16, 0xEE);
          model::tma_load_im2col(s, t.bytes, {0, q0 * stride - pad, p0 * stride - pad, n0, 0}, {c * dil, r * dil, 0},
                                 image, 0, 0);
          for (int row = 0; row < 16; ++row) {
            const int m = m0 + row, n = m / (P * Q), p = m / Q % P, q = m % Q;
            const int y = p * stride - pad + r * dil, x = q * stride - pad + c * dil;
            const bool inside = m < M && y >= 0 && y < t.h && x >= 0 && x < t.w;
            for (int ch = 0; ch < Nhwc::kC; ch += 7)
              if (at16(image, 16 * row + 2 * ch) != (inside ? Nhwc::value(n, y, x, ch) : 0)) {
                FAIL_CHECK("m " << m << ", tap (" << r << ", " << c << "), channel " << ch);
                return;
              }
          }
        }
  }
}
