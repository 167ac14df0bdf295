// Architectures that break the kernel contract (exec/kernel_arch.hpp): a
// kernel refuses them with the member named. tests/compile_fail/CMakeLists.txt
// compiles this file once per CASE_*; CASE_arch_legal must compile.
#include "tcgen/exec/host_arch.hpp"
#include "tcgen/gemm/kernel.hpp"

using namespace tcgen;
using G = gemm::Gemm<gemm::Config{}>;

#if defined(CASE_arch_legal)
static_assert(exec::KernelArch<exec::HostArch>);
void run(exec::HostArch& a, const G::Params<exec::HostArch>& p) { G::run(a, p); }
#elif defined(CASE_arch_missing_member)
struct NoWait : exec::HostArch {  // mbarrier_wait missing
  using HostArch::HostArch;
  void mbarrier_wait(std::uint32_t, std::uint32_t) = delete;
};
void run(NoWait& a, const G::Params<NoWait>& p) { G::run(a, p); }
#elif defined(CASE_arch_mistyped_member)
struct IntBase : exec::HostArch {  // smem_base returns int, not a 32-bit shared address
  using HostArch::HostArch;
  int smem_base() const;
};
void run(IntBase& a, const G::Params<IntBase>& p) { G::run(a, p); }
#endif

int main() { return 0; }
