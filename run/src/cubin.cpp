// A cubin's kernels from its ELF (cubin.hpp). The attribute records are those cuobjdump -elf prints
// by name (EIATTR_REGCOUNT, ...): in .nv.info for every function, in .nv.info.<kernel> for one.
#include "cubin.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string_view>

#include "tcgen/core/error.hpp"

namespace tcgen::run {

namespace {

constexpr std::uint16_t kMachineCuda = 190;  // EM_CUDA
constexpr std::uint8_t kFunction = 2;        // STT_FUNC
constexpr std::uint8_t kCudaEntry = 0x10;    // st_other: the function is a kernel (readelf: "<other>: 10")
constexpr std::uint32_t kSymbolTable = 2, kNoBits = 8;
constexpr std::uint64_t kHeaderBytes = 64, kSectionBytes = 64, kSymbolBytes = 24;
// The .nv.info records' formats and the attributes read here.
constexpr std::uint8_t kNoValue = 1, kByteValue = 2, kHalfValue = 3, kSizedValue = 4;
constexpr std::uint8_t kMaxThreads = 0x05, kRequiredThreads = 0x10, kFrameSize = 0x11, kRegisterCount = 0x2f;

template <class T>
T at(const std::uint8_t* p, std::uint64_t offset) {
  T v;
  std::memcpy(&v, p + offset, sizeof v);
  return v;
}

// [offset, offset + n) inside `elf`, or the error naming `what`.
void inside(std::span<const std::uint8_t> elf, std::uint64_t offset, std::uint64_t n, const std::string& what) {
  if (offset > elf.size() || n > elf.size() - offset)
    fail(what.c_str(), "bytes [" + std::to_string(offset) + ", +" + std::to_string(n) + ")",
         "inside the image's " + std::to_string(elf.size()) + " bytes");
}

struct Header {
  std::uint64_t table;
  std::uint16_t count, names;
};

Header header(const std::uint8_t* elf) {
  if (std::memcmp(elf, "\x7f" "ELF", 4) != 0 || elf[4] != 2 || elf[5] != 1)
    fail("cubin", "its ELF header", "a 64-bit little-endian ELF");
  if (at<std::uint16_t>(elf, 0x12) != kMachineCuda)
    fail("cubin machine", std::to_string(at<std::uint16_t>(elf, 0x12)), "190 (EM_CUDA)");
  const Header h{at<std::uint64_t>(elf, 0x28), at<std::uint16_t>(elf, 0x3C), at<std::uint16_t>(elf, 0x3E)};
  if (at<std::uint16_t>(elf, 0x3A) != kSectionBytes || h.names >= h.count || h.table > UINT32_MAX)
    fail("cubin section table", std::to_string(h.count) + " entries of " + std::to_string(at<std::uint16_t>(elf, 0x3A)) +
                                    " bytes at " + std::to_string(h.table) + ", names in entry " + std::to_string(h.names),
         "64-byte entries under 4 GiB, the names' section among them");
  return h;
}

struct Section {
  std::string name;
  std::uint32_t type, link;
  std::uint64_t offset, size;
};

// A NUL-terminated string at `offset` of section s, within s.
std::string string_in(std::span<const std::uint8_t> elf, const Section& s, std::uint32_t offset, const char* what) {
  if (offset >= s.size) fail(what, std::to_string(offset), "inside " + (s.name.empty() ? "its names" : s.name));
  const char* p = reinterpret_cast<const char*>(elf.data() + s.offset + offset);
  return std::string(p, strnlen(p, s.size - offset));
}

std::vector<Section> sections(std::span<const std::uint8_t> elf) {
  inside(elf, 0, kHeaderBytes, "cubin header");
  const Header h = header(elf.data());
  inside(elf, h.table, kSectionBytes * h.count, "cubin section table");
  std::vector<Section> s;
  for (std::uint16_t i = 0; i < h.count; ++i) {
    const std::uint8_t* e = elf.data() + h.table + kSectionBytes * i;
    s.push_back({"", at<std::uint32_t>(e, 4), at<std::uint32_t>(e, 40), at<std::uint64_t>(e, 24), at<std::uint64_t>(e, 32)});
    if (s.back().type != kNoBits) inside(elf, s.back().offset, s.back().size, "cubin section " + std::to_string(i));
    if (s.back().size > UINT32_MAX)
      fail(("cubin section " + std::to_string(i)).c_str(), std::to_string(s.back().size) + " bytes", "under 4 GiB");
  }
  for (std::uint16_t i = 0; i < h.count; ++i)
    s[i].name = string_in(elf, s[h.names], at<std::uint32_t>(elf.data() + h.table + kSectionBytes * i, 0),
                          "cubin section name");
  return s;
}

// Calls f(attribute, value bytes) for each record of an .nv.info section.
template <class F>
void records(std::span<const std::uint8_t> elf, const Section& s, F&& f) {
  if (s.type == kNoBits) return;
  const std::uint8_t* p = elf.data() + s.offset;
  for (std::uint64_t i = 0; i + 4 <= s.size;) {
    const std::uint8_t format = p[i], attribute = p[i + 1];
    if (format == kSizedValue) {
      const auto n = at<std::uint16_t>(p, i + 2);
      if (n > s.size - i - 4)
        fail(("cubin " + s.name).c_str(), "a record of " + std::to_string(n) + " bytes", "inside its section");
      f(attribute, std::span<const std::uint8_t>(p + i + 4, n));
      i += 4u + n;
    } else if (format == kNoValue || format == kByteValue || format == kHalfValue) {
      i += 4;
    } else {
      fail(("cubin " + s.name + " record format").c_str(), std::to_string(format), "1 to 4");
    }
  }
}

// The kernels, in symbol order, and each one's index in the symbol table.
std::vector<CubinKernel> entries(std::span<const std::uint8_t> elf, const std::vector<Section>& s,
                                 std::map<std::uint32_t, std::size_t>& by_symbol) {
  std::vector<CubinKernel> kernels;
  for (const Section& table : s) {
    if (table.type != kSymbolTable) continue;
    if (table.link >= s.size()) fail("cubin symbol table link", std::to_string(table.link), "a section");
    for (std::uint64_t k = 0; (k + 1) * kSymbolBytes <= table.size; ++k) {
      const std::uint8_t* sym = elf.data() + table.offset + kSymbolBytes * k;
      if ((sym[4] & 0xF) != kFunction || !(sym[5] & kCudaEntry)) continue;
      by_symbol[static_cast<std::uint32_t>(k)] = kernels.size();
      kernels.push_back({string_in(elf, s[table.link], at<std::uint32_t>(sym, 0), "cubin symbol name")});
    }
  }
  return kernels;
}

}  // namespace

std::vector<CubinKernel> read_cubin(std::span<const std::uint8_t> elf) {
  const std::vector<Section> s = sections(elf);
  std::map<std::uint32_t, std::size_t> by_symbol;  // a kernel's symbol index → kernels[i]
  std::vector<CubinKernel> kernels = entries(elf, s, by_symbol);
  const auto named = [&](std::string_view section, std::string_view prefix) -> CubinKernel* {
    if (!section.starts_with(prefix)) return nullptr;
    const auto k = std::find_if(kernels.begin(), kernels.end(),
                                [&](const CubinKernel& k) { return section.substr(prefix.size()) == k.name; });
    return k == kernels.end() ? nullptr : &*k;
  };
  for (const Section& section : s) {
    if (CubinKernel* k = named(section.name, ".nv.shared."); k && section.type == kNoBits)
      k->shared_bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(section.size, UINT32_MAX));
    if (section.name == ".nv.info")
      records(elf, section, [&](std::uint8_t attribute, std::span<const std::uint8_t> v) {
        if ((attribute != kRegisterCount && attribute != kFrameSize) || v.size() != 8) return;
        const auto k = by_symbol.find(at<std::uint32_t>(v.data(), 0));
        if (k == by_symbol.end()) return;  // a device function's
        const auto value = at<std::uint32_t>(v.data(), 4);
        if (attribute == kRegisterCount && value > 255)
          fail("cubin register count", std::to_string(value), "at most 255 per thread");
        if (attribute == kRegisterCount) kernels[k->second].registers = static_cast<int>(value);
        else kernels[k->second].local_bytes = value;
      });
    if (CubinKernel* k = named(section.name, ".nv.info."))
      records(elf, section, [&](std::uint8_t attribute, std::span<const std::uint8_t> v) {
        if ((attribute != kMaxThreads && attribute != kRequiredThreads) || v.size() != 12) return;
        std::uint64_t threads = 1;
        for (int d = 0; d < 3; ++d) threads *= std::min<std::uint32_t>(at<std::uint32_t>(v.data(), 4 * d), 1025);
        if (threads > 1024)
          fail(("cubin " + k->name + " thread limit").c_str(), std::to_string(threads), "at most 1024 threads");
        k->max_threads = static_cast<int>(threads);
      });
  }
  return kernels;
}

std::size_t cubin_extent(const std::uint8_t* image) {
  const Header h = header(image);
  std::uint64_t end = h.table + kSectionBytes * h.count;
  for (std::uint16_t i = 0; i < h.count; ++i) {
    const std::uint8_t* e = image + h.table + kSectionBytes * i;
    const auto offset = at<std::uint64_t>(e, 24), size = at<std::uint64_t>(e, 32);
    if (offset > UINT32_MAX || size > UINT32_MAX)
      fail(("cubin section " + std::to_string(i)).c_str(), "at " + std::to_string(offset) + ", " + std::to_string(size) + " bytes",
           "an offset and size under 4 GiB");
    if (at<std::uint32_t>(e, 4) != kNoBits) end = std::max(end, offset + size);
  }
  return end;
}

}  // namespace tcgen::run
