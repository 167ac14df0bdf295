#include "tcgen/core/hex.hpp"
#include "tcgen/run/fatbin.hpp"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include "tcgen/core/error.hpp"

namespace tcgen::run {

namespace {

constexpr std::uint32_t kWrapperMagic = 0x466243B1, kFatbinMagic = 0xBA55ED50;
constexpr std::uint64_t kCompressed = 0x8000, kArchSpecific = 0x100000;

template <class T>
T read(const std::uint8_t* p, std::size_t offset) {
  T v;
  std::memcpy(&v, p + offset, sizeof v);
  return v;
}

}  // namespace

std::string FatbinEntry::target() const {
  return (kind == Kind::ptx ? "compute_" : "sm_") + std::to_string(arch) + (arch_specific ? "a" : "");
}

const std::uint8_t* unwrap_fatbin(const void* wrapper) {
  const auto* w = static_cast<const std::uint8_t*>(wrapper);
  if (const auto magic = read<std::uint32_t>(w, 0); magic != kWrapperMagic)
    fail("fatbin wrapper magic", hex(magic), hex(kWrapperMagic) + " (nvcc's __fatDeviceText)");
  // Version 2 wraps nvlink's output for relocatable device code: a cubin alone, the PTX left in the
  // objects it linked (CUDA's fatbinary_section.h: "linked fatbins").
  if (read<std::uint32_t>(w, 4) == 2)
    fail("the program's device code", "relocatable (-rdc=true or -dc, linked by nvlink)",
         "whole-program device code: tcgen run does not support relocatable device code yet; build without "
         "-rdc=true / -dc, with -gencode arch=compute_100a,code=[sm_100a,compute_100a]");
  return reinterpret_cast<const std::uint8_t*>(read<std::uint64_t>(w, 8));
}

std::vector<FatbinEntry> parse_fatbin(const std::uint8_t* fatbin) {
  if (const auto magic = read<std::uint32_t>(fatbin, 0); magic != kFatbinMagic)
    fail("fatbin magic", hex(magic), hex(kFatbinMagic));
  const auto header = read<std::uint16_t>(fatbin, 6);
  const auto bytes = read<std::uint64_t>(fatbin, 8);
  std::vector<FatbinEntry> out;
  for (std::uint64_t at = header; at < header + bytes;) {
    const std::uint8_t* e = fatbin + at;
    if (header + bytes - at < 16)
      fail("fatbin entry", std::to_string(header + bytes - at) + " bytes left at offset " + std::to_string(at),
           "an entry header of at least 64 bytes");
    const auto entry_header = read<std::uint32_t>(e, 4);
    const auto payload = read<std::uint64_t>(e, 8);
    // 64 bytes for the cubins of sm_90 and older, 80 to 112 for PTX and sm_100 ones.
    if (entry_header < 64 || entry_header > 4096)
      fail("fatbin entry header bytes", std::to_string(entry_header), "64 to 4096 (at offset " + std::to_string(at) + ")");
    if (entry_header > header + bytes - at || payload > header + bytes - at - entry_header)
      fail("fatbin entry payload bytes", std::to_string(payload),
           "at most the " + std::to_string(header + bytes - at - entry_header) + " bytes left in the fatbinary");
    FatbinEntry f;
    const auto kind = read<std::uint16_t>(e, 0);
    f.kind = kind == 1 ? FatbinEntry::Kind::ptx : kind == 2 ? FatbinEntry::Kind::elf : FatbinEntry::Kind::other;
    const auto compressed_bytes = read<std::uint32_t>(e, 16);
    f.ptx_minor = read<std::uint16_t>(e, 24);
    f.ptx_major = read<std::uint16_t>(e, 26);
    f.arch = static_cast<int>(read<std::uint32_t>(e, 28));
    const auto flags = read<std::uint64_t>(e, 40);
    f.compressed = flags & kCompressed;
    f.arch_specific = flags & kArchSpecific;
    f.uncompressed_bytes = read<std::uint64_t>(e, 56);
    if (f.compressed && compressed_bytes > payload)
      fail("fatbin entry compressed bytes", std::to_string(compressed_bytes), "at most its payload, " + std::to_string(payload));
    f.payload = {e + entry_header, f.compressed ? compressed_bytes : payload};
    out.push_back(f);
    at += entry_header + payload;
  }
  return out;
}

std::vector<FatbinEntry> parse_fatbin(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 16)
    fail("fatbin header", std::to_string(bytes.size()) + " bytes", "at least 16 bytes (magic, version, sizes)");
  if (const auto magic = read<std::uint32_t>(bytes.data(), 0); magic != kFatbinMagic)
    fail("fatbin magic", hex(magic), hex(kFatbinMagic));
  const auto header = read<std::uint16_t>(bytes.data(), 6);
  const auto length = read<std::uint64_t>(bytes.data(), 8);
  if (header < 16 || header > bytes.size())
    fail("fatbin header bytes", std::to_string(header), "16 to the " + std::to_string(bytes.size()) + " bytes there are");
  if (length > bytes.size() - header)
    fail("fatbin entry bytes", std::to_string(length),
         "at most the " + std::to_string(bytes.size() - header) + " bytes after the header");
  return parse_fatbin(bytes.data());
}

