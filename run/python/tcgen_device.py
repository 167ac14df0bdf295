"""Device arrays for Python programs under `tcgen run`, without torch or CuPy (docs/run.md).

A DeviceArray holds a numpy array's bytes in memory that tcgen's libcuda.so.1 allocates
(cuMemAlloc), so that kernels may read and write it:
- Triton takes it as it is: data_ptr() and a dtype whose name Triton knows;
- CuTe DSL and other DLPack consumers take it through __dlpack__, labelled as CUDA memory
  (kDLCUDA, device 0), so that the DSL types it as global memory;
- numpy() copies it back.
`tcgen run` puts this folder on PYTHONPATH: `from tcgen_device import DeviceArray`.
"""
import ctypes

import numpy as np

_cuda = ctypes.CDLL("libcuda.so.1")  # tcgen's, first on LD_LIBRARY_PATH under tcgen run
_cuda.cuInit(0)


def _check(result, call):
    if result != 0:
        raise RuntimeError(f"{call} failed with CUresult {result}")


# DLPack 0.8's C structs (dlpack.h) and the legacy capsule "dltensor" every consumer takes.
class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32), ("dtype", _DataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _Managed(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Managed))
_Managed._fields_ = [("dl_tensor", _Tensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]

_KDL_CUDA = 2
_CODES = {"i": 0, "u": 1, "f": 2, "b": 1}  # numpy kind → DLDataTypeCode (bool as 8-bit unsigned)
_alive = {}  # address of a handed-out DLManagedTensor → what it points into, until its deleter runs


@_Deleter
def _delete(managed):
    _alive.pop(ctypes.addressof(managed.contents), None)


def _data_type(dtype):
    if dtype.name == "bfloat16":  # ml_dtypes
        return _DataType(4, 16, 1)
    if dtype.kind not in _CODES:
        raise TypeError(f"dtype {dtype} has no DLPack code (expected an integer, float or bool type)")
    return _DataType(_CODES[dtype.kind], 8 * dtype.itemsize, 1)


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class DeviceArray:
    """A device copy of a numpy array: shape, dtype, strides in elements, data_ptr()."""

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

    def __dlpack_device__(self):
        return (_KDL_CUDA, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """The legacy DLPack capsule of this memory, as CUDA memory of device 0 (the null stream's: a
        stream argument asks for no ordering tcgen's synchronous copies do not already give)."""
        if copy:
            raise BufferError("DeviceArray.__dlpack__: copy=True is not supported (expected None or False)")
        if dl_device is not None and tuple(dl_device) != (_KDL_CUDA, 0):
            raise BufferError(f"DeviceArray.__dlpack__: dl_device = {dl_device} (expected (2, 0), CUDA device 0)")
        ndim = len(self.shape)
        shape = (ctypes.c_int64 * max(ndim, 1))(*self.shape)
        strides = (ctypes.c_int64 * max(ndim, 1))(*self.stride())
        managed = _Managed()
        managed.dl_tensor = _Tensor(self.data_ptr(), _Device(_KDL_CUDA, 0), ndim, _data_type(self.dtype),
                                    shape, strides, 0)
        managed.deleter = _delete
        _alive[ctypes.addressof(managed)] = (managed, shape, strides, self)
        return _capsule_new(ctypes.addressof(managed), b"dltensor", None)
