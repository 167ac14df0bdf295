// ptx::encode_unchecked, decode_tensor_map and replace_field against an H200's maps
// (tests/data/tensormap_*_h200.csv*, tools/tensormap_sweep; docs/tensor_map.md): every map the driver
// wrote that a TensorMapSpec can say is encoded bit for bit and decodes to the call's arguments, every
// tensormap.replace writes what the GPU wrote, random specs survive encoding and decoding, and any bit
// outside the layout's fields makes decoding fail, naming it.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "../shared/tensor_map_sweep.hpp"
#include "fresh_seed.hpp"
#include "tcgen/ptx/tensor_map.hpp"

using namespace tcgen;
using test_sweep::EncodeRow;

namespace {

const std::string kData = TCGEN_SOURCE_DIR "/tests/data/";

// CUtensorMapDataType's sizes (cuda.h; the packed types move as bytes: TensorMapSpec::packing).
constexpr std::uint32_t kElementBytes[16] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4, 1, 1, 1};

// The spec a recorded call describes, where TensorMapSpec can say it (interleave NONE; im2col_wide as
// the im2col map of its width corner, whose bytes the driver wrote alike: no mode bit).
std::optional<tma::TensorMapSpec> spec_of(const EncodeRow& r) {
  if (r.interleave != 0 || r.swizzle > 4 || r.data_type < 0 || r.data_type > 15) return std::nullopt;
  tma::TensorMapSpec s;
  s.data_type = r.data_type;
  s.element_bytes = kElementBytes[r.data_type];
  s.rank = r.rank;
  s.swizzle = static_cast<tma::TmaSwizzle>(r.swizzle);
  s.oob_fill = static_cast<tma::TmaOobFill>(r.oob);
  s.l2_promotion = static_cast<tma::TmaL2Promotion>(r.l2);
  s.element_strides = {1, 1, 1, 1, 1};
  for (std::uint32_t i = 0; i < r.rank; ++i) {
    s.global_dims[i] = r.dims[i];
    s.element_strides[i] = r.element_strides[i];
    if (r.function == "tiled") s.box_dims[i] = r.box[i];
    if (i + 1 < r.rank) s.global_strides[i] = r.strides[i];
  }
  if (r.function != "tiled") {
    s.im2col.on = true;
    s.im2col.channels_per_pixel = r.channels;
    s.im2col.pixels_per_column = r.pixels;
    for (std::uint32_t i = 0; i + 2 < r.rank; ++i) {
      const bool wide = r.function == "im2col_wide";
      s.im2col.lower_corner[i] = wide && i > 0 ? 0 : r.lower[i];
      s.im2col.upper_corner[i] = wide && i > 0 ? 0 : r.upper[i];
    }
  }
  return s;
}

// The fields of a spec that a map holds: entries below the rank.
void check_same(const tma::TensorMapSpec& got, const tma::TensorMapSpec& want) {
  CHECK(got.rank == want.rank);
  CHECK(got.data_type == want.data_type);
  CHECK(got.element_bytes == want.element_bytes);
  CHECK(got.swizzle == want.swizzle);
  CHECK(got.oob_fill == want.oob_fill);
  CHECK(got.l2_promotion == want.l2_promotion);
  CHECK(got.im2col.on == want.im2col.on);
  for (std::uint32_t i = 0; i < want.rank && i < 5; ++i) {
    CAPTURE(i);
    CHECK(got.global_dims[i] == want.global_dims[i]);
    CHECK(got.element_strides[i] == want.element_strides[i]);
    if (!want.im2col.on) CHECK(got.box_dims[i] == want.box_dims[i]);
    if (i + 1 < want.rank) CHECK(got.global_strides[i] == want.global_strides[i]);
    if (want.im2col.on && i + 2 < want.rank) {
      CHECK(got.im2col.lower_corner[i] == want.im2col.lower_corner[i]);
      CHECK(got.im2col.upper_corner[i] == want.im2col.upper_corner[i]);
    }
  }
  if (want.im2col.on) {
    CHECK(got.im2col.channels_per_pixel == want.im2col.channels_per_pixel);
    CHECK(got.im2col.pixels_per_column == want.im2col.pixels_per_column);
  }
}

