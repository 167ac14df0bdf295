#!/usr/bin/env python3
"""The silicon-proven corpus under `tcgen run` (tools/corpus/programs.txt).

Installs NVIDIA's CUTLASS sources from PyPI (nvidia-cutlass ships them whole)
into the build tree, builds each program unmodified for compute_100a with the
shared CUDA runtime, runs it under `tcgen run` at a small problem with its own
verification on, and asks for its own pass verdict, exit 0 and no fault.
Prints one line per program, then the interpreter's speed over them all (the kernels' PTX
thread-instructions a host second, from tcgen run --profile); --report writes docs/corpus.md.

  tools/corpus.py [--build DIR] [--ci] [--report] [--jobs N] [NAME ...]

Exit 0 when every program chosen passes, 1 otherwise, 77 when the corpus
cannot be installed here (no network, no nvcc): nothing was checked.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUTLASS = "nvidia-cutlass==4.2.0.0"
# What CUTLASS's own example CMake gives every example: C++17, relaxed constexpr, the library, its
# utilities and the examples' common headers; -lineinfo so that reports name CUDA lines.
NVCC_FLAGS = ["-std=c++17", "-O2", "--expt-relaxed-constexpr", "-lineinfo", "-DCUTLASS_ENABLE_TENSOR_CORE_MMA=1",
              "-gencode", "arch=compute_100a,code=[sm_100a,compute_100a]", "-cudart", "shared", "-lcuda"]


# What the programs print when their own check fails, whatever their pass verdict looks like.
FAILED = r"Disposition: Failed|: Failed\b|\[FAIL\]|Execution failed|FAILED"


class Program:
    def __init__(self, line):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) not in (5, 6):
            raise SystemExit(f"tools/corpus/programs.txt: expected NAME | SOURCE | ARGUMENTS | PASS | ci "
                             f"[| TCGEN RUN OPTIONS]: {line}")
        self.name, source, arguments, self.passed, ci = cells[:5]
        # NAME@VARIANT: the program NAME built once, run again with tcgen run options.
        self.binary = self.name.split("@")[0]
        self.run_options = shlex.split(cells[5]) if len(cells) == 6 else []
        # The source, then any flags its CMake gives it (77_blackwell_mla: -DFP16).
        self.source, *self.flags = source.split()
        # {corpus}: this folder (tools/corpus), where the programs' input files are kept.
        self.arguments = shlex.split(arguments.replace("{corpus}", os.path.join(ROOT, "tools", "corpus")))
        self.ci = ci == "ci"


def programs():
    with open(os.path.join(ROOT, "tools", "corpus", "programs.txt")) as f:
        return [Program(l) for l in f if l.strip() and not l.startswith("#")]


def install(corpus):
    """CUTLASS's source tree, installed once into the build tree; None when it cannot be."""
    source = os.path.join(corpus, "cutlass", "cutlass_library", "source")
    if os.path.isdir(os.path.join(source, "include", "cute")):
        return source
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
                        "--target", os.path.join(corpus, "cutlass"), CUTLASS],
                       capture_output=True, text=True, env=dict(os.environ, PIP_ROOT_USER_ACTION="ignore"))
    if r.returncode != 0:
        print(f"corpus: could not install {CUTLASS} from PyPI: {r.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return None
    return source


def build(p, source, corpus, nvcc):
    """The program's executable, built unless the same command built it before; (path, error)."""
    binary = os.path.join(corpus, "bin", p.binary)
    src = os.path.join(source, p.source)
    command = [nvcc, *NVCC_FLAGS, "-I" + os.path.join(source, "include"),
               "-I" + os.path.join(source, "tools", "util", "include"), "-I" + os.path.join(source, "examples", "common"),
               "-I" + os.path.dirname(src), *p.flags, src, "-o", binary]
    # The flags and files, not nvcc's path, say whether a build is this one.
    stamp, key = binary + ".command", "nvcc " + " ".join(command[1:])
    if os.path.exists(binary) and os.path.exists(stamp) and open(stamp).read() == key:
        return binary, None
    os.makedirs(os.path.dirname(binary), exist_ok=True)
    r = subprocess.run(command, capture_output=True, text=True)
    with open(os.path.join(corpus, "bin", p.binary + ".build.log"), "w") as log:
        log.write(" ".join(command) + "\n" + r.stdout + r.stderr)
    if r.returncode != 0:
        errors = [l for l in (r.stdout + r.stderr).splitlines() if " error" in l]
        return None, "build failed: " + (errors[0] if errors else f"nvcc exit {r.returncode}")
    with open(stamp, "w") as f:
        f.write(key)
    return binary, None


def where_time_goes(summary):
    """'88% BlockForEach<…>; 1.1e+08/s': the share of the kernels' host time the kernel that took most
    took, and the thread-instructions a second over all of them (tcgen run --profile); '' without."""
    kernels = summary.get("profile") or []
    seconds = sum(k["host_seconds"] for k in kernels)
    if seconds <= 0:
        return ""
    by_name = {}  # the instantiations of one template together, as the summary line counts them
    for k in kernels:
        by_name[k["kernel"]] = by_name.get(k["kernel"], 0) + k["host_seconds"]
    top = max(by_name, key=by_name.get)
    rate = sum(k["thread_instructions"] for k in kernels) / seconds
    return f"{100 * by_name[top] / seconds:.0f}% {top}; {rate:.2g}/s"


def profile_totals(summary):
    """(PTX thread-instructions, host seconds) over a run's kernels (tcgen run --profile)."""
    kernels = summary.get("profile") or []
    return sum(k["thread_instructions"] for k in kernels), sum(k["host_seconds"] for k in kernels)


def run(p, binary, tcgen, timeout, totals):
    """(verdict, seconds, letters {rule: count}, reason, where the time goes) of one run under
    tcgen run --json --profile; its kernels' thread-instructions and host seconds are added to totals."""
    start = time.monotonic()
    # Its own session: on a timeout the program goes too, not tcgen run alone (it would hold the pipes open).
    # No progress lines: a failure's reason is the first line the run says.
    proc = subprocess.Popen([tcgen, "run", "--json", "--profile", *p.run_options, "--", binary, *p.arguments],
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "TCGEN_RUN_PROGRESS": "0"})
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        return "fail", time.monotonic() - start, {}, f"did not finish in {timeout} s", ""
    r = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    seconds = time.monotonic() - start
    lines = r.stderr.strip().splitlines()
    try:
        summary = json.loads(lines[-1]) if lines else {}
    except json.JSONDecodeError:
        summary = {}
    if "verb" not in summary:  # tcgen run always ends with its JSON object: without it, nothing is known
        return "fail", seconds, {}, f"exit {r.returncode} without tcgen run's summary", ""
    letters = summary.get("warnings", {})
    where = where_time_goes(summary)
    instructions, kernel_seconds = profile_totals(summary)
    totals[0] += instructions
    totals[1] += kernel_seconds
    said = [l for l in lines[:-1] if l.strip()]
    if summary.get("fault") or summary.get("ended_without_summary") or r.returncode != 0:
        # The report's first line names it (a fault's file:line: error:, a refusal, an unknown opcode);
        # a driver function tcgen does not emulate, when the program asked for one, comes first.
        reason = said[0] if said else f"exit {r.returncode}"
        if summary.get("unemulated_driver_functions"):
            reason = ("asked for driver functions tcgen does not emulate: " +
                      ", ".join(summary["unemulated_driver_functions"]) + "; then: " + reason)
        return "fail", seconds, letters, f"exit {r.returncode}: {reason}", where
    if re.search(FAILED, r.stdout):
        return "fail", seconds, letters, "its own check failed: " + re.search("(?:" + FAILED + ").*", r.stdout).group(0)[:200], where
    if not re.search(p.passed, r.stdout):
        return "fail", seconds, letters, f"exit 0 without its own verdict '{p.passed}'", where
    return "pass", seconds, letters, "", where


