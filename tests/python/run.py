"""Runs one of this folder's kernel-language programs under `tcgen run`, as a
user would: the language from PyPI (installed once into the build tree, with
numpy) compiles the kernel for sm_100a and launches it its own way (Triton's
launcher through tcgen's libcuda, CuTe DSL's JIT host code through tcgen's
CuTe DSL runtime). Passes when the program's own check against numpy passes
(exit 0, PASSED), a kernel was launched and the device did not fault.

    run.py --build BUILD_DIR LANGUAGE/PROGRAM [ARGS...]   (triton/matmul_dot, cute_dsl/scaled_add, ...)
    run.py --build BUILD_DIR --fault MARKER LANGUAGE/PROGRAM [ARGS...]
        passes instead when the device faults and the report's first line names the program's
        line that holds MARKER (a comment), as a compiler's diagnostic does
    exit 0: passed; 1: failed, with why; 77: the language could not be installed
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Each language's packages, and the folders its programs import from the installation.
LANGUAGES = {
    "triton": (["triton==3.9.0", "numpy"], ["."]),
    "cute_dsl": (["nvidia-cutlass-dsl==4.8.1", "numpy"], [".", "nvidia_cutlass_dsl/dsl_packages"]),
    # nvidia-cutlass-operators imports torch at module level (its Rubin kernels); torch's CUDA wheel brings
    # NVIDIA's libraries, 5 GB, none of which runs here.
    "cutlass_operators": (["nvidia-cutlass-operators==0.3.0", "nvidia-cutlass-dsl==4.8.1", "torch==2.15.0", "numpy"],
                          [".", "nvidia_cutlass_dsl/dsl_packages"]),
}


def install(language, site):
    """The language's packages in `site`, installed once; False when PyPI cannot be reached."""
    packages = LANGUAGES[language][0]
    done = os.path.join(site, ".installed")
    if os.path.exists(done):
        return True
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--target", site,
                        *packages], capture_output=True, text=True, env=dict(os.environ, PIP_ROOT_USER_ACTION="ignore"))
    if r.returncode != 0:
        print(f"{language}: could not install {' '.join(packages)} from PyPI: {r.stderr.strip().splitlines()[-1:]}",
              file=sys.stderr)
        return False
    open(done, "w").close()
    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--fault", metavar="MARKER")
    parser.add_argument("program")
    parser.add_argument("arguments", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    language = args.program.split("/")[0]
    site = os.path.join(args.build, "python", language)
    if not install(language, site):
        return 77
    path = [os.path.normpath(os.path.join(site, p)) for p in LANGUAGES[language][1]] + [HERE]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), TRITON_DEFAULT_FP_FUSION="1",
               TRITON_CACHE_DIR=os.path.join(args.build, "python", "triton_cache"))
    tcgen = os.path.join(args.build, "tools", "tcgen", "tcgen")
    source = os.path.join(HERE, args.program + ".py")
    r = subprocess.run([tcgen, "run", "--json", "--", sys.executable, source, *args.arguments],
                       capture_output=True, text=True, env=env)
    sys.stdout.write(r.stdout)
    # The summary is the last line on stderr, after whatever the program wrote there (Triton's nanobind
    # ends its leak report at exit without a line break).
    tail = r.stderr[r.stderr.rfind('{"verb": "run"'):] if '{"verb": "run"' in r.stderr else ""
    summary = json.loads(tail) if tail else None
    # What tcgen run said, without the languages' own noise at exit (Triton's nanobind leak report).
    print("\n".join(l for l in r.stderr.splitlines() if l.startswith("tcgen run:")))
    if args.fault:
        line = next(n for n, text in enumerate(open(source), 1) if args.fault in text)
        diagnostic = next((l for l in r.stderr.splitlines() if ": error: " in l), "")
        why = ("no summary from tcgen run" if summary is None else
               "the device did not fault" if not summary["fault"] else
               f"the report's first line does not name {source}:{line}: {diagnostic!r}"
               if not diagnostic.startswith(f"{source}:{line}: error: ") else "")
    else:
        why = ("no summary from tcgen run" if summary is None else
               f"the device faulted ({summary['fault']})" if summary["fault"] else
               f"exit code {r.returncode}" if r.returncode != 0 else
               "no PASSED from the program's own check" if "PASSED" not in r.stdout else
               "no kernel launched" if summary["kernel_launches"] == 0 else "")
    if why:
        sys.stderr.write(r.stderr)
        print(f"{args.program}: FAILED: {why}")
        return 1
    print(f"{args.program}: passed, {summary['kernel_launches']} kernel launches, "
          f"{'fault ' + summary['fault'] + ' reported at its line, ' if args.fault else ''}"
          f"PTX letters {json.dumps(summary['warnings'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
