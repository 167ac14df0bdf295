// Asks the CUDA driver for tensor maps over a sweep of every argument of cuTensorMapEncodeTiled,
// cuTensorMapEncodeIm2col and cuTensorMapEncodeIm2colWide, and prints each call's arguments, its
// CUresult and the 128 bytes it wrote, one CSV row a call (stdout). From a base case one argument
// varies at a time, then random combinations (fixed seed). The rows are what docs/tensor_map.md reads
// NVIDIA's CUtensorMap layout from, and what tests/host/test_tensor_map_nvidia.cpp checks tcgen's
// encoder and decoder against (tests/data/tensormap_sweep_h200.csv.zst).
//
// Build and run (on a machine with an NVIDIA driver; no kernel is launched):
//   g++ -std=c++17 -O1 -I/usr/local/cuda/include encode_sweep.cpp -o encode_sweep -lcuda && ./encode_sweep > sweep.csv
#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

enum class Function { tiled, im2col, im2col_wide };
const char* name(Function f) {
  return f == Function::tiled ? "tiled" : f == Function::im2col ? "im2col" : "im2col_wide";
}

// One call's arguments; entries at and beyond rank are passed too (the driver must ignore them).
struct Call {
  Function function = Function::tiled;
  std::string varied;
  int data_type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  unsigned rank = 3;
  std::uint64_t address = 0x7f3a5c2d1e60;  // 32-byte aligned, not 64: the packed types and interleave 32B accept it
  std::uint64_t dims[5] = {1000, 300, 7, 5, 3};
  std::uint64_t strides[4] = {2048, 614400, 4300800, 21504000};  // each a multiple of 32, at least the dims below
  unsigned box[5] = {64, 32, 4, 2, 2};
  unsigned element_strides[5] = {1, 1, 1, 1, 1};
  int interleave = 0, swizzle = 0, l2 = 0, oob = 0;
  int lower[3] = {}, upper[3] = {};  // im2col corners (im2col_wide: entry 0, the width)
  unsigned channels = 0, pixels = 0;
  int mode = 0;  // CUtensorMapIm2ColWideMode
};

std::string join(const std::uint64_t* v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? ":" : "") + std::to_string(v[i]);
  return s;
}
template <class T>
std::string join(const T* v, int n) {
  std::uint64_t w[5];
  for (int i = 0; i < n; ++i) w[i] = static_cast<std::uint64_t>(static_cast<std::int64_t>(v[i]));
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? ":" : "") + std::to_string(static_cast<std::int64_t>(w[i]));
  return s;
}

// cuTensorMapEncodeIm2colWide (CUDA 12.8 and later), looked up: a driver without it gives NOT_FOUND rows.
PFN_cuTensorMapEncodeIm2colWide_v12080 encode_im2col_wide = nullptr;

CUresult encode(const Call& c, CUtensorMap* map) {
  const auto type = static_cast<CUtensorMapDataType>(c.data_type);
  const auto interleave = static_cast<CUtensorMapInterleave>(c.interleave);
  const auto swizzle = static_cast<CUtensorMapSwizzle>(c.swizzle);
  const auto l2 = static_cast<CUtensorMapL2promotion>(c.l2);
  const auto oob = static_cast<CUtensorMapFloatOOBfill>(c.oob);
  void* global = reinterpret_cast<void*>(static_cast<std::uintptr_t>(c.address));
  const auto* dims = reinterpret_cast<const cuuint64_t*>(c.dims);
  const auto* strides = reinterpret_cast<const cuuint64_t*>(c.strides);
  switch (c.function) {
    case Function::tiled:
      return cuTensorMapEncodeTiled(map, type, c.rank, global, dims, strides, c.box, c.element_strides, interleave,
                                    swizzle, l2, oob);
    case Function::im2col:
      return cuTensorMapEncodeIm2col(map, type, c.rank, global, dims, strides, c.lower, c.upper, c.channels, c.pixels,
                                     c.element_strides, interleave, swizzle, l2, oob);
    case Function::im2col_wide:
      if (!encode_im2col_wide) return CUDA_ERROR_NOT_FOUND;
      return encode_im2col_wide(map, type, c.rank, global, dims, strides, c.lower[0], c.upper[0], c.channels,
                                         c.pixels, c.element_strides, interleave,
                                         static_cast<CUtensorMapIm2ColWideMode>(c.mode), swizzle, l2, oob);
  }
  return CUDA_ERROR_INVALID_VALUE;
}

