#include "fuzz.hpp"

#include <cstdio>
#include <cstdlib>

namespace tcgen::fuzz {

// abort() rather than a throw: libFuzzer saves the input on SIGABRT, and
// the replay driver's ctest run fails on it the same way.
void violated(const char* property) {
  std::fprintf(stderr, "tcgen fuzz: property violated: %s\n", property);
  std::abort();
}

}  // namespace tcgen::fuzz
