#pragma once
// tcgen run --profile: where a program's time on the host model goes. Per
// kernel: launches, CTAs, PTX thread-instructions (one per thread per
// instruction executed, guards that failed included), host seconds and
// instructions per second, and the PTX lines that executed most, with
// their CUDA lines. A user sees at once when a verification kernel, not
// theirs, took the time.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tcgen::ptx {
class Module;
struct Function;
struct LaunchStats;
}  // namespace tcgen::ptx

namespace tcgen::run {

class Profile {
 public:
  static constexpr std::size_t kHottest = 10;  // PTX lines shown per kernel

  // One launch of `entry` of `module` (stats from LaunchConfig::profile), named `kernel` in reports,
  // that took `seconds` of host time.
  void add(const std::string& kernel, const ptx::Module& module, const ptx::Function& entry,
           const ptx::LaunchStats& stats, double seconds);
  // `module` is going away (cuModuleUnload): its kernels' counts stay, apart from a later module's.
  void retire(const ptx::Module& module);

  // For people: a row per kernel, most host time first, then each kernel's hottest PTX lines.
  std::string table() const;
  // One JSON object per kernel, most host time first, for tcgen run --json.
  std::vector<std::string> json() const;
  // "most host time in reference_gemm (85% of the kernels')", the kernels of one name together: for
  // the summary line; empty without launches.
  std::string busiest() const;

 private:
  struct Line {
    std::uint32_t ptx_line = 0;
    std::string source, text;  // "/src/gemm.cu:88" (empty without -lineinfo), the PTX statement
    std::uint64_t executed = 0;
  };
  struct Kernel {
    std::string name;
    const ptx::Module* module = nullptr;  // null once retired
    std::uint64_t launches = 0, ctas = 0, instructions = 0;
    double seconds = 0;
    std::vector<Line> lines;  // per instruction of the entry, in code order
  };
  std::vector<const Kernel*> by_time() const;
  static std::vector<const Line*> hottest(const Kernel& k);

  std::map<const ptx::Function*, Kernel> live_;
  std::vector<Kernel> retired_;
};

}  // namespace tcgen::run