namespace {

// The ZSTD frames of a compressed PTX entry, streamed into a buffer that grows with what they
// produce, up to the header's size: a damaged or forged header then costs no gigabyte of zeroed
// memory, whether or not its frame declares a content size (ZSTD_decompressStream, zstd.h).
std::string decompress(const FatbinEntry& entry) {
  const std::string what = "fatbin PTX entry " + entry.target();
  const std::uint64_t cap = entry.uncompressed_bytes;
  const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!ctx) throw std::bad_alloc();
  ZSTD_inBuffer in{entry.payload.data(), entry.payload.size(), 0};
  std::string text;
  std::size_t produced = 0, left = 1;  // left: ZSTD's hint, 0 once a frame is complete
  while (left != 0 || in.pos < in.size) {
    // One byte past the header's size makes a frame that holds more than it says an error below.
    if (produced == text.size()) text.resize(std::min<std::uint64_t>(cap + 1, std::max<std::size_t>(4096, 2 * text.size())));
    ZSTD_outBuffer out{text.data(), text.size(), produced};
    left = ZSTD_decompressStream(ctx.get(), &out, &in);
    if (ZSTD_isError(left)) fail(what.c_str(), ZSTD_getErrorName(left), "a ZSTD frame that decompresses");
    const bool stalled = out.pos == produced && out.pos < out.size;
    produced = out.pos;
    if (produced > cap)
      fail(what.c_str(), "more than the header's " + std::to_string(cap) + " bytes", "the uncompressed size the header gives");
    if (stalled && in.pos == in.size && left != 0)
      fail(what.c_str(), "a ZSTD frame cut short", "a ZSTD frame that decompresses");
  }
  text.resize(produced);
  return text;
}

}  // namespace

std::string ptx_text(const FatbinEntry& entry) {
  if (entry.kind != FatbinEntry::Kind::ptx) fail("fatbin entry", entry.target(), "a PTX entry");
  std::string text;
  if (!entry.compressed) {
    text.assign(reinterpret_cast<const char*>(entry.payload.data()), entry.payload.size());
  } else {
    // nvcc's largest PTX are tens of MB: a size past 1 GiB is a damaged header, not a module.
    if (entry.uncompressed_bytes > (std::uint64_t{1} << 30))
      fail(("fatbin PTX entry " + entry.target()).c_str(), std::to_string(entry.uncompressed_bytes) + " bytes",
           "an uncompressed size of at most 1 GiB");
    text = decompress(entry);
  }
  // PTX text ends at its first NUL (the entry is padded).
  if (const auto nul = text.find('\0'); nul != std::string::npos) text.resize(nul);
  return text;
}

const FatbinEntry& sm100a_ptx(std::span<const FatbinEntry> entries) {
  std::string found;
  for (const FatbinEntry& e : entries) {
    if (e.kind == FatbinEntry::Kind::ptx && e.arch == 100 && e.arch_specific) return e;
    found += (found.empty() ? "" : ", ") + e.target();
  }
  fail("the program's device code", found.empty() ? "none" : found,
       "compute_100a PTX: build with -gencode arch=compute_100a,code=[sm_100a,compute_100a] (the host model runs "
       "PTX; tcgen05 needs the arch-specific target, which plain compute_100 PTX cannot hold)");
}

}  // namespace tcgen::run