// Each call is made twice, over a map filled with 0x00 and with 0xFF: the bytes are printed from the
// first; "prefill" says whether the second gave the same bytes (a field the driver leaves as it
// found it would differ), and for a refused call whether the driver left the map untouched.
void print(const Call& c) {
  alignas(128) CUtensorMap zeros, ones;
  std::memset(&zeros, 0x00, sizeof zeros);
  std::memset(&ones, 0xFF, sizeof ones);
  const CUresult r = encode(c, &zeros);
  const CUresult r2 = encode(c, &ones);
  const auto* z = reinterpret_cast<const unsigned char*>(&zeros);
  const auto* o = reinterpret_cast<const unsigned char*>(&ones);
  std::string prefill, bytes;
  if (r == CUDA_SUCCESS) {
    prefill = r2 == CUDA_SUCCESS && std::memcmp(z, o, 128) == 0 ? "same" : "differs";
    char hex[3];
    for (int i = 0; i < 128; ++i) {
      std::snprintf(hex, sizeof hex, "%02x", z[i]);
      bytes += hex;
    }
  } else {
    bool kept = r2 != CUDA_SUCCESS;
    for (int i = 0; i < 128; ++i) kept = kept && z[i] == 0x00 && o[i] == 0xFF;
    prefill = kept ? "kept" : "written";
  }
  const bool im2col = c.function != Function::tiled;
  std::printf("%s,%s,%d,%u,0x%llx,%s,%s,%s,%s,%d,%d,%d,%d,%s,%s,%s,%s,%s,%d,%s,%s\n", name(c.function),
              c.varied.c_str(), c.data_type, c.rank, static_cast<unsigned long long>(c.address),
              join(c.dims, 5).c_str(), join(c.strides, 4).c_str(), im2col ? "" : join(c.box, 5).c_str(),
              join(c.element_strides, 5).c_str(), c.interleave, c.swizzle, c.l2, c.oob,
              im2col ? join(c.lower, 3).c_str() : "", im2col ? join(c.upper, 3).c_str() : "",
              im2col ? std::to_string(c.channels).c_str() : "", im2col ? std::to_string(c.pixels).c_str() : "",
              c.function == Function::im2col_wide ? std::to_string(c.mode).c_str() : "", static_cast<int>(r),
              prefill.c_str(), bytes.c_str());
}

Call with(Call c, const std::string& varied) {
  c.varied = varied;
  return c;
}

// The rank-5 base: every dimension's fields in use.
Call base5() {
  Call c;
  c.rank = 5;
  return c;
}

// A base the packed types accept (DRV: globalDim[0] a multiple of 128, boxDim[0] 128, 32-byte strides).
Call packed_base() {
  Call c;
  c.dims[0] = 1024;
  c.box[0] = 128;
  return c;
}

Call im2col_base() {
  Call c;
  c.function = Function::im2col;
  c.rank = 4;  // NHWC: 64 channels, W 30, H 20, N 3
  const std::uint64_t dims[5] = {64, 30, 20, 3, 2}, strides[4] = {128, 3840, 76800, 230400};
  std::memcpy(c.dims, dims, sizeof dims);
  std::memcpy(c.strides, strides, sizeof strides);
  c.lower[0] = -1, c.lower[1] = -2, c.lower[2] = -3;
  c.upper[0] = 1, c.upper[1] = 2, c.upper[2] = 3;
  c.channels = 64;
  c.pixels = 128;
  return c;
}

Call im2col_wide_base() {
  Call c = im2col_base();
  c.function = Function::im2col_wide;
  c.lower[0] = -1;
  c.upper[0] = 1;
  return c;
}

