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

}  // namespace tcgen::run
