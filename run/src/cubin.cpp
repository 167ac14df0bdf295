// A cubin's kernels from its ELF (cubin.hpp). The attribute records are those cuobjdump -elf prints
// by name (EIATTR_REGCOUNT, ...): in .nv.info for every function, in .nv.info.<kernel> for one.
#include "cubin.hpp"

#include <cstring>
#include <map>
#include <span>
#include <string_view>

#include "tcgen/core/error.hpp"

namespace tcgen::run {

namespace {

constexpr std::uint16_t kMachineCuda = 190;  // EM_CUDA
constexpr std::uint8_t kFunction = 2;        // STT_FUNC
constexpr std::uint8_t kCudaEntry = 0x10;    // st_other: the function is a kernel (readelf: "<other>: 10")
constexpr std::uint32_t kSymbolTable = 2, kNoBits = 8;
// The .nv.info records' formats and the attributes read here.
constexpr std::uint8_t kNoValue = 1, kByteValue = 2, kHalfValue = 3, kSizedValue = 4;
constexpr std::uint8_t kMaxThreads = 0x05, kRequiredThreads = 0x10, kFrameSize = 0x11, kRegisterCount = 0x2f;
constexpr std::uint64_t kMaxSection = std::uint64_t{1} << 30;

template <class T>
T at(const std::uint8_t* p, std::uint64_t offset) {
  T v;
  std::memcpy(&v, p + offset, sizeof v);
  return v;
}

struct Section {
  std::string name;
  std::uint32_t type, link;
  std::uint64_t offset, size;
};

std::vector<Section> sections(const std::uint8_t* elf) {
  if (std::memcmp(elf, "\x7f" "ELF", 4) != 0 || elf[4] != 2 || elf[5] != 1)
    fail("cubin", "its ELF header", "a 64-bit little-endian ELF");
  if (at<std::uint16_t>(elf, 0x12) != kMachineCuda)
    fail("cubin machine", std::to_string(at<std::uint16_t>(elf, 0x12)), "190 (EM_CUDA)");
  const auto table = at<std::uint64_t>(elf, 0x28);
  const auto entry_bytes = at<std::uint16_t>(elf, 0x3A), count = at<std::uint16_t>(elf, 0x3C),
             names = at<std::uint16_t>(elf, 0x3E);
  if (entry_bytes != 64 || names >= count || table > kMaxSection)
    fail("cubin section table", std::to_string(count) + " entries of " + std::to_string(entry_bytes) + " bytes",
         "64-byte entries, the names' section among them");
  std::vector<Section> s;
  for (std::uint16_t i = 0; i < count; ++i) {
    const std::uint8_t* h = elf + table + 64u * i;
    s.push_back({"", at<std::uint32_t>(h, 4), at<std::uint32_t>(h, 40), at<std::uint64_t>(h, 24),
                 at<std::uint64_t>(h, 32)});
    if (s.back().offset > kMaxSection || s.back().size > kMaxSection)
      fail(("cubin section " + std::to_string(i)).c_str(), std::to_string(s.back().size) + " bytes", "under 1 GiB");
  }
  const Section& strings = s[names];
  for (std::uint16_t i = 0; i < count; ++i) {
    const auto name_at = at<std::uint32_t>(elf + table + 64u * i, 0);
    if (name_at >= strings.size) fail("cubin section name", std::to_string(name_at), "inside .shstrtab");
    s[i].name = std::string(reinterpret_cast<const char*>(elf + strings.offset + name_at),
                            strnlen(reinterpret_cast<const char*>(elf + strings.offset + name_at), strings.size - name_at));
  }
  return s;
}

// Calls f(attribute, value bytes) for each record of an .nv.info section.
template <class F>
void records(const std::uint8_t* elf, const Section& s, F&& f) {
  const std::uint8_t* p = elf + s.offset;
  for (std::uint64_t i = 0; i + 4 <= s.size;) {
    const std::uint8_t format = p[i], attribute = p[i + 1];
    if (format == kSizedValue) {
      const auto n = at<std::uint16_t>(p, i + 2);
      if (i + 4 + n > s.size) fail(("cubin " + s.name).c_str(), "a record of " + std::to_string(n) + " bytes", "inside its section");
      f(attribute, std::span<const std::uint8_t>(p + i + 4, n));
      i += 4u + n;
    } else if (format == kNoValue || format == kByteValue || format == kHalfValue) {
      i += 4;
    } else {
      fail(("cubin " + s.name + " record format").c_str(), std::to_string(format), "1 to 4");
    }
  }
}

}  // namespace

std::vector<CubinKernel> read_cubin(const std::uint8_t* image) {
  const std::vector<Section> s = sections(image);
  std::vector<CubinKernel> kernels;
  std::map<std::uint32_t, std::size_t> by_symbol;  // a kernel's symbol index → kernels[i]
  for (const Section& table : s) {
    if (table.type != kSymbolTable || table.link >= s.size()) continue;
    const Section& names = s[table.link];
    for (std::uint64_t k = 0; (k + 1) * 24 <= table.size; ++k) {
      const std::uint8_t* sym = image + table.offset + 24 * k;
      if ((sym[4] & 0xF) != kFunction || !(sym[5] & kCudaEntry)) continue;
      const auto name_at = at<std::uint32_t>(sym, 0);
      if (name_at >= names.size) fail("cubin symbol name", std::to_string(name_at), "inside " + names.name);
      const char* name = reinterpret_cast<const char*>(image + names.offset + name_at);
      by_symbol[static_cast<std::uint32_t>(k)] = kernels.size();
      kernels.push_back({std::string(name, strnlen(name, names.size - name_at))});
    }
  }
  const auto kernel_named = [&](std::string_view section, std::string_view prefix) -> CubinKernel* {
    for (CubinKernel& k : kernels)
      if (section.substr(0, prefix.size()) == prefix && section.substr(prefix.size()) == k.name) return &k;
    return nullptr;
  };
  for (const Section& section : s) {
    if (section.type == kNoBits && kernel_named(section.name, ".nv.shared."))
      kernel_named(section.name, ".nv.shared.")->shared_bytes = static_cast<std::uint32_t>(section.size);
    if (section.name == ".nv.info")
      records(image, section, [&](std::uint8_t attribute, std::span<const std::uint8_t> v) {
        if ((attribute != kRegisterCount && attribute != kFrameSize) || v.size() != 8) return;
        const auto k = by_symbol.find(at<std::uint32_t>(v.data(), 0));
        if (k == by_symbol.end()) return;  // a device function's
        const auto value = at<std::uint32_t>(v.data(), 4);
        if (attribute == kRegisterCount) kernels[k->second].registers = static_cast<int>(value);
        else kernels[k->second].local_bytes = value;
      });
    if (CubinKernel* k = kernel_named(section.name, ".nv.info."))
      records(image, section, [&](std::uint8_t attribute, std::span<const std::uint8_t> v) {
        if ((attribute == kMaxThreads || attribute == kRequiredThreads) && v.size() == 12)
          k->max_threads = static_cast<int>(at<std::uint32_t>(v.data(), 0) * at<std::uint32_t>(v.data(), 4) *
                                            at<std::uint32_t>(v.data(), 8));
      });
  }
  return kernels;
}

}  // namespace tcgen::run
