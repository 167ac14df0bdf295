#pragma once
// The emulated device, one B200: its cudaDeviceProp and its attributes
// (the runtime's and the driver's share their numbering).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "tcgen/tma/sm100_limits.hpp"

namespace tcgen::run {

// The limits the runtime enforces, as cudaDeviceProp states them.
inline constexpr std::uint64_t kGlobalMemoryBytes = std::uint64_t{180} << 30;
inline constexpr int kSharedPerBlockOptin = tma::kSmemBytesPerCta;  // 227 KiB
inline constexpr int kSharedPerBlockDefault = 48 * 1024;  // without cudaFuncAttributeMaxDynamicSharedMemorySize
inline constexpr int kSharedPerSm = tma::kSmemBytesPerSm;         // 228 KiB
inline constexpr int kWarpsPerSm = 64, kCtasPerSm = 32;
inline constexpr int kSms = 148;

// cudaOccupancyMaxActiveClusters and the driver's: the clusters of `cluster_ctas` CTAs (at least 1:
// the callers refuse a cluster dimension of 0) `sms` SMs hold at `ctas_per_sm` CTAs each.
inline int max_active_clusters(int ctas_per_sm, unsigned cluster_ctas, int sms) {
  return static_cast<int>(static_cast<unsigned>(sms * ctas_per_sm) / cluster_ctas);
}

// `sms`: the SMs the device reports, kSms or fewer (tcgen run --sms).
void b200_properties(cudaDeviceProp* p, int sms);
// false (and a report) for an attribute not emulated
bool device_attribute(int* value, int attribute, int device, int sms);

}  // namespace tcgen::run
