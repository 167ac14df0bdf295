// A host program without CUDA of its own that loads a library carrying NVIDIA's static CUDA
// runtime (argv[1]) and calls it, as python3 loads CuPy.
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  void* lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) {
    std::printf("dlopen: %s\n", dlerror());
    return 1;
  }
  auto* count = reinterpret_cast<int (*)()>(dlsym(lib, "count_devices"));
  std::printf("devices: %d\n", count ? count() : -2);
  return 0;
}