// A 64 x 32 f16 tensor's map with a 64 x 8 box: the base the tests below change one field of.
ptx::TensorMap f16_map() {
  tma::TensorMapSpec s;
  s.element_bytes = 2;
  s.data_type = 6;
  s.rank = 2;
  s.global_dims = {64, 32, 0, 0, 0};
  s.global_strides = {128, 0, 0, 0};
  s.box_dims = {64, 8, 0, 0, 0};
  return ptx::encode_unchecked(s, 0x7f0000001000);
}

std::string hex(const std::uint8_t* b) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 128; ++i) s += {digits[b[i] >> 4], digits[b[i] & 15]};
  return s;
}

}  // namespace

TEST_CASE("every map the H200's driver accepted is encoded bit for bit and decodes to its arguments") {
  const std::vector<EncodeRow> rows = test_sweep::encode_rows(kData + "tensormap_sweep_h200.csv.zst");
  REQUIRE(rows.size() == 1569);
  int encoded = 0, interleaved = 0;
  for (const EncodeRow& r : rows) {
    if (r.result != 0) continue;
    CAPTURE(r.line);
    const std::optional<tma::TensorMapSpec> spec = spec_of(r);
    std::string why;
    const std::optional<ptx::DecodedTensorMap> d = ptx::decode_tensor_map(r.bytes.data(), &why);
    if (!spec) {  // interleaved: the layout holds it, the model's TMA does not move it
      ++interleaved;
      CHECK(r.interleave != 0);
      CHECK_FALSE(d);
      CHECK(why.find("interleave: bits 75-76 = " + std::to_string(r.interleave)) != std::string::npos);
      continue;
    }
    ++encoded;
    const ptx::TensorMap m = ptx::encode_unchecked(*spec, r.address);
    CHECK(hex(m.bytes) == hex(r.bytes.data()));
    REQUIRE_MESSAGE(d, why);
    CHECK(d->global == r.address);
    check_same(d->spec, *spec);
  }
  // 1,018 maps: 696 tiled, 309 im2col, 13 im2col_wide, of which 64 interleaved (tiled 40, im2col 24).
  CHECK(encoded + interleaved == 1018);
  CHECK(interleaved == 64);
}

TEST_CASE("tensormap.replace writes the field's bits as the H200 did, and nothing else") {
  const std::vector<test_sweep::ReplaceRow> rows = test_sweep::replace_rows(kData + "tensormap_replace_h200.csv");
  REQUIRE(rows.size() == 123);  // the base map and 122 cases
  REQUIRE(rows[0].field == "base");
  const std::pair<const char*, ptx::TensorMapField> fields[] = {
      {"global_address", ptx::TensorMapField::global_address}, {"rank", ptx::TensorMapField::rank},
      {"box_dim", ptx::TensorMapField::box_dim}, {"global_dim", ptx::TensorMapField::global_dim},
      {"global_stride", ptx::TensorMapField::global_stride}, {"element_stride", ptx::TensorMapField::element_stride},
      {"elemtype", ptx::TensorMapField::elemtype}, {"interleave_layout", ptx::TensorMapField::interleave_layout},
      {"swizzle_mode", ptx::TensorMapField::swizzle_mode}, {"fill_mode", ptx::TensorMapField::fill_mode}};
  int checked = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const test_sweep::ReplaceRow& r = rows[i];
    CAPTURE(r.field);
    CAPTURE(r.ord);
    CAPTURE(r.new_val);
    std::uint8_t bytes[128];
    std::memcpy(bytes, rows[0].bytes.data(), 128);
    bool known = false;
    for (const auto& [name, field] : fields)
      if (r.field == name) {
        ptx::replace_field(bytes, field, static_cast<std::uint32_t>(r.ord), r.new_val);
        known = true;
      }
    REQUIRE(known);
    CHECK(hex(bytes) == hex(r.bytes.data()));
    ++checked;
  }
  CHECK(checked == 122);
}

TEST_CASE("the PTX elemtype numbering decodes to CUtensorMapDataType: 8 f32.ftz, 9 f64, 10 bf16, 11 tf32") {
  const std::vector<test_sweep::ReplaceRow> rows = test_sweep::replace_rows(kData + "tensormap_replace_h200.csv");
  // replace_probe's elemtype rows, 0 to 12, against the driver's numbering (cuda.h).
  const int data_type[13] = {0, 1, 2, 3, 4, 5, 6, 7, 10, 8, 9, 11, 12};
  int seen = 0;
  for (const test_sweep::ReplaceRow& r : rows)
    if (r.field == "elemtype") {
      CAPTURE(r.new_val);
      const std::optional<ptx::DecodedTensorMap> d = ptx::decode_tensor_map(r.bytes.data());
      REQUIRE(d);
      CHECK(d->spec.data_type == data_type[r.new_val]);
      ++seen;
    }
  CHECK(seen == 13);
}

