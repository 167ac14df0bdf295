// The device's modules: images a program registers or loads (a fatbinary's compute_100a PTX, PTX
// text, or a cubin for queries), their kernels by name, and what the queries ask of a kernel.
#include "device.hpp"

#include <algorithm>
#include <cstring>

#include "errors.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/core/hex.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"
#include "tcgen/run/fatbin.hpp"

namespace tcgen::run {

Binary::~Binary() = default;

Binary* Device::load_module(const void* image, const char* call, cudaError_t* error) {
  const auto* bytes = static_cast<const std::uint8_t*>(image);
  const auto refuse = [&](cudaError_t code, const std::string& why) -> Binary* {
    const char* name = "";
    driver_error_name(driver_error(code), &name);
    report(std::string(call) + ": " + why + " (" + name + ")");
    *error = code;
    return nullptr;
  };
  if (!image) return refuse(cudaErrorInvalidValue, "the image is a null pointer");
  auto b = std::make_unique<Binary>();
  try {
    // A cubin is the GPU's machine code, which the host model cannot run: its kernels answer queries
    // (attributes, occupancy) and their launches are refused, naming the kernel.
    if (std::memcmp(bytes, "\x7f" "ELF", 4) == 0) {
      b->cubin = read_cubin({bytes, cubin_extent(bytes)});
      binaries_.push_back(std::move(b));
      return binaries_.back().get();
    }
    std::uint32_t magic = 0;
    std::memcpy(&magic, bytes, sizeof magic);
    const std::uint8_t* fatbin = magic == 0x466243B1u ? unwrap_fatbin(image) : magic == 0xBA55ED50u ? bytes : nullptr;
    if (fatbin) {
      const std::vector<FatbinEntry> entries = parse_fatbin(fatbin);
      const FatbinEntry& ptx = sm100a_ptx(entries);
      b->module = std::make_unique<ptx::Module>(ptx::Module::parse(ptx_text(ptx), ptx.target() + ".ptx"));
    } else {
      b->module = std::make_unique<ptx::Module>(ptx::Module::parse(reinterpret_cast<const char*>(bytes), "module.ptx"));
    }
  } catch (const Error& e) {
    // A fatbinary without compute_100a PTX is the missing image a GPU reports; a malformed cubin an invalid
    // image; anything else, PTX it cannot read.
    return refuse(e.field() == "the program's device code" ? cudaErrorNoKernelImageForDevice
                  : e.field().starts_with("cubin")          ? cudaErrorInvalidKernelImage
                                                            : cudaErrorInvalidPtx,
                  e.what());
  }
  binaries_.push_back(std::move(b));
  return binaries_.back().get();
}

Binary* Device::loaded_module(const void* handle, const char* call) {
  for (const auto& b : binaries_)
    if (b.get() == handle && !b->wrapper) return b.get();
  report(std::string(call) + ": " + hex(reinterpret_cast<std::uintptr_t>(handle)) +
         " is no loaded module (CUDA_ERROR_INVALID_HANDLE)");
  return nullptr;
}

void Device::unload_module(Binary* b) {
  if (b->module) profile_.retire(*b->module);
  for (const auto& [name, handle] : b->functions) kernels_.erase(handle.get());
  std::erase_if(binaries_, [b](const std::unique_ptr<Binary>& p) { return p.get() == b; });
}

const void* Device::module_function(Binary& b, const char* name, const char* call) {
  if (const auto f = b.functions.find(name ? name : ""); f != b.functions.end()) return f->second.get();
  try {
    const std::string wanted = name ? name : "";
    if (!b.cubin) module(b).entry(wanted);
    else if (std::none_of(b.cubin->begin(), b.cubin->end(), [&](const CubinKernel& k) { return k.name == wanted; }))
      fail("kernel", wanted, "one of the cubin's " + std::to_string(b.cubin->size()) + " kernels");
  } catch (const Error& e) {
    report(std::string(call) + ": " + e.what() + " (CUDA_ERROR_NOT_FOUND)");
    return nullptr;
  }
  const void* handle = (b.functions[name] = std::make_unique<char>()).get();
  kernels_[handle] = {&b, name, std::nullopt};
  return handle;
}

bool Device::module_kernels(Binary& b, std::vector<std::string>& names, const char* call) {
  names.clear();
  if (b.cubin) {
    for (const CubinKernel& k : *b.cubin) names.push_back(k.name);
    return true;
  }
  try {
    for (const ptx::Function& f : module(b).functions())
      if (f.entry) names.push_back(f.name);
  } catch (const Error& e) {
    report(std::string(call) + ": " + e.what() + " (CUDA_ERROR_INVALID_IMAGE)");
    return false;
  }
  return true;
}

const ptx::Module& Device::module(Binary& b) {
  if (b.cubin)
    fail("the program's device code", "a cubin (ELF): machine code",
         "PTX, which the host model runs: load the kernel's PTX text (nvcc -ptx -arch=sm_100a) to launch it; a "
         "cubin answers attribute and occupancy queries only");
  if (!b.module) {
    const std::vector<FatbinEntry> entries = parse_fatbin(unwrap_fatbin(b.wrapper));
    const FatbinEntry& ptx = sm100a_ptx(entries);
    b.module = std::make_unique<ptx::Module>(ptx::Module::parse(ptx_text(ptx), ptx.target() + ".ptx"));
  }
  return *b.module;
}

Device::KernelFacts Device::facts(const Kernel& k) {
  if (k.binary->cubin) {
    const auto& kernels = *k.binary->cubin;
    const auto c = std::find_if(kernels.begin(), kernels.end(), [&](const CubinKernel& c) { return c.name == k.name; });
    if (c == kernels.end()) fail("kernel", k.name, "one of the cubin's kernels");
    return {c->shared_bytes, c->local_bytes, c->registers, c->max_threads, 0};
  }
  const ptx::Module& m = module(*k.binary);
  const ptx::Function& f = m.entry(k.name);
  const ptx::LaunchBounds bounds = ptx::launch_bounds(f);
  const auto limit = bounds.reqntid ? bounds.reqntid : bounds.maxntid;
  const auto version = m.version();  // "9.0"
  // PTX registers are virtual: what ptxas allocates is unknown here; at most 255 per thread.
  return {f.static_shared_bytes, f.local_bytes, static_cast<int>(std::min<std::uint32_t>(f.registers, 255)),
          limit ? static_cast<int>(limit->x * limit->y * limit->z) : 1024,
          10 * (version[0] - '0') + (version.size() > 2 ? version[2] - '0' : 0)};
}

}  // namespace tcgen::run
