#pragma once
// The errors of the emulated device in both APIs' names: one table
// (errors.cpp) gives each runtime error its driver twin and its text, so
// the runtime's cudaGetErrorName and the driver's cuGetErrorName agree.
#include <cuda.h>
#include <cuda_runtime_api.h>

namespace tcgen::run {

const char* error_name(cudaError_t e);    // "cudaErrorInvalidValue"; "cudaErrorUnknown" for one not in the table
const char* error_text(cudaError_t e);    // "invalid argument"
CUresult driver_error(cudaError_t e);     // CUDA_ERROR_INVALID_VALUE; CUDA_ERROR_UNKNOWN for one not in the table
cudaError_t runtime_error(CUresult e);    // the first runtime error of the table with e as its twin; cudaErrorUnknown
// The driver's name and text of e: false for a code not in the table.
bool driver_error_name(CUresult e, const char** name);
bool driver_error_text(CUresult e, const char** text);

}  // namespace tcgen::run
