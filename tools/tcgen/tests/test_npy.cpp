// .npy reading and writing, held against the format as NumPy documents it
// (numpy.lib.format: magic "\x93NUMPY", version, header length, a Python dict
// literal padded to 64 bytes, then the raw data).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "../npy.hpp"
#include "../output_file.hpp"
#include "tcgen/core/error.hpp"

using tcgen::cli::read_npy;
using tcgen::cli::write_npy;

namespace {
std::string scratch(const char* name) { return std::string("test_npy_") + name + ".npy"; }

// A version 1.0 file as NumPy writes it, built byte by byte.
void write_raw(const std::string& path, const std::string& header_dict, const std::string& data) {
  std::string header = header_dict;
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  out.put(static_cast<char>(header.size() & 0xFF)).put(static_cast<char>(header.size() >> 8));
  out << header << data;
}
}  // namespace

TEST_CASE("float32 arrays round-trip, and the header is NumPy's") {
  const float values[] = {1.5f, -2.0f, 0.25f, 3.0e-5f, 65504.0f, -0.0f};
  const std::string path = scratch("roundtrip");
  write_npy("--out", path, {2, 3}, values);
  const auto a = read_npy(path);
  CHECK(a.shape == std::vector<std::size_t>{2, 3});
  REQUIRE(a.values.size() == 6);
  for (int i = 0; i < 6; ++i) CHECK(a.values[i] == values[i]);
  std::ifstream in(path, std::ios::binary);
  std::string head(128, '\0');
  in.read(head.data(), 128);
  // np.save(np.zeros((2, 3), np.float32)) writes exactly this dict, and the data starts at byte 128.
  CHECK(head.find("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }") == 10);
  CHECK(head[127] == '\n');
  std::remove(path.c_str());
}

TEST_CASE("float16 output: '<f2' with IEEE half bits, read back exactly; a value that is no fp16 is refused") {
  // 1.0 = 0x3C00, -2.0 = 0xC000, 65504 = 0x7BFF (the largest half), 2^-24 = 0x0001 (the smallest).
  const float values[] = {1.0f, -2.0f, 65504.0f, 5.9604644775390625e-8f};
  const std::string path = scratch("f16out");
  write_npy("--out", path, {4}, values, true);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() == 128 + 8);
  CHECK(bytes.find("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }") == 10);
  const unsigned char want[] = {0x00, 0x3C, 0x00, 0xC0, 0xFF, 0x7B, 0x01, 0x00};
  for (int i = 0; i < 8; ++i) CHECK(static_cast<unsigned char>(bytes[128 + i]) == want[i]);
  const auto a = read_npy(path);
  CHECK(a.float16);
  for (int i = 0; i < 4; ++i) CHECK(a.values[i] == values[i]);
  const float not_half[] = {1.0f + 1.0f / 4096};
  CHECK_THROWS_AS(write_npy("--out", path, {1}, not_half, true), std::logic_error);
  std::remove(path.c_str());
}

TEST_CASE("float16 input is converted exactly; 1-D shapes keep NumPy's trailing comma") {
  const std::string path = scratch("half");
  // 1.0 = 0x3C00, -2.5 = 0xC100, 65504 = 0x7BFF (IEEE binary16).
  write_raw(path, "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", std::string("\x00\x3C\x00\xC1\xFF\x7B", 6));
  const auto a = read_npy(path);
  CHECK(a.shape == std::vector<std::size_t>{3});
  CHECK(a.values == std::vector<float>{1.0f, -2.5f, 65504.0f});
  std::remove(path.c_str());
}