def report(results, path, everything):
    """docs/corpus.md: a row per program of programs.txt, in its order; the programs not run this time
    keep the rows the file has for them (so a partial rerun leaves the table whole)."""
    kept = {}
    if os.path.exists(path):
        for line in open(path):
            if line.startswith("| ") and not line.startswith("| program") and " | " in line:
                cells = line.rstrip("\n").split(" | ")
                if len(cells) == 6:  # a row from before the profile column
                    cells.insert(4, "-")
                kept[cells[0][2:]] = " | ".join(cells)
    for p, (verdict, seconds, letters, reason, where) in results:
        broken = ", ".join(f"`{k}`: {v}" for k, v in sorted(letters.items())) or "none"
        time_text = f"{seconds:.1f} s" if seconds else "-"
        run_options = " ".join(p.run_options) + " -- " if p.run_options else ""
        kept[p.name] = (f"| {p.name} | `{run_options}{' '.join(p.arguments)}` | {verdict} | {time_text} | "
                        f"{where.replace('|', '/') or '-'} | {broken} | {reason.replace('|', '/')} |")
    rows = ["# The silicon-proven corpus under `tcgen run`", "",
            "Public programs that run on B200s, built unmodified from `" + CUTLASS + "` (PyPI) for",
            "`compute_100a` with `-cudart shared`, run under `tcgen run` at a small problem with their own",
            "verification on. A program passes with its own pass verdict, exit 0 and no fault. A name",
            "NAME@VARIANT runs NAME again with `tcgen run` options before `--` in its arguments: a persistent",
            "kernel on a device of one or two SMs (`--sms`), so that each CTA takes several tiles. Written by",
            "`tools/corpus.sh --report`; the list is `tools/corpus/programs.txt`. Kernels in Triton, Gluon and",
            "CuTe DSL, compiled by the languages from PyPI and launched their own way, are in docs/run.md",
            "(Python kernel languages; ctest labels `triton` and `cute_dsl`), and so are NVIDIA's CuTe DSL",
            "GEMMs of `nvidia-cutlass-operators`, run through that package's own API (ctest labels `corpus`",
            "and `cutlass_operators`). Where the time goes",
            "(`tcgen run --profile`): the share of the kernels' host time the kernel that took most took,",
            "and the PTX thread-instructions a second over all its kernels; `-` where not measured yet.",
            "Letter counts depend on the schedule where CTAs share work through global memory (a persistent",
            "kernel's tile scheduler): CTAs run on several OS threads at once, so such counts vary from run",
            "to run (`72b_blackwell_nvfp4_nvfp4_gemm`'s `missing_before_thread_sync`: 0 to 32 in ten runs,",
            "88 in each run under `tcgen run --threads 1`; `74_blackwell_gemm_streamk_reduction`'s",
            "`missing_after_thread_sync` 512 to 518, 515 under `--threads 1`, where its `st_read_back_unwaited`",
            "are 512 and its `missing_before_thread_sync` 240;",
            "`81_blackwell_gemm_blockwise`'s `missing_before_thread_sync` 0 or 8 from run to run, 16 in each",
            "run under `--threads 1`; `92_blackwell_moe_gemm_regular@sms2`'s `missing_before_thread_sync` 592 or",
            "596, its two persistent CTAs sharing the groups' tiles); the verdicts do not.", "",
            "| program | arguments | verdict | time on the host model | where the time goes | "
            "PTX letters broken (rule: times) | why not |",
            "|---|---|---|---|---|---|---|"]
    listed = [kept[p.name] for p in everything if p.name in kept]
    passed = sum(1 for r in listed if " | pass | " in r)
    rows += listed + ["", f"{passed} of {len(listed)} pass."]
    with open(path, "w") as f:
        f.write("\n".join(rows) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--build", default=os.environ.get("TCGEN_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--ci", action="store_true", help="only the programs marked ci")
    ap.add_argument("--report", action="store_true", help="write docs/corpus.md")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="nvcc builds at once")
    ap.add_argument("--timeout", type=int, default=900, help="seconds a run may take")
    ap.add_argument("--nvcc", default=os.environ.get("CUDACXX") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    a = ap.parse_args()
    chosen = [p for p in programs() if (not a.names or p.name in a.names) and (not a.ci or p.ci)]
    unknown = set(a.names) - {p.name for p in programs()}
    if unknown:
        raise SystemExit(f"corpus: no program {', '.join(sorted(unknown))} in tools/corpus/programs.txt")
    tcgen = os.path.join(a.build, "tools", "tcgen", "tcgen")
    if not os.path.exists(a.nvcc) or not os.path.exists(tcgen):
        print("corpus: skipped: needs nvcc and a built tcgen (tools/setup.sh)", file=sys.stderr)
        return 77
    corpus = os.path.join(a.build, "corpus")
    source = install(corpus)
    if source is None:
        return 77
    unique = list({p.binary: p for p in chosen}.values())  # NAME and NAME@VARIANT: one build
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        built = dict(zip((p.binary for p in unique), pool.map(lambda p: build(p, source, corpus, a.nvcc), unique)))
    results = []
    totals = [0, 0.0]  # PTX thread-instructions and host seconds of every kernel run
    for p in chosen:
        binary, error = built[p.binary]
        r = ("fail", 0.0, {}, error, "") if error else run(p, binary, tcgen, a.timeout, totals)
        results.append((p, r))
        letters = ", ".join(f"{k} {v}" for k, v in sorted(r[2].items()))
        print(f"{p.name}: {r[0]} ({r[1]:.1f} s{'; ' + r[4] if r[4] else ''}){'; letters: ' + letters if letters else ''}"
              f"{'; ' + r[3] if r[3] else ''}", flush=True)
    if totals[1] > 0:
        wall = sum(r[1] for _, r in results)
        print(f"corpus: {len(results)} programs in {wall:.1f} s; their kernels {totals[0]:,} PTX thread-instructions in "
              f"{totals[1]:.1f} host s, {totals[0] / totals[1]:.3g}/s", flush=True)
    if a.report:
        report(results, os.path.join(ROOT, "docs", "corpus.md"), programs())
    return 0 if all(r[0] == "pass" for _, r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
