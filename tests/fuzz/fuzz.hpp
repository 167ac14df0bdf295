#pragma once
// What every harness shares (docs/reliability.md): the libFuzzer entry point's
// signature, and the one rule each harness checks beyond the sanitizers.
// A reader given bad input must throw tcgen::Error (the one-line message the
// CLI prints, exit 2 or 3); any other exception reaches main() as "internal
// error", exit 4, which is a bug. Harnesses catch tcgen::Error only and let
// everything else escape, so libFuzzer reports it as a crash (its
// "deadly signal" after std::terminate).
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace tcgen::fuzz {

// The input as text, as readers of files see it.
inline std::string_view text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A property a harness checks that no sanitizer would (a documented
// round trip): reported like a crash, with the input saved by libFuzzer.
[[noreturn]] void violated(const char* property);

}  // namespace tcgen::fuzz
