"""The ptx_conformance test: gmpy2 and ml_dtypes importable (installed into the build tree with
pip --target when they are not, as tests/python/run.py does), the table generated into the build
directory, then run_vectors on it, then a short fuzz.py run.

    run_conformance.py --build DIR --runner PATH [runner args...]
    exit: the runner's (0 agree, 1 disagreement); 77 when the packages cannot be installed.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGES = ["gmpy2", "ml_dtypes"]


def importable(env):
    r = subprocess.run([sys.executable, "-c", "import gmpy2, ml_dtypes"], env=env, capture_output=True)
    return r.returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--runner", required=True)
    args, rest = ap.parse_known_args()
    site = os.path.join(args.build, "python")
    env = dict(os.environ)
    if not importable(env):
        env["PYTHONPATH"] = os.pathsep.join([site] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        if not importable(env):
            r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--target",
                                site, *PACKAGES], capture_output=True, text=True,
                               env=dict(env, PIP_ROOT_USER_ACTION="ignore"))
            if r.returncode != 0 or not importable(env):
                print(f"SKIPPED: could not install {' '.join(PACKAGES)}: {r.stderr.strip().splitlines()[-1:]}")
                return 77
    table = os.path.join(args.build, "ptx_conformance.txt")
    gen = subprocess.run([sys.executable, os.path.join(HERE, "oracle", "generate.py"), "--out", table], env=env)
    if gen.returncode != 0:
        return 1
    verdict = subprocess.run([args.runner, table, *rest]).returncode
    # A short differential fuzzing run (oracle/fuzz.py; a longer one by hand, see README.md): a fixed
    # seed, so a disagreement it shows is reproducible.
    fuzz = os.path.join(args.build, "ptx_fuzz.txt")
    fz = subprocess.run([sys.executable, os.path.join(HERE, "oracle", "fuzz.py"), "--programs", "300", "--seed", "1",
                         "--out", fuzz, "--runner", args.runner], env=env)
    return verdict or fz.returncode


if __name__ == "__main__":
    sys.exit(main())