TEST_CASE("random specs come back from their bytes, and their bytes from the decoded spec") {
  const std::uint32_t seed = fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const auto uniform = [&](std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  };
  for (int n = 0; n < 2000; ++n) {
    tma::TensorMapSpec s;
    s.data_type = static_cast<int>(uniform(0, 15));
    s.element_bytes = kElementBytes[s.data_type];
    s.im2col.on = uniform(0, 3) == 0;
    s.rank = static_cast<std::uint32_t>(s.im2col.on ? uniform(3, 5) : uniform(1, 5));
    s.swizzle = static_cast<tma::TmaSwizzle>(uniform(0, 4));
    s.oob_fill = static_cast<tma::TmaOobFill>(uniform(0, 1));
    s.l2_promotion = static_cast<tma::TmaL2Promotion>(uniform(0, 3));
    for (std::uint32_t i = 0; i < s.rank; ++i) {
      s.global_dims[i] = uniform(1, std::uint64_t{1} << 32);
      s.box_dims[i] = s.im2col.on ? 0 : static_cast<std::uint32_t>(uniform(1, 256));
      s.element_strides[i] = static_cast<std::uint32_t>(uniform(1, 8));
      if (i + 1 < s.rank) s.global_strides[i] = uniform(0, (std::uint64_t{1} << 36) - 1) << 4;
    }
    if (s.im2col.on) {
      const std::int64_t half = s.rank == 3 ? 32768 : s.rank == 4 ? 128 : 16;  // DRV's corner ranges
      for (std::uint32_t i = 0; i + 2 < s.rank; ++i) {
        s.im2col.lower_corner[i] = static_cast<std::int32_t>(static_cast<std::int64_t>(uniform(0, 2 * half - 1)) - half);
        s.im2col.upper_corner[i] = static_cast<std::int32_t>(static_cast<std::int64_t>(uniform(0, 2 * half - 1)) - half);
      }
      s.im2col.channels_per_pixel = static_cast<std::uint32_t>(uniform(1, 256));
      s.im2col.pixels_per_column = static_cast<std::uint32_t>(uniform(1, 1024));
    }
    const std::uint64_t global = uniform(0, ~std::uint64_t{0});
    const ptx::TensorMap m = ptx::encode_unchecked(s, global);
    std::string why;
    const std::optional<ptx::DecodedTensorMap> d = ptx::decode_tensor_map(m.bytes, &why);
    REQUIRE_MESSAGE(d, why);
    CHECK(d->global == global);
    check_same(d->spec, s);
    CHECK(hex(ptx::encode_unchecked(d->spec, d->global).bytes) == hex(m.bytes));
  }
}

