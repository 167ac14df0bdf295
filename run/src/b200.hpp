#pragma once
// The emulated device, one B200: its cudaDeviceProp and its attributes
// (the runtime's and the driver's share their numbering).
#include <cuda_runtime_api.h>

namespace tcgen::run {

void b200_properties(cudaDeviceProp* p);
// false (and a report) for an attribute not emulated
bool device_attribute(int* value, int attribute, int device);

}  // namespace tcgen::run
