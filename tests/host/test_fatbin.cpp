// The fatbinary reader of tcgen run (run/fatbin.hpp) on what nvcc 13 writes:
// the saxpy of tests/run/streams_events.cu built three ways (tests/CMakeLists.txt):
// compute_100a PTX and sm_100a cubin, ZSTD-compressed (nvcc's default) and
// with --no-compress, for plain compute_100, which has no tcgen05, and for
// sm_90 and sm_80 only.
#include <doctest/doctest.h>

#if defined(TCGEN_FATBIN_DIR)

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tcgen/core/error.hpp"
#include "tcgen/run/fatbin.hpp"

using namespace tcgen;

namespace {

std::vector<std::uint8_t> file(const std::string& name) {
  std::ifstream in(std::string(TCGEN_FATBIN_DIR) + "/" + name, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string targets(const std::vector<run::FatbinEntry>& entries) {
  std::string s;
  for (const auto& e : entries) s += e.target() + (e.compressed ? "(z) " : " ");
  return s;
}

}  // namespace

TEST_CASE("nvcc 13's fatbinary: a cubin and the PTX per target, the PTX ZSTD-compressed unless --no-compress") {
  const std::vector<std::uint8_t> packed = file("saxpy.fatbin"), plain = file("saxpy_uncompressed.fatbin");
  const auto a = run::parse_fatbin(packed.data()), b = run::parse_fatbin(plain.data());
  CHECK(targets(a) == "sm_100a compute_100a(z) ");
  CHECK(targets(b) == "sm_100a compute_100a ");
  const std::string text = run::ptx_text(run::sm100a_ptx(a));
  CHECK(text == run::ptx_text(run::sm100a_ptx(b)));
  CHECK(text.find(".target sm_100a") != std::string::npos);
  CHECK(text.find(".entry _Z5saxpyifPKfPf(") != std::string::npos);
  CHECK(text.find('\0') == std::string::npos);
  CHECK(run::sm100a_ptx(a).ptx_major == 9);
}

TEST_CASE("a program without compute_100a PTX is refused with the targets it has and how to build it") {
  const std::vector<std::uint8_t> plain = file("saxpy_compute_100.fatbin");
  const auto entries = run::parse_fatbin(plain.data());
  CHECK_THROWS_WITH_AS(run::sm100a_ptx(entries),
                       doctest::Contains("the program's device code = sm_100, compute_100 is invalid: compute_100a PTX: "
                                         "build with -gencode arch=compute_100a,code=[sm_100a,compute_100a]"),
                       Error);
  // sm_90 and sm_80 cubins have 64-byte entry headers: read, and named in the refusal.
  const std::vector<std::uint8_t> hopper = file("saxpy_sm90_sm80.fatbin");
  const auto older = run::parse_fatbin(hopper.data());
  CHECK(targets(older) == "sm_90 compute_90(z) sm_80 ");
  CHECK_THROWS_WITH_AS(run::sm100a_ptx(older),
                       doctest::Contains("the program's device code = sm_90, compute_90, sm_80 is invalid: compute_100a "
                                         "PTX: build with -gencode arch=compute_100a,code=[sm_100a,compute_100a]"),
                       Error);
  std::vector<std::uint8_t> bad = plain;
  bad[0] ^= 1;
  CHECK_THROWS_WITH_AS(run::parse_fatbin(bad.data()), doctest::Contains("fatbin magic"), Error);
}

TEST_CASE("relocatable device code (a version-2 wrapper: nvlink's cubin, no PTX) is refused by name") {
  const std::vector<std::uint8_t> packed = file("saxpy.fatbin");
  // CUDA's fatbinary_section.h: magic 0x466243B1, version, the fatbinary's address, the linked fatbins.
  struct {
    std::uint32_t magic, version;
    const void* fatbin;
    const void* linked;
  } wrapper{0x466243B1, 1, packed.data(), nullptr};
  CHECK(run::unwrap_fatbin(&wrapper) == packed.data());
  wrapper.version = 2;
  CHECK_THROWS_WITH_AS(run::unwrap_fatbin(&wrapper),
                       doctest::Contains("relocatable (-rdc=true or -dc, linked by nvlink) is invalid: "
                                         "whole-program device code: tcgen run does not support relocatable"),
                       Error);
}

#else
TEST_CASE("the fatbinary reader's tests need nvcc" * doctest::skip()) {}
#endif
