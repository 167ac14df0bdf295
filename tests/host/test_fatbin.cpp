// The fatbinary reader of tcgen run (run/fatbin.hpp) on what nvcc 13 writes:
// the saxpy of tests/run/streams_events.cu built three ways (tests/CMakeLists.txt):
// compute_100a PTX and sm_100a cubin, ZSTD-compressed (nvcc's default) and
// with --no-compress, for plain compute_100, which has no tcgen05, and for
// sm_90 and sm_80 only.
#include <doctest/doctest.h>

#if defined(TCGEN_FATBIN_DIR)

#include <zstd.h>

#include <sys/resource.h>

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

namespace {

// `text` as one ZSTD frame whose header declares no content size (ZSTD_CONTENTSIZE_UNKNOWN),
// as streaming writers leave it.
std::vector<std::uint8_t> frame_without_size(const std::string& text) {
  std::vector<std::uint8_t> out(ZSTD_compressBound(text.size()) + 64);
  ZSTD_CCtx* ctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(ctx, ZSTD_c_contentSizeFlag, 0);
  ZSTD_inBuffer in{text.data(), text.size(), 0};
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  REQUIRE(ZSTD_compressStream2(ctx, &o, &in, ZSTD_e_end) == 0);
  ZSTD_freeCCtx(ctx);
  out.resize(o.pos);
  REQUIRE(ZSTD_getFrameContentSize(out.data(), out.size()) == ZSTD_CONTENTSIZE_UNKNOWN);
  return out;
}

run::FatbinEntry compressed_ptx(std::span<const std::uint8_t> payload, std::uint64_t uncompressed_bytes) {
  run::FatbinEntry e;
  e.kind = run::FatbinEntry::Kind::ptx;
  e.arch = 100;
  e.arch_specific = e.compressed = true;
  e.payload = payload;
  e.uncompressed_bytes = uncompressed_bytes;
  return e;
}

}  // namespace

TEST_CASE("a ZSTD frame without a content size costs what it holds, not the header's size") {
  std::string ptx = ".version 9.0\n.target sm_100a\n";
  while (ptx.size() < 300000) ptx += "// filler that compresses well\n";
  const std::vector<std::uint8_t> frame = frame_without_size(ptx);
  // A header that claims 1 GiB: the text comes back, and no gigabyte is zeroed first (that took
  // 4 s under the fuzzer): the process's peak resident size grows by far less.
  const auto peak_kib = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
  };
  const long before = peak_kib();
  CHECK(run::ptx_text(compressed_ptx(frame, std::uint64_t{1} << 30)) == ptx);
  CHECK(peak_kib() - before < 64 * 1024);
  CHECK(run::ptx_text(compressed_ptx(frame, ptx.size())) == ptx);  // exactly the header's size
  const std::string too_small = "more than the header's " + std::to_string(ptx.size() - 1) + " bytes";
  CHECK_THROWS_WITH_AS(run::ptx_text(compressed_ptx(frame, ptx.size() - 1)), doctest::Contains(too_small.c_str()),
                       Error);
  const std::vector<std::uint8_t> cut(frame.begin(), frame.end() - 9);
  CHECK_THROWS_WITH_AS(run::ptx_text(compressed_ptx(cut, ptx.size())), doctest::Contains("cut short"), Error);
  CHECK_THROWS_WITH_AS(run::ptx_text(compressed_ptx({}, 16)), doctest::Contains("cut short"), Error);
}

#else
TEST_CASE("the fatbinary reader's tests need nvcc" * doctest::skip()) {}
#endif
