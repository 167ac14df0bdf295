#pragma once
// The driver functions by name, for cuGetProcAddress and the runtime's
// cudaGetDriverEntryPoint.
namespace tcgen::run {

// The emulated driver function `symbol`, or null (reported) when there is none.
void* driver_function(const char* symbol);

}  // namespace tcgen::run