TEST_CASE("float64 input (numpy's default) is rounded to float32, to nearest even, and said so") {
  const std::string path = scratch("double");
  // 1 + 2^-24 is halfway between the floats 1 and 1 + 2^-23: even, 1. 1 + 3·2^-24 is halfway between
  // 1 + 2^-23 and 1 + 2^-22: even, 1 + 2^-22. 0.1 is 0x3FB999999999999A; as a float 0x3DCCCCCD.
  const double in[] = {1.0 + 0x1p-24, 1.0 + 3 * 0x1p-24, 0.1, -1e300};
  write_raw(path, "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }",
            std::string(reinterpret_cast<const char*>(in), sizeof in));
  const auto a = read_npy(path);
  CHECK(a.float64);
  CHECK_FALSE(a.float16);
  CHECK(a.values[0] == 1.0f);
  CHECK(a.values[1] == 1.0f + 0x1p-22f);
  CHECK(std::bit_cast<std::uint32_t>(a.values[2]) == 0x3DCCCCCDu);
  CHECK(std::isinf(a.values[3]));  // beyond every 16-bit type's range: the verbs refuse it as not finite
  CHECK(input_name(path, a) == path + " (float64, rounded)");
  std::remove(path.c_str());
}

TEST_CASE("what is not a float32/float16/float64 C-order array is an error naming the file") {
  const std::string path = scratch("bad");
  const auto rejects = [&](const std::string& dict, const std::string& data, const char* why) {
    write_raw(path, dict, data);
    CHECK_THROWS_WITH_AS(read_npy(path), doctest::Contains(why), tcgen::Error);
  };
  rejects("{'descr': '<i2', 'fortran_order': False, 'shape': (1,), }", std::string(2, '\0'), "'<i2'");
  rejects("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", std::string(4, '\0'), "Fortran");
  rejects("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", std::string(12, '\0'), "16 data bytes");
  // The shape strictly: no signs, no 20-digit dimensions, a tuple.
  rejects("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, -64, 64), }", std::string(16, '\0'),
          "dimension 3 of the shape (1, 2, -64, 64) is not a non-negative decimal integer (it starts with '-')");
  rejects("{'descr': '<f4', 'fortran_order': False, 'shape': (12345678901234567890,), }", std::string(4, '\0'),
          "dimension 1 of the shape (12345678901234567890,) = 12345678901234567890 is larger than any array");
  rejects("{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), }", std::string(24, '\0'), "is no tuple of integers");
  rejects("{'descr': '<f4', 'fortran_order': False, 'shape': (65536, 65536, 65536), }", std::string(4, '\0'),
          "more than 2^48 bytes");
  {
    std::ofstream out(path, std::ios::binary);
    out << "not an npy file at all";
  }
  CHECK_THROWS_WITH_AS(read_npy(path), doctest::Contains("NUMPY"), tcgen::Error);
  std::remove(path.c_str());
  // Files that cannot be read are I/O errors (tcgen exits 3), a directory among them.
  CHECK_THROWS_WITH_AS(read_npy("no/such/file.npy"), doctest::Contains("no/such/file.npy"), tcgen::cli::IoError);
  CHECK_THROWS_WITH_AS(read_npy("."), doctest::Contains("npy file = . is invalid: expected a file, not a directory"),
                       tcgen::cli::IoError);
}

TEST_CASE("a shape of 9,000 dimensions is refused by count, not read by a recursive matcher") {
  // The header was matched with std::regex, whose libstdc++ executor recurses once per character: this
  // 27 kB shape overflowed the stack (SIGSEGV in tcgen gemm --a, fmha --q).
  const std::string path = scratch("deep");
  std::string dims = "1";
  for (int i = 1; i < 9000; ++i) dims += ", 1";
  write_raw(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }", std::string(4, '\0'));
  CHECK_THROWS_WITH_AS(read_npy(path),
                       doctest::Contains("the shape has 9000 dimensions, more than 64 (NumPy's own limit, NPY_MAXDIMS)"),
                       tcgen::Error);
  // 64 dimensions, NumPy's most, are still read.
  std::string most = "1";
  for (int i = 1; i < 64; ++i) most += ", 1";
  write_raw(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (" + most + "), }", std::string(4, '\0'));
  CHECK(read_npy(path).shape.size() == 64);
  // A huge 'descr' value, also once matched by a regex, is an error about the dtype.
  write_raw(path, "{'descr': '" + std::string(60000, 'f') + "', 'fortran_order': False, 'shape': (1,), }",
            std::string(4, '\0'));
  CHECK_THROWS_WITH_AS(read_npy(path), doctest::Contains("only)"), tcgen::Error);
  std::remove(path.c_str());
}
