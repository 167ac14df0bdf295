#include "errors.hpp"

namespace tcgen::run {

namespace {

// Runtime error, the driver's for the same cause, text (CUDA's own). Where
// several runtime errors share a driver error, the first row gives its text.
#define TCGEN_ERRORS(X)                                                                                          \
  X(cudaSuccess, CUDA_SUCCESS, "no error")                                                                       \
  X(cudaErrorInvalidValue, CUDA_ERROR_INVALID_VALUE, "invalid argument")                                         \
  X(cudaErrorMemoryAllocation, CUDA_ERROR_OUT_OF_MEMORY, "out of memory")                                        \
  X(cudaErrorInitializationError, CUDA_ERROR_NOT_INITIALIZED, "initialization error")                            \
  X(cudaErrorInvalidConfiguration, CUDA_ERROR_INVALID_VALUE, "invalid configuration argument")                   \
  X(cudaErrorMissingConfiguration, CUDA_ERROR_INVALID_VALUE, "__global__ function call is not configured")       \
  X(cudaErrorInvalidDevice, CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal")                                 \
  X(cudaErrorDeviceUninitialized, CUDA_ERROR_INVALID_CONTEXT, "invalid device context")                          \
  X(cudaErrorInvalidMemcpyDirection, CUDA_ERROR_INVALID_VALUE, "invalid copy direction for memcpy")              \
  X(cudaErrorInvalidPitchValue, CUDA_ERROR_INVALID_VALUE, "invalid pitch argument")                              \
  X(cudaErrorSymbolNotFound, CUDA_ERROR_NOT_FOUND, "named symbol not found")                                     \
  X(cudaErrorInvalidSymbol, CUDA_ERROR_NOT_FOUND, "invalid device symbol")                                       \
  X(cudaErrorInvalidResourceHandle, CUDA_ERROR_INVALID_HANDLE, "invalid resource handle")                        \
  X(cudaErrorInvalidDeviceFunction, CUDA_ERROR_INVALID_HANDLE, "invalid device function")                        \
  X(cudaErrorNoKernelImageForDevice, CUDA_ERROR_NO_BINARY_FOR_GPU,                                               \
    "no kernel image is available for execution on the device")                                                  \
  X(cudaErrorInvalidPtx, CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed")                                 \
  X(cudaErrorInvalidKernelImage, CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid")                     \
  X(cudaErrorNotReady, CUDA_ERROR_NOT_READY, "device not ready")                                                 \
  X(cudaErrorNotSupported, CUDA_ERROR_NOT_SUPPORTED, "operation not supported")                                  \
  X(cudaErrorIllegalAddress, CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered")             \
  X(cudaErrorAssert, CUDA_ERROR_ASSERT, "device-side assert triggered")                                          \
  X(cudaErrorLaunchFailure, CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure")

struct Row {
  cudaError_t runtime;
  CUresult driver;
  const char *runtime_name, *driver_name, *text;
};

constexpr Row kRows[] = {
#define TCGEN_ROW(runtime, driver, text) {runtime, driver, #runtime, #driver, text},
    TCGEN_ERRORS(TCGEN_ROW)
#undef TCGEN_ROW
};

const Row* row(cudaError_t e) {
  for (const Row& r : kRows)
    if (r.runtime == e) return &r;
  return nullptr;
}

const Row* row(CUresult e) {
  for (const Row& r : kRows)
    if (r.driver == e) return &r;
  return nullptr;
}

}  // namespace

const char* error_name(cudaError_t e) { return row(e) ? row(e)->runtime_name : "cudaErrorUnknown"; }
const char* error_text(cudaError_t e) { return row(e) ? row(e)->text : "unknown error"; }
CUresult driver_error(cudaError_t e) { return row(e) ? row(e)->driver : CUDA_ERROR_UNKNOWN; }
cudaError_t runtime_error(CUresult e) { return row(e) ? row(e)->runtime : cudaErrorUnknown; }

bool driver_error_name(CUresult e, const char** name) {
  if (!row(e)) return false;
  *name = row(e)->driver_name;
  return true;
}

bool driver_error_text(CUresult e, const char** text) {
  if (!row(e)) return false;
  *text = row(e)->text;
  return true;
}

}  // namespace tcgen::run
