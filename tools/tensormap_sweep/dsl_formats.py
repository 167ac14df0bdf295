"""NVIDIA's own element-type codes of a TMA descriptor, as CuTe DSL's encoder picks them.

CuTe DSL encodes the CUtensorMaps of its kernels itself. Its compiler's function
`cute_nvgpu.get_default_tma_format(type, use_unpack)` gives the code it writes in bits 71-74
(`TmaDataFormat`, documented in the DSL as "Bits 74-71 of the TMA descriptor"); it runs on a CPU.
This prints, for every element type the DSL has, CSV rows `dsl_type,unpack,code,name`: the table
tests/data/tensormap_dsl_formats.csv, which test_tensor_map_nvidia holds tcgen's decoder against.

    PYTHONPATH=BUILD/python/cute_dsl:BUILD/python/cute_dsl/nvidia_cutlass_dsl/dsl_packages \
        python3 tools/tensormap_sweep/dsl_formats.py > tests/data/tensormap_dsl_formats.csv

(BUILD/python/cute_dsl is where `ctest -L cute_dsl` installs nvidia-cutlass-dsl from PyPI.)
"""
import cutlass.base_dsl.typing as types
from cutlass._mlir import ir
from cutlass._mlir.dialects import cute_nvgpu

TYPES = ["Uint8", "Int8", "Uint16", "Int16", "Uint32", "Int32", "Uint64", "Int64", "Float16", "BFloat16",
         "Float32", "TFloat32", "Float64", "Float8E4M3FN", "Float8E5M2", "Float8E8M0FNU", "Float4E2M1FN",
         "Float6E3M2FN", "Float6E2M3FN", "Int4"]


def main():
    import cutlass
    print(f"# nvidia-cutlass-dsl {cutlass.__version__}: cute_nvgpu.get_default_tma_format(type, use_unpack)")
    print("dsl_type,unpack,code,name")
    with ir.Context(), ir.Location.unknown():
        for name in TYPES:
            for unpack in (0, 1):
                code = cute_nvgpu.get_default_tma_format(getattr(types, name).mlir_type, bool(unpack))
                print(f"{name},{unpack},{int(code)},{cute_nvgpu.TmaDataFormat(int(code)).name}")


if __name__ == "__main__":
    main()
