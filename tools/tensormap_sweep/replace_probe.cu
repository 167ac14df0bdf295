// What tensormap.replace writes into NVIDIA's CUtensorMap, on the GPU: a map from the driver
// (cuTensorMapEncodeTiled, the rank-5 base of encode_sweep.cpp) is copied 128 bytes per case into
// global memory; one thread applies one tensormap.replace.tile to each copy; the copies come back
// and are printed, one CSV row a case (stdout), with the base's bytes first. Each .field3 value
// (elemtype, interleave_layout, swizzle_mode, fill_mode) and rank must be an immediate (PTX
// #data-movement-and-conversion-instructions-tensormap-replace), hence one instantiation a case.
// swizzle_atomicity (sm_100a), swizzle_mode 4 (96B, sm_103a) and elemtype 13-15 (ptxas for sm_90a: "expected
// to be in range [0..12]") are not in sm_90a's instruction set.
//
//   nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a replace_probe.cu -o replace_probe -lcuda && ./replace_probe > replace.csv
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>

namespace {

enum class Field { global_address, rank, box_dim, global_dim, global_stride, element_stride, elemtype,
                   interleave_layout, swizzle_mode, fill_mode };
const char* name(Field f) {
  constexpr const char* names[] = {"global_address", "rank", "box_dim", "global_dim", "global_stride",
                                   "element_stride", "elemtype", "interleave_layout", "swizzle_mode", "fill_mode"};
  return names[static_cast<int>(f)];
}

struct Case {
  Field field;
  int ord;
  unsigned long long value;
};

#define TCGEN_ORDS5(F, V) {F, 0, V}, {F, 1, V}, {F, 2, V}, {F, 3, V}, {F, 4, V}
#define TCGEN_ORDS4(F, V) {F, 0, V}, {F, 1, V}, {F, 2, V}, {F, 3, V}
constexpr Case kCases[] = {
    {Field::global_address, 0, 0x7f3a5c2d1e60ull}, {Field::global_address, 0, 0x10ull},
    {Field::global_address, 0, 0x1ffffffffffff0ull}, {Field::global_address, 0, 0x7f3a5c2d1e6full},
    {Field::global_address, 0, 0xfffffffffffffff0ull},
    {Field::rank, 0, 0}, {Field::rank, 0, 1}, {Field::rank, 0, 2}, {Field::rank, 0, 3}, {Field::rank, 0, 4},
    TCGEN_ORDS5(Field::box_dim, 1), TCGEN_ORDS5(Field::box_dim, 2), TCGEN_ORDS5(Field::box_dim, 16),
    TCGEN_ORDS5(Field::box_dim, 255), TCGEN_ORDS5(Field::box_dim, 256),
    TCGEN_ORDS5(Field::global_dim, 1), TCGEN_ORDS5(Field::global_dim, 2), TCGEN_ORDS5(Field::global_dim, 1000),
    TCGEN_ORDS5(Field::global_dim, 0x10001), TCGEN_ORDS5(Field::global_dim, 0xffffffff),
    TCGEN_ORDS4(Field::global_stride, 16), TCGEN_ORDS4(Field::global_stride, 48),
    TCGEN_ORDS4(Field::global_stride, 2048), TCGEN_ORDS4(Field::global_stride, 0x1000000010ull),
    TCGEN_ORDS4(Field::global_stride, 0xfffffffff0ull),
    TCGEN_ORDS5(Field::element_stride, 1), TCGEN_ORDS5(Field::element_stride, 2), TCGEN_ORDS5(Field::element_stride, 5),
    TCGEN_ORDS5(Field::element_stride, 8),
    {Field::elemtype, 0, 0}, {Field::elemtype, 0, 1}, {Field::elemtype, 0, 2}, {Field::elemtype, 0, 3},
    {Field::elemtype, 0, 4}, {Field::elemtype, 0, 5}, {Field::elemtype, 0, 6}, {Field::elemtype, 0, 7},
    {Field::elemtype, 0, 8}, {Field::elemtype, 0, 9}, {Field::elemtype, 0, 10}, {Field::elemtype, 0, 11},
    {Field::elemtype, 0, 12},
    {Field::interleave_layout, 0, 0}, {Field::interleave_layout, 0, 1}, {Field::interleave_layout, 0, 2},
    {Field::swizzle_mode, 0, 0}, {Field::swizzle_mode, 0, 1}, {Field::swizzle_mode, 0, 2}, {Field::swizzle_mode, 0, 3},
    {Field::fill_mode, 0, 0}, {Field::fill_mode, 0, 1},
};
constexpr int kCount = sizeof kCases / sizeof kCases[0];

template <int I>
__device__ void apply(unsigned char* m) {
  constexpr Case c = kCases[I];
  constexpr int v = static_cast<int>(c.value);
  const unsigned long long wide = c.value;
  const unsigned narrow = static_cast<unsigned>(c.value);
  if constexpr (c.field == Field::global_address)
    asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" ::"l"(m), "l"(wide) : "memory");
  else if constexpr (c.field == Field::rank)
    asm volatile("tensormap.replace.tile.rank.global.b1024.b32 [%0], %1;" ::"l"(m), "n"(v) : "memory");
  else if constexpr (c.field == Field::box_dim)
    asm volatile("tensormap.replace.tile.box_dim.global.b1024.b32 [%0], %1, %2;" ::"l"(m), "n"(c.ord), "r"(narrow)
                 : "memory");
  else if constexpr (c.field == Field::global_dim)
    asm volatile("tensormap.replace.tile.global_dim.global.b1024.b32 [%0], %1, %2;" ::"l"(m), "n"(c.ord), "r"(narrow)
                 : "memory");
  else if constexpr (c.field == Field::global_stride)
    asm volatile("tensormap.replace.tile.global_stride.global.b1024.b64 [%0], %1, %2;" ::"l"(m), "n"(c.ord), "l"(wide)
                 : "memory");
  else if constexpr (c.field == Field::element_stride)
    asm volatile("tensormap.replace.tile.element_stride.global.b1024.b32 [%0], %1, %2;" ::"l"(m), "n"(c.ord),
                 "r"(narrow)
                 : "memory");
  else if constexpr (c.field == Field::elemtype)
    asm volatile("tensormap.replace.tile.elemtype.global.b1024.b32 [%0], %1;" ::"l"(m), "n"(v) : "memory");
  else if constexpr (c.field == Field::interleave_layout)
    asm volatile("tensormap.replace.tile.interleave_layout.global.b1024.b32 [%0], %1;" ::"l"(m), "n"(v) : "memory");
  else if constexpr (c.field == Field::swizzle_mode)
    asm volatile("tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%0], %1;" ::"l"(m), "n"(v) : "memory");
  else
    asm volatile("tensormap.replace.tile.fill_mode.global.b1024.b32 [%0], %1;" ::"l"(m), "n"(v) : "memory");
}

template <int... I>
__global__ void replace_each(unsigned char* maps, std::integer_sequence<int, I...>) {
  (apply<I>(maps + 128 * I), ...);
}

void print_row(const char* field, int ord, unsigned long long value, const unsigned char* bytes) {
  std::printf("%s,%d,0x%llx,", field, ord, value);
  for (int i = 0; i < 128; ++i) std::printf("%02x", bytes[i]);
  std::printf("\n");
}

}  // namespace