void sweep_tiled() {
  const Call base = with(Call{}, "base");
  print(base);
  print(with(base5(), "base"));
  for (int t = 0; t <= 16; ++t) {
    Call c = with(base, "data_type");
    c.data_type = t;
    print(c);
    Call p = with(packed_base(), "data_type_packed_base");
    p.data_type = t;
    print(p);
  }
  for (unsigned r = 0; r <= 6; ++r) {
    Call c = with(base5(), "rank");
    c.rank = r;
    print(c);
  }
  for (int k = 0; k < 64; ++k) {
    Call c = with(base, "address");
    c.address = std::uint64_t{1} << k;
    print(c);
  }
  for (std::uint64_t a : {std::uint64_t{0}, std::uint64_t{0x7f3a5c2d1e68}, std::uint64_t{0x7f3a5c2d1e70},
                          std::uint64_t{0xfffffffffff0}, std::uint64_t{0x1fffffffffffff0}, ~std::uint64_t{15}}) {
    Call c = with(base, "address");
    c.address = a;
    print(c);
  }
  // Dims as powers of two and one past them (the second shows an encoding of dim - 1 as one bit).
  for (int d = 0; d < 5; ++d) {
    std::vector<std::uint64_t> values = {0, 1, 2, 3};
    for (int k = 2; k <= 33; ++k)
      if (d == 0 || k % 4 == 0 || k >= 31) values.insert(values.end(), {std::uint64_t{1} << k, (std::uint64_t{1} << k) + 1});
    for (std::uint64_t v : values) {
      Call c = with(base5(), "dims[" + std::to_string(d) + "]");
      c.dims[d] = v;
      print(c);
    }
  }
  for (int s = 0; s < 4; ++s) {
    std::vector<std::uint64_t> values = {0, 8, 24, 48};
    for (int k = 4; k <= 41; ++k)
      if (s == 0 || k % 4 == 0 || k >= 39) values.insert(values.end(), {std::uint64_t{1} << k, (std::uint64_t{1} << k) + 16});
    for (std::uint64_t v : values) {
      Call c = with(base5(), "strides[" + std::to_string(s) + "]");
      c.strides[s] = v;
      print(c);
    }
  }
  for (int b = 0; b < 5; ++b)
    for (unsigned v : {0u, 1u, 2u, 3u, 4u, 5u, 7u, 8u, 16u, 24u, 31u, 32u, 64u, 100u, 128u, 200u, 255u, 256u, 257u, 1024u}) {
      Call c = with(base5(), "box[" + std::to_string(b) + "]");
      c.box[b] = v;
      print(c);
    }
  for (int e = 0; e < 5; ++e)
    for (unsigned v = 0; v <= 9; ++v) {
      Call c = with(base5(), "element_strides[" + std::to_string(e) + "]");
      c.element_strides[e] = v;
      print(c);
    }
  // Interleave × swizzle × the box's inner bytes (16 .. 256 at 2 bytes an element).
  for (int i = 0; i <= 3; ++i)
    for (int s = 0; s <= 7; ++s)
      for (unsigned b0 : {8u, 16u, 32u, 64u, 128u}) {
        Call c = with(base, "interleave+swizzle+box[0]");
        c.interleave = i, c.swizzle = s, c.box[0] = b0;
        print(c);
      }
  // Tensors of a few bytes to a few MiB: CUTLASS 4.3.4 and later clear bit 21 of bytes 8-15 after
  // encoding where the tensor spans less than 128 KiB and the driver is 13.1 or older
  // (cute/atom/copy_traits_sm90_tma.hpp, make_tma_copy_desc).
  for (std::uint64_t rows : {1, 2, 1023, 1024, 1025, 4096}) {
    Call c = with(base, "span");
    c.rank = 2;
    c.dims[0] = 64, c.dims[1] = rows;
    c.strides[0] = 128;
    c.box[1] = 1;
    print(c);
  }
  for (std::uint64_t elements : {64, 65535 - 7, 65536, 65536 + 8, 1 << 20}) {
    Call c = with(base, "span");
    c.rank = 1;
    c.dims[0] = elements;
    print(c);
  }
  for (int l = 0; l <= 4; ++l) {
    Call c = with(base, "l2");
    c.l2 = l;
    print(c);
  }
  for (int t = 0; t <= 15; ++t)
    for (int o = 0; o <= 2; ++o) {
      Call c = with(t >= 13 ? packed_base() : base, "data_type+oob");
      c.data_type = t, c.oob = o;
      print(c);
    }
}

