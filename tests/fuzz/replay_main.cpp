// The harnesses without libFuzzer (any compiler): runs LLVMFuzzerTestOneInput
// once on each file named, or on each file in each directory named, so the
// seeds and every saved crash input replay as a regression test in the
// ordinary build (ctest label host). An input that crashes fails the test.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "fuzz.hpp"

namespace {

int replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
    return 1;
  }
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  // An exact-size copy, as libFuzzer gives it, so an over-read is out of bounds.
  std::vector<std::uint8_t> exact(bytes);
  LLVMFuzzerTestOneInput(exact.data(), exact.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int failed = 0, n = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(arg)) {
      for (const auto& e : std::filesystem::directory_iterator(arg))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());  // a stable order for the log
    } else {
      files.push_back(arg);
    }
    for (const auto& f : files) {
      std::printf("replay: %s\n", f.c_str());
      std::fflush(stdout);  // the last name printed is the input that crashed
      failed += replay(f);
      ++n;
    }
  }
  std::printf("replay: %d inputs, %d unreadable\n", n, failed);
  return failed == 0 && n > 0 ? 0 : 1;
}
