#include "embedded_ptx.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

#include "tcgen/core/error.hpp"
#include "tcgen/run/fatbin.hpp"

namespace tcgen::cli {

std::vector<ptx::Module> embedded_ptx(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;  // run/fatbin.hpp: the fatbinary's first word
  std::vector<run::FatbinEntry> entries;
  // A fatbinary sits 8-byte aligned in .nv_fatbin; its header says how long it is, checked against the file.
  for (std::size_t at = 0; at + 16 <= bytes.size(); at += 8) {
    std::uint32_t magic;
    std::memcpy(&magic, &bytes[at], 4);
    if (magic != kFatbinMagic) continue;
    std::uint16_t header;
    std::uint64_t length;
    std::memcpy(&header, &bytes[at + 6], 2);
    std::memcpy(&length, &bytes[at + 8], 8);
    if (header < 16 || header > bytes.size() - at || length > bytes.size() - at - header) continue;
    try {
      for (const run::FatbinEntry& e : run::parse_fatbin(std::span(bytes).subspan(at))) entries.push_back(e);
    } catch (const Error&) {  // magic by chance, not a fatbinary
    }
  }
  if (entries.empty())
    fail("FILE", path,
         "PTX text, or a program, library or object with nvcc's device code; this ELF file carries no fatbinary");
  std::vector<ptx::Module> modules;
  std::set<std::string> seen;
  for (const run::FatbinEntry& e : entries) {
    if (e.kind != run::FatbinEntry::Kind::ptx || e.arch != 100 || !e.arch_specific) continue;
    std::string text = run::ptx_text(e);
    if (!seen.insert(text).second) continue;  // the same module twice (a program and a library of it)
    modules.push_back(ptx::Module::parse(text, path + " (compute_100a PTX " + std::to_string(modules.size() + 1) + ")"));
  }
  if (modules.empty()) {  // throws, naming the targets there are (once each) and how to build
    std::vector<run::FatbinEntry> targets;
    for (const run::FatbinEntry& e : entries)
      if (std::none_of(targets.begin(), targets.end(), [&](const run::FatbinEntry& t) { return t.target() == e.target(); }))
        targets.push_back(e);
    run::sm100a_ptx(targets);
  }
  return modules;
}

}  // namespace tcgen::cli
