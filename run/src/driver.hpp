#pragma once
// The driver functions by name, for cuGetProcAddress and the runtime's
// cudaGetDriverEntryPoint.
#include <string>

namespace tcgen::run {

// The emulated driver function `symbol`, or null (reported) when there is none.
// (cuGetProcAddress of cuGetExportTable, which only NVIDIA's runtime asks
// for, ends a program that did not load tcgen's runtime: driver.cpp.)
void* driver_function(const char* symbol);

// A line for tcgen run: through its pipe (TCGEN_RUN_FD) under it, else to stderr.
void to_tcgen_run(const std::string& line);

// A call of a function NVIDIA's runtime or driver exports and tcgen does not emulate (the stubs
// run/exports/stubs.cmake writes): named to tcgen run once, and 801, the value of both
// cudaErrorNotSupported and CUDA_ERROR_NOT_SUPPORTED.
int unemulated_call(const char* name);

}  // namespace tcgen::run
