"""The floors of tcgen, checked from the sources: who may include the host
model, that the kernels (gemm, fmha, sparse_decode, moe) stand beside each other
(none includes another) and the softmax the attention kernels share
(attention/) includes none of them, that the kernels and the PTX interpreter
know nothing of each other, that README's table of dependencies is CMake's,
and that no header a device kernel includes pulls in the host model, directly
or through another header.

    check_layers.py ROOT COMPILER   (nvcc, or a host C++ compiler)
    exit 0: all hold; 1: each broken rule named
"""
import os
import re
import subprocess
import sys
import tempfile

root, cxx = sys.argv[1], sys.argv[2]
failures = []

SOURCES = (".hpp", ".cpp", ".cu")
# Where the host model may be included: itself, the PTX interpreter and the
# runtime built on it, the host face of exec, the programs and the tests.
MODEL_USERS = ("model/", "ptx/", "run/", "tools/", "tests/", "exec/src/",
               "exec/include/tcgen/exec/host_arch.hpp", "exec/include/tcgen/exec/cta_runtime.hpp")
# The kernel libraries, siblings on tile/; attention/ is the softmax that fmha and sparse_decode share.
KERNELS = ("gemm", "fmha", "sparse_decode", "moe")


def sources():
    for top in sorted(os.listdir(root)):
        if top.startswith(".") or top.startswith("build") or not os.path.isdir(os.path.join(root, top)):
            continue
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith(SOURCES):
                    path = os.path.join(d, f)
                    yield os.path.relpath(path, root), open(path, encoding="utf-8", errors="replace").read()


for rel, text in sources():
    if '#include "tcgen/model/' in text and not rel.startswith(MODEL_USERS):
        failures.append(f"{rel} includes the host model (tcgen/model/), which only {', '.join(MODEL_USERS)} may")
    top = rel.split("/")[0]
    included = set(re.findall(r'#include "tcgen/([a-z_]+)/', text))
    if top in KERNELS:
        for other in sorted(included & set(KERNELS) - {top}):
            failures.append(f"{rel} includes tcgen/{other}/: the kernels are siblings on tile/, none on another")
    if top == "attention":
        for kernel in sorted(included & set(KERNELS)):
            failures.append(f"{rel} includes tcgen/{kernel}/: attention/ is the softmax the kernels share, below them")
    # The kernels are launch values (exec/launchable.hpp) that any backend runs; the PTX interpreter
    # stands beside them and knows none of them, nor they it.
    if top in KERNELS + ("attention",) and "ptx" in included:
        failures.append(f"{rel} includes tcgen/ptx/: the kernels know no backend beyond exec's launchable")
    if top == "ptx" and included & set(KERNELS + ("attention",)):
        failures.append(f"{rel} includes a kernel: the PTX interpreter launches any exec::Launchable")

# README's "depends on" column against the tcgen libraries each piece's
# CMakeLists.txt links (DEPENDS and target_link_libraries, all its targets).
readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
rows = re.findall(r"^\| `([a-z_]+)/` \| [^\n]*\| ([^|\n]*) \|$", readme, re.M)
if len(rows) < 10:
    failures.append(f"README.md: found {len(rows)} rows of the table of pieces, expected one per library")
for lib, cell in rows:
    cmake_path = os.path.join(root, lib, "CMakeLists.txt")
    if not os.path.exists(cmake_path):
        continue
    cmake = open(cmake_path, encoding="utf-8").read()
    links = re.findall(r"(?:tcgen_add_library|target_link_libraries|tcgen_ptx)\(([^)]*)\)", cmake, re.S)
    built = {d for chunk in links for d in re.findall(r"tcgen::([a-z_]+)", chunk)} - {lib}
    documented = {w.strip() for w in cell.split(",") if w.strip() and w.strip() != "spdlog"}
    if built != documented:
        failures.append(f"README.md says {lib}/ depends on {sorted(documented)}, its CMakeLists.txt on {sorted(built)}")

# What a device kernel's translation unit includes, transitively (-M). With
# nvcc, the device faces themselves; with a host compiler, the kernels'
# headers (the device faces refuse a host compiler by design).
nvcc = cxx.endswith("nvcc")
device_headers = ["tcgen/gemm/kernel.hpp", "tcgen/fmha/kernel.hpp", "tcgen/sparse_decode/kernel.hpp",
                  "tcgen/tile/smem_plan.hpp"]
if nvcc:
    device_headers += ["tcgen/gemm/device_gemm.hpp", "tcgen/fmha/device_fmha.hpp",
                       "tcgen/sparse_decode/device_sparse_decode.hpp", "tcgen/exec/device_arch.hpp",
                       "tcgen/exec/device_tensor_map.hpp"]
includes = [f"-I{os.path.join(root, d, 'include')}" for d in sorted(os.listdir(root))
            if os.path.isdir(os.path.join(root, d, "include"))]
with tempfile.NamedTemporaryFile("w", suffix=".cu" if nvcc else ".cpp", delete=False) as tu:
    tu.write("".join(f'#include "{h}"\n' for h in device_headers))
cuda = "/usr/local/cuda/include"
extra = [f"-I{cuda}"] if os.path.isdir(cuda) else []
flags = ["--expt-relaxed-constexpr", "-gencode=arch=compute_100a,code=sm_100a"] if nvcc else []
r = subprocess.run([cxx, "-std=c++20", "-M", *flags, *includes, *extra, tu.name], capture_output=True, text=True)
os.unlink(tu.name)
if r.returncode != 0:
    failures.append("-M of the device headers failed: " + (r.stderr.strip().splitlines() or ["?"])[0])
else:
    deps = r.stdout.replace("\\\n", " ").split()
    model = sorted({d for d in deps if "/model/include/" in d})
    if model:
        failures.append("the device kernels' headers include the host model: " + ", ".join(os.path.relpath(d, root) for d in model))

for f in failures:
    print("FAIL:", f)
print(f"layering: {len(failures)} rule(s) broken" if failures else "layering: all rules hold")
sys.exit(1 if failures else 0)
