// The PTX conformance table (tests/conformance/README.md) on a Hopper GPU: the vectors whose
// minimum sm is 90, the same kernels run_vectors gives the interpreter (ptx_kernel.hpp) with
// .target sm_90a, loaded through the driver API (cuModuleLoadData) and judged by the same checks.
// This is how the oracle itself is judged against silicon.
//
//   ptx_conformance_sm90 TABLE [--only OPCODE_PREFIX]   (ctest passes the generated table)
// Exit 0: all agree; 1: a disagreement; 77: no sm_90 GPU or no table. A kernel the driver does not
// assemble is listed, not failed: the table keeps vectors for spellings PTX does not have (the
// interpreter refuses them too; ptx_forms_ptxas holds every form it accepts to assemble).
#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "ptx_kernel.hpp"
#include "vectors.hpp"

using namespace tcgen::conformance;

namespace {

// The driver API, loaded at run time (dlopen) rather than linked: a program linked to libcuda
// cannot even start on a machine without a driver (the loader exits 127), where this test must
// report "skipped" (77) like the other device tests.
#define CZ_DRIVER_FNS(X)                                                                        \
  X(cuInit) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetAttribute) X(cuDevicePrimaryCtxRetain) \
  X(cuCtxSetCurrent) X(cuGetErrorString) X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) \
  X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuLaunchKernel)
// cuda.h maps some names to versioned symbols (cuMemAlloc -> cuMemAlloc_v2); the member names and
// the dlsym strings go through the same macros, so both get the versioned name.
#define CZ_STR2(x) #x
#define CZ_STR(x) CZ_STR2(x)
struct Driver {
#define CZ_MEMBER(f) decltype(&::f) f = nullptr;
  CZ_DRIVER_FNS(CZ_MEMBER)
#undef CZ_MEMBER
};
Driver drv;

bool load_driver() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return false;
#define CZ_LOAD(f)                                                   \
  drv.f = reinterpret_cast<decltype(&::f)>(dlsym(h, CZ_STR(f))); \
  if (!drv.f) return false;
  CZ_DRIVER_FNS(CZ_LOAD)
#undef CZ_LOAD
  return true;
}

#define CU(call)                                                                       \
  do {                                                                                 \
    const CUresult r_ = (call);                                                        \
    if (r_ != CUDA_SUCCESS) {                                                          \
      const char* s_ = nullptr;                                                        \
      drv.cuGetErrorString(r_, &s_);                                                       \
      std::printf("FAILED: %s: %s\n", #call, s_ ? s_ : "?");                           \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

// Runs one template's vectors; returns the number that disagree (-1: ptxas refused the kernel).
int run_template(const std::vector<const Vector*>& vs, int& shown) {
  std::vector<std::string> inputs;
  for (const auto& [n, x] : vs.front()->inputs) inputs.push_back(n);
  const Kernel k = synthesize(vs.front()->tmpl, inputs, "sm_90a");
  CUmodule mod;
  if (drv.cuModuleLoadData(&mod, k.ptx.c_str()) != CUDA_SUCCESS) {
    std::printf("refused by the driver: %s\n", vs.front()->tmpl.c_str());
    return -1;
  }
  CUfunction f;
  CU(drv.cuModuleGetFunction(&f, mod, "conformance"));
  unsigned n = static_cast<unsigned>(vs.size());
  std::vector<unsigned long long> in(n * k.in_stride / 8), out(n * k.out_stride / 8, ~0ull);
  for (unsigned i = 0; i < n; ++i)
    for (std::size_t j = 0; j < k.inputs.size(); ++j)
      for (const auto& [name, x] : vs[i]->inputs)
        if (name == k.inputs[j].name) in[i * k.in_stride / 8 + j] = x;
  CUdeviceptr din, dout;
  CU(drv.cuMemAlloc(&din, in.size() * 8));
  CU(drv.cuMemAlloc(&dout, out.size() * 8));
  CU(drv.cuMemcpyHtoD(din, in.data(), in.size() * 8));
  CU(drv.cuMemcpyHtoD(dout, out.data(), out.size() * 8));
  void* args[] = {&din, &dout, &n};
  CU(drv.cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  CU(drv.cuMemcpyDtoH(out.data(), dout, out.size() * 8));
  CU(drv.cuMemFree(din));
  CU(drv.cuMemFree(dout));
  CU(drv.cuModuleUnload(mod));
  int bad = 0;
  for (unsigned i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < k.outputs.size(); ++j) {
      for (const auto& [name, e] : vs[i]->expected) {
        const unsigned long long got = out[i * k.out_stride / 8 + j];
        if (name != k.outputs[j].name || passes(vs[i]->check, e, got, k.outputs[j].bits)) continue;
        ++bad;
        if (shown++ < 40)
          std::printf("DISAGREE %s (line %d): %s expected 0x%llx got 0x%llx, check %s\n", vs[i]->tmpl.c_str(),
                      vs[i]->line, name.c_str(), static_cast<unsigned long long>(e), got, vs[i]->check.c_str());
      }
    }
  }
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  std::string table, only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else table = argv[i];
  }
  int count = 0, major = 0;
  CUdevice dev;
  if (!load_driver()) {
    std::printf("SKIPPED: needs an sm_90 GPU, found no CUDA driver (libcuda.so.1)\n");
    return 77;
  }
  if (drv.cuInit(0) != CUDA_SUCCESS || drv.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    std::printf("SKIPPED: needs an sm_90 GPU, found no CUDA device\n");
    return 77;
  }
  CU(drv.cuDeviceGet(&dev, 0));
  CU(drv.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  if (major != 9) {
    std::printf("SKIPPED: needs an sm_90 GPU, found sm_%d.x\n", major);
    return 77;
  }
  if (table.empty()) {
    std::printf("SKIPPED: no table given (tests/conformance/oracle/generate.py --out TABLE)\n");
    return 77;
  }
  CUcontext ctx;
  CU(drv.cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(drv.cuCtxSetCurrent(ctx));
  const std::vector<Vector> all = read_table(table);
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Vector*>> groups;
  for (const Vector& v : all) {
    if (v.sm > 90 || (!only.empty() && v.tmpl.rfind(only, 0) != 0)) continue;
    if (!groups.count(v.tmpl)) order.push_back(v.tmpl);
    groups[v.tmpl].push_back(&v);
  }
  int bad = 0, refused = 0, shown = 0, vectors = 0;
  for (const std::string& t : order) {
    const int r = run_template(groups[t], shown);
    r < 0 ? ++refused : bad += r;
    vectors += static_cast<int>(groups[t].size());
  }
  std::printf("templates %zu, vectors %d, refused %d, disagreements %d\n", order.size(), vectors, refused, bad);
  return bad ? 1 : 0;
}
