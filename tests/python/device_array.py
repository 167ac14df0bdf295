"""Device memory for Triton without torch: a numpy array's bytes in memory
that tcgen's libcuda.so.1 allocates (cuMemAlloc), so that a kernel may read
and write it. Triton takes any object with data_ptr() and a dtype whose name
it knows (numpy's 'float16' is Triton's fp16)."""
import ctypes

import numpy as np

_cuda = ctypes.CDLL("libcuda.so.1")  # tcgen's, first on LD_LIBRARY_PATH under tcgen run
_cuda.cuInit(0)


def _check(result, call):
    if result != 0:
        raise RuntimeError(f"{call} failed with CUresult {result}")


class DeviceArray:
    """A device copy of a numpy array: shape, strides in elements, dtype, data_ptr()."""

    def __init__(self, host):
        host = np.ascontiguousarray(host)
        self.shape, self.dtype, self.nbytes = host.shape, host.dtype, host.nbytes
        self._ptr = ctypes.c_uint64()
        _check(_cuda.cuMemAlloc_v2(ctypes.byref(self._ptr), ctypes.c_size_t(max(self.nbytes, 1))), "cuMemAlloc")
        _check(_cuda.cuMemcpyHtoD_v2(self._ptr, host.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(self.nbytes)),
               "cuMemcpyHtoD")

    @classmethod
    def zeros(cls, shape, dtype):
        return cls(np.zeros(shape, dtype))

    def data_ptr(self):
        return self._ptr.value

    def stride(self, dim=None):
        strides = [s // self.dtype.itemsize for s in np.empty(self.shape, self.dtype).strides]
        return tuple(strides) if dim is None else strides[dim]

    def numpy(self):
        host = np.empty(self.shape, self.dtype)
        _check(_cuda.cuMemcpyDtoH_v2(host.ctypes.data_as(ctypes.c_void_p), self._ptr, ctypes.c_size_t(self.nbytes)),
               "cuMemcpyDtoH")
        return host


def report(name, got, want, bound):
    """Per-row worst relative error and cosine against the fp64 reference; True when within bound."""
    got, want = got.astype(np.float64), want.astype(np.float64)
    err = np.abs(got - want).max(axis=-1) / np.maximum(np.abs(want).max(axis=-1), 1e-30)
    cosine = (got * want).sum() / max(np.linalg.norm(got) * np.linalg.norm(want), 1e-300)
    worst = int(np.argmax(err))
    ok = bool(err.max() <= bound) and cosine > 0.999
    print(f"{name}: largest row error {err.max():.3g} (row {worst}, bound {bound:g}), cosine {cosine:.6f}: "
          f"{'PASSED' if ok else 'FAILED'}")
    return ok
