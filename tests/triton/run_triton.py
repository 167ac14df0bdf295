"""Runs one of this folder's Triton or Gluon programs under `tcgen run`, as a
user would: Triton from PyPI (installed once into the build tree, with
numpy), compiling the kernel for sm_100a and launching it with its own
launcher through tcgen's libcuda. Passes when the program's own check
against numpy passes (exit 0, PASSED) and the device did not fault.

    run_triton.py --build BUILD_DIR PROGRAM     (PROGRAM: matmul_dot, ...)
    exit 0: passed; 1: failed, with why; 77: Triton could not be installed
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGES = ["triton==3.9.0", "numpy"]


def install(site):
    """Triton and numpy in `site`, installed once; False when PyPI cannot be reached."""
    if os.path.isdir(os.path.join(site, "triton")) and os.path.isdir(os.path.join(site, "numpy")):
        return True
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--target", site,
                        *PACKAGES], capture_output=True, text=True, env=dict(os.environ, PIP_ROOT_USER_ACTION="ignore"))
    if r.returncode != 0:
        print(f"triton: could not install {' '.join(PACKAGES)} from PyPI: {r.stderr.strip().splitlines()[-1:]}",
              file=sys.stderr)
    return r.returncode == 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("program")
    args = parser.parse_args()
    site = os.path.join(args.build, "triton", "site")
    if not install(site):
        return 77
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([site, HERE]), TRITON_DEFAULT_FP_FUSION="1",
               TRITON_CACHE_DIR=os.path.join(args.build, "triton", "cache"))
    tcgen = os.path.join(args.build, "tools", "tcgen", "tcgen")
    r = subprocess.run([tcgen, "run", "--json", "--", sys.executable, os.path.join(HERE, args.program + ".py")],
                       capture_output=True, text=True, env=env)
    sys.stdout.write(r.stdout)
    # The summary is the last line on stderr, after whatever the program wrote there (Triton's nanobind
    # ends its leak report at exit without a line break).
    tail = r.stderr[r.stderr.rfind('{"verb": "run"'):] if '{"verb": "run"' in r.stderr else ""
    summary = json.loads(tail) if tail else None
    # What tcgen run said besides Triton's own noise at exit (nanobind's leak report).
    print("\n".join(l for l in r.stderr.splitlines() if l.startswith("tcgen run:")))
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
          f"PTX letters {json.dumps(summary['warnings'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
