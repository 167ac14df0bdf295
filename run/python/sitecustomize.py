"""Python programs under `tcgen run`: the CUDA runtime calls that a package makes
through NVIDIA's runtime linked statically into it, which tcgen cannot stand
in for (its first call asks the driver for NVIDIA's private tables), are
answered by tcgen's device instead. `tcgen run` puts this folder first on
PYTHONPATH; a sitecustomize found later on the path still runs.

cuda.bindings.runtime (cuda-python) is such a package: CuTe DSL asks it the
device count and error names, and unloads its kernel libraries through it.
The names are tcgen's runtime's (libcudart.so.13, first on LD_LIBRARY_PATH
under tcgen run); the libraries are tcgen's CuTe DSL runtime's
(CUTE_DSL_LIBS), which unloads them itself."""
import ctypes
import importlib.abc
import importlib.util
import os
import sys

_RUNTIME = "cuda.bindings.runtime"


def _serve_from_tcgen(runtime):
    success = runtime.cudaError_t.cudaSuccess
    runtime.cudaGetDeviceCount = lambda: (success, 1)  # tcgen's driver: one B200
    runtime.cudaGetDevice = lambda: (success, 0)
    tcgen_runtime = ctypes.CDLL("libcudart.so.13")
    for name in ("cudaGetErrorName", "cudaGetErrorString"):
        text = getattr(tcgen_runtime, name)
        text.restype = ctypes.c_char_p
        setattr(runtime, name, lambda error, text=text: (success, text(int(error))))
    dsl_runtime = os.environ.get("CUTE_DSL_LIBS")
    if dsl_runtime:
        unload = ctypes.CDLL(dsl_runtime)._cudaLibraryUnload
        unload.argtypes = [ctypes.c_void_p]
        runtime.cudaLibraryUnload = lambda library: (runtime.cudaError_t(unload(int(library))),)


class _ServeRuntime(importlib.abc.MetaPathFinder):
    """Finds cuda.bindings.runtime as Python would, and serves its calls from tcgen once it is loaded."""

    def find_spec(self, name, path, target=None):
        if name != _RUNTIME:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            _serve_from_tcgen(module)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _ServeRuntime())

# The sitecustomize this one shadows, if any, runs as it would have.
_here = os.path.dirname(os.path.abspath(__file__))
for _entry in sys.path:
    _other = os.path.join(_entry or os.getcwd(), "sitecustomize.py")
    if os.path.abspath(_entry or os.getcwd()) != _here and os.path.isfile(_other):
        _spec = importlib.util.spec_from_file_location("_shadowed_sitecustomize", _other)
        _spec.loader.exec_module(importlib.util.module_from_spec(_spec))
        break