void sweep_im2col() {
  const Call base = with(im2col_base(), "base");
  print(base);
  for (int t = 0; t <= 16; ++t) {
    Call c = with(base, "data_type");
    c.data_type = t;
    print(c);
  }
  for (unsigned r = 1; r <= 6; ++r) {
    Call c = with(base, "rank");
    c.rank = r;
    print(c);
  }
  for (std::uint64_t a : {std::uint64_t{0}, std::uint64_t{16}, std::uint64_t{0x7f3a5c2d1e68}, std::uint64_t{0x7f3a5c2d1e70},
                          std::uint64_t{0xfffffffffff0}}) {
    Call c = with(base, "address");
    c.address = a;
    print(c);
  }
  // Each corner entry of ranks 3, 4 and 5 (DRV: a range that narrows with the rank).
  for (unsigned rank = 3; rank <= 5; ++rank)
    for (unsigned e = 0; e + 2 < rank; ++e)
      for (int upper = 0; upper <= 1; ++upper)
        for (int v : {-32769, -32768, -129, -128, -17, -16, -1, 0, 1, 15, 16, 127, 128, 32767}) {
          Call c = with(base, std::string(upper ? "upper" : "lower") + "[" + std::to_string(e) + "]");
          c.rank = rank;
          (upper ? c.upper : c.lower)[e] = v;
          print(c);
        }
  for (unsigned v : {0u, 1u, 2u, 4u, 8u, 16u, 24u, 32u, 64u, 128u, 200u, 256u, 257u, 512u}) {
    Call c = with(base, "channels");
    c.channels = v;
    print(c);
  }
  for (unsigned v : {0u, 1u, 2u, 3u, 4u, 8u, 16u, 32u, 64u, 100u, 256u, 512u, 1000u, 1023u, 1024u, 1025u, 2048u}) {
    Call c = with(base, "pixels");
    c.pixels = v;
    print(c);
  }
  for (int d = 0; d < 5; ++d)
    for (std::uint64_t v : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{257}, std::uint64_t{1} << 16,
                            (std::uint64_t{1} << 16) + 1, std::uint64_t{1} << 32, (std::uint64_t{1} << 32) + 1}) {
      Call c = with(base, "dims[" + std::to_string(d) + "]");
      c.rank = 5;
      c.dims[d] = v;
      print(c);
    }
  for (int s = 0; s < 4; ++s)
    for (std::uint64_t v : {std::uint64_t{16}, std::uint64_t{48}, std::uint64_t{1} << 20, (std::uint64_t{1} << 39) + 16}) {
      Call c = with(base, "strides[" + std::to_string(s) + "]");
      c.rank = 5;
      c.strides[s] = v;
      print(c);
    }
  for (int e = 0; e < 5; ++e)
    for (unsigned v = 0; v <= 9; ++v) {
      Call c = with(base, "element_strides[" + std::to_string(e) + "]");
      c.rank = 5;
      c.element_strides[e] = v;
      print(c);
    }
  for (int i = 0; i <= 2; ++i)
    for (int s = 0; s <= 7; ++s)
      for (unsigned ch : {16u, 32u, 64u}) {
        Call c = with(base, "interleave+swizzle+channels");
        c.interleave = i, c.swizzle = s, c.channels = ch;
        print(c);
      }
  for (int l = 0; l <= 4; ++l) {
    Call c = with(base, "l2");
    c.l2 = l;
    print(c);
  }
  for (int o = 0; o <= 2; ++o) {
    Call c = with(base, "oob");
    c.oob = o;
    print(c);
  }
}

void sweep_im2col_wide() {
  const Call base = with(im2col_wide_base(), "base");
  print(base);
  for (int m = 0; m <= 2; ++m)
    for (int s = 0; s <= 7; ++s) {
      Call c = with(base, "mode+swizzle");
      c.mode = m, c.swizzle = s;
      print(c);
    }
  for (int v : {-32769, -32768, -129, -128, -1, 0, 1, 127, 128, 32767}) {
    Call c = with(base, "lower[0]");
    c.lower[0] = v;
    print(c);
    c = with(base, "upper[0]");
    c.upper[0] = v;
    print(c);
  }
}

