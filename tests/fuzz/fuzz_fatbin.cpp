// The fatbinary reader of tcgen run and `tcgen ptx ./app` (run/fatbin.hpp):
// the entries' headers, then each PTX entry's text, ZSTD-decompressed where
// flagged, as embedded_ptx.cpp reads a file's .nv_fatbin.
#include "fuzz.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/run/fatbin.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tcgen::run;
  try {
    const std::vector<FatbinEntry> entries = parse_fatbin(std::span<const std::uint8_t>(data, size));
    for (const FatbinEntry& e : entries) {
      if (e.kind != FatbinEntry::Kind::ptx) continue;
      try {
        (void)ptx_text(e);
      } catch (const tcgen::Error&) {  // one bad entry; the next is read on its own
      }
    }
    (void)sm100a_ptx(entries);
  } catch (const tcgen::Error&) {
  }
  return 0;
}