TEST_CASE("a bit outside the layout's fields, or a value the model does not move, is named, not guessed") {
  const ptx::TensorMap base = f16_map();
  REQUIRE(ptx::decode_tensor_map(base.bytes));
  // The bits no field holds (docs/tensor_map.md): 66-67, 86-95, 240-255, 431-439, 490-511. Bit 65 (CuTe
  // DSL's encoder sets it) and bytes 64-127 (it leaves them uninitialised) are read past.
  const auto reserved = [](unsigned bit) {
    return (bit >= 66 && bit <= 67) || (bit >= 86 && bit <= 95) || (bit >= 240 && bit <= 255) ||
           (bit >= 431 && bit <= 439) || (bit >= 490 && bit <= 511);
  };
  int refused = 0;
  for (unsigned bit = 0; bit < 1024; ++bit) {
    if (!reserved(bit)) continue;
    CAPTURE(bit);
    ptx::TensorMap m = base;
    m.bytes[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    std::string why;
    CHECK_FALSE(ptx::decode_tensor_map(m.bytes, &why));
    CHECK(why.find("byte " + std::to_string(bit / 8) + " = ") == 0);
    ++refused;
  }
  CHECK(refused == 2 + 10 + 16 + 9 + 22);
  // Bit 21 of bytes 8-15 (CUTLASS clears it), bit 65 (CuTe DSL sets it), the driver's derived words and
  // the bytes past them are read past.
  for (unsigned bit : {65u, 85u, 512u, 530u, 576u, 600u, 640u, 1023u}) {
    CAPTURE(bit);
    ptx::TensorMap m = base;
    m.bytes[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    CHECK(ptx::decode_tensor_map(m.bytes));
  }
  // Values of a field the model's TMA does not move.
  const auto refusal = [&](ptx::TensorMapField f, std::uint64_t v) {
    ptx::TensorMap m = base;
    ptx::replace_field(m.bytes, f, 0, v);
    std::string why;
    return ptx::decode_tensor_map(m.bytes, &why) ? std::string("decoded") : why;
  };
  CHECK(refusal(ptx::TensorMapField::interleave_layout, 2).find("interleave: bits 75-76 = 2") == 0);
  CHECK(refusal(ptx::TensorMapField::swizzle_atomicity, 3).find("swizzle: mode 0 with atomicity bits 83-84 = 3") == 0);
  CHECK(refusal(ptx::TensorMapField::rank, 5).find("rank: bits 68-70 = 5") == 0);
  ptx::TensorMap f16_tf32 = base;  // the tf32 bit on a code that is not an f32 one
  f16_tf32.bytes[10] = static_cast<std::uint8_t>(f16_tf32.bytes[10] | 0x01);
  std::string why;
  CHECK_FALSE(ptx::decode_tensor_map(f16_tf32.bytes, &why));
  CHECK(why.find("element type: bits 71-74 = 6 with tf32 bits 80-80 = 1") == 0);
}

TEST_CASE("NVIDIA's element-type codes, as CuTe DSL's encoder writes them, decode to their types") {
  // tests/data/tensormap_dsl_formats.csv: cute_nvgpu.get_default_tma_format of nvidia-cutlass-dsl
  // (tools/tensormap_sweep/dsl_formats.py), the code the DSL writes in bits 71-74 with bit 80 clear,
  // and its name; the name's CUtensorMapDataType (cuda.h) and element bytes are what decoding must give.
  const std::map<std::string, std::pair<int, std::uint32_t>> kByName = {
      {"U8", {0, 1}},      {"U16", {1, 2}},     {"U32", {2, 4}},     {"U64", {4, 8}},
      {"F16_RN", {6, 2}},  {"F32_RN", {7, 4}},  {"F64_RN", {8, 8}},  {"BF16_RN", {9, 2}},
      {"TF32_RN", {11, 4}}, {"U4", {13, 1}},    {"U4_UNPACK_U8", {14, 1}}, {"U6_UNPACK_U8", {15, 1}}};
  std::ifstream in(kData + "tensormap_dsl_formats.csv");
  REQUIRE(in);
  const ptx::TensorMap base = f16_map();
  int rows = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.starts_with("dsl_type")) continue;
    CAPTURE(line);
    std::istringstream fields(line);
    std::string type, unpack, code, name;
    std::getline(fields, type, ',');
    std::getline(fields, unpack, ',');
    std::getline(fields, code, ',');
    std::getline(fields, name, ',');
    REQUIRE(kByName.contains(name));
    ptx::TensorMap m = base;
    const std::uint64_t word = (std::uint64_t{m.bytes[8]} | std::uint64_t{m.bytes[9]} << 8 | std::uint64_t{m.bytes[10]} << 16);
    const std::uint64_t with = (word & ~(std::uint64_t{0xF} << 7) & ~(std::uint64_t{1} << 16)) | std::stoull(code) << 7;
    for (int k = 0; k < 3; ++k) m.bytes[8 + k] = static_cast<std::uint8_t>(with >> (8 * k));
    std::string why;
    const std::optional<ptx::DecodedTensorMap> d = ptx::decode_tensor_map(m.bytes, &why);
    REQUIRE_MESSAGE(d, why);
    CHECK(d->spec.data_type == kByName.at(name).first);
    CHECK(d->spec.element_bytes == kByName.at(name).second);
    // tcgen's encoder writes the packed types as NVIDIA does (tf32 keeps the H200 driver's spelling), in
    // the 64 bytes that define a map (the derived words after them count the new type's bytes).
    if (name.starts_with("U4") || name.starts_with("U6"))
      CHECK(hex(ptx::encode_unchecked(d->spec, d->global).bytes).substr(0, 128) == hex(m.bytes).substr(0, 128));
    ++rows;
  }
  CHECK(rows == 40);
}