// Random maps the driver should take: the arguments drawn within DRV's ranges.
void sweep_random(std::mt19937_64& rng, int n) {
  const auto uniform = [&](std::uint64_t lo, std::uint64_t hi) {  // [lo, hi]
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  };
  const auto log_uniform = [&](int lo_bits, int hi_bits) {  // 2^lo .. 2^hi - 1, every bit width alike
    const int bits = static_cast<int>(uniform(lo_bits, hi_bits - 1));
    return uniform(std::uint64_t{1} << bits, (std::uint64_t{2} << bits) - 1);
  };
  const unsigned element_bytes[13] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  for (int i = 0; i < n; ++i) {
    Call c;
    c.varied = "random";
    const bool im2col = i % 3 == 2;
    if (im2col) c = with(im2col_base(), "random");
    c.data_type = static_cast<int>(uniform(0, 12));
    const unsigned eb = element_bytes[c.data_type];
    c.rank = static_cast<unsigned>(im2col ? uniform(3, 5) : uniform(1, 5));
    c.address = log_uniform(8, 57) & ~std::uint64_t{15};
    for (int d = 0; d < 5; ++d) {
      c.dims[d] = uniform(0, 3) == 0 ? log_uniform(0, 33) : uniform(1, 400);
      if (c.dims[d] > (std::uint64_t{1} << 32)) c.dims[d] = std::uint64_t{1} << 32;
      c.box[d] = static_cast<unsigned>(uniform(1, 256));
      c.element_strides[d] = static_cast<unsigned>(uniform(1, 8));
    }
    for (int s = 0; s < 4; ++s) c.strides[s] = log_uniform(4, 40) & ~std::uint64_t{15};
    c.swizzle = static_cast<int>(uniform(0, 3));
    const unsigned span = c.swizzle == 0 ? 256 * eb : 16u << c.swizzle;
    const unsigned inner = 16 * static_cast<unsigned>(uniform(1, span / 16));  // bytes, a multiple of 16
    c.box[0] = std::min(256u, std::max(1u, inner / eb));
    c.l2 = static_cast<int>(uniform(0, 3));
    c.oob = (c.data_type >= 6 && c.data_type != 8) ? static_cast<int>(uniform(0, 1)) : 0;
    if (im2col) {
      const int corner_bits = c.rank == 3 ? 15 : c.rank == 4 ? 7 : 4;  // DRV's ranges by rank
      for (int e = 0; e < 3; ++e) {
        c.lower[e] = static_cast<int>(uniform(0, (2u << corner_bits) - 1)) - (1 << corner_bits);
        c.upper[e] = static_cast<int>(uniform(0, (2u << corner_bits) - 1)) - (1 << corner_bits);
      }
      c.channels = std::min(256u, std::max(1u, inner / eb));
      c.pixels = static_cast<unsigned>(uniform(1, 1024));
    }
    print(c);
  }
}

}  // namespace

int main() {
  CUdevice dev;
  int version = 0, major = 0, minor = 0;
  char device_name[256] = "?";
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS) {
    std::fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  cuDriverGetVersion(&version);
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  // A current context, where the driver offers one (tcgen's driver needs none and has no such functions).
  void *retain = nullptr, *set_current = nullptr, *get_name = nullptr;
  cuGetProcAddress("cuDevicePrimaryCtxRetain", &retain, 12000, CU_GET_PROC_ADDRESS_DEFAULT, nullptr);
  cuGetProcAddress("cuCtxSetCurrent", &set_current, 12000, CU_GET_PROC_ADDRESS_DEFAULT, nullptr);
  cuGetProcAddress("cuDeviceGetName", &get_name, 12000, CU_GET_PROC_ADDRESS_DEFAULT, nullptr);
  if (retain && set_current) {
    CUcontext ctx;
    reinterpret_cast<CUresult (*)(CUcontext*, CUdevice)>(retain)(&ctx, dev);
    reinterpret_cast<CUresult (*)(CUcontext)>(set_current)(ctx);
  }
  cuGetProcAddress("cuTensorMapEncodeIm2colWide", reinterpret_cast<void**>(&encode_im2col_wide), 12080,
                   CU_GET_PROC_ADDRESS_DEFAULT, nullptr);
  if (get_name) reinterpret_cast<CUresult (*)(char*, int, CUdevice)>(get_name)(device_name, sizeof device_name, dev);
  std::printf("# cuTensorMapEncode* sweep (tools/tensormap_sweep/encode_sweep.cpp): %s, sm_%d%d, cuDriverGetVersion %d\n",
              device_name, major, minor, version);
  std::printf("# lists are ':'-separated, entries beyond rank passed too; result: CUresult; prefill: same/differs "
              "(accepted, bytes over a 0x00 and a 0xFF map), kept/written (refused: the map left as it was or not)\n");
  std::printf("function,varied,data_type,rank,address,dims,strides,box,element_strides,interleave,swizzle,l2,oob,"
              "lower,upper,channels,pixels,mode,result,prefill,bytes\n");
  sweep_tiled();
  sweep_im2col();
  sweep_im2col_wide();
  std::mt19937_64 rng(20261204);
  sweep_random(rng, 300);
  return 0;
}