int main() {
  cudaFree(nullptr);  // the primary context, current
  alignas(128) CUtensorMap base;
  const cuuint64_t dims[5] = {1000, 300, 7, 5, 3}, strides[4] = {2048, 614400, 4300800, 21504000};
  const cuuint32_t box[5] = {64, 32, 4, 2, 2}, ones[5] = {1, 1, 1, 1, 1};
  const CUresult r = cuTensorMapEncodeTiled(&base, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 5,
                                            reinterpret_cast<void*>(0x7f3a5c2d1e60ull), dims, strides, box, ones,
                                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled: %d\n", static_cast<int>(r));
    return 1;
  }
  static unsigned char host[kCount][128];
  for (int i = 0; i < kCount; ++i) std::memcpy(host[i], &base, 128);
  unsigned char* maps = nullptr;
  cudaError_t e = cudaMalloc(&maps, sizeof host);
  if (e == cudaSuccess) e = cudaMemcpy(maps, host, sizeof host, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) replace_each<<<1, 1>>>(maps, std::make_integer_sequence<int, kCount>{});
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaMemcpy(host, maps, sizeof host, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    std::fprintf(stderr, "CUDA: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::printf("# tensormap.replace.tile on a copy of the base map a case (tools/tensormap_sweep/replace_probe.cu)\n");
  std::printf("field,ord,new_val,bytes\n");
  print_row("base", 0, 0, reinterpret_cast<const unsigned char*>(&base));
  for (int i = 0; i < kCount; ++i) print_row(name(kCases[i].field), kCases[i].ord, kCases[i].value, host[i]);
  return 0;
}
