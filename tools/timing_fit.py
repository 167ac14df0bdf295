#!/usr/bin/env python3
"""The timing model's calibration: gau-nernst's learn-cuda 02e_matmul_sm100
kernels v1a, v2b, v3, v4, v5 and v6 at M = N = K = 4096, run unmodified under
`tcgen run --timing` through a program of your own (their .cu files with a
small main in place of their PyTorch binding; not part of tcgen), predicted
against the B200 TFLOP/s their README publishes (nvbench, Modal B200, BF16).

    tools/timing_fit.py --program 'PATH/matmul {kernel} 4096 4096 4096 --no-check'
        [--tcgen build/tools/tcgen/tcgen] [--sms 8] [--set NAME=VALUE]...
        [--fit NAME[:LO:HI]]... [--rounds 2]

Without --fit: one table of predicted against published, with each ratio, the
ladder's step ratios and the RMS of log(predicted / published). With --fit: a
coordinate search over the named constants (each over [LO, HI], default
[value/4, value*4]) minimising that RMS, then the table at the best point and
the NAME=VALUE list to put into timing/include/tcgen/timing/machine.hpp.
Only these six kernels may tune the model (docs/timing.md).
"""
import argparse
import json
import math
import subprocess
import sys

PUBLISHED = {"v1a": 255.73, "v2b": 721.02, "v3": 914.42, "v4": 1053.61, "v5": 1169.65, "v6": 1273.32}


def predict(args, settings):
    """kernel → predicted TFLOP/s of its (only) launch, under the given constants."""
    out = {}
    for kernel in PUBLISHED:
        command = [args.tcgen, "run", "--json", "--quiet", "--timing-sms", str(args.sms)]
        for name, value in settings.items():
            command += ["--timing-set", f"{name}={value:.6g}"]
        command += ["--"] + args.program.format(kernel=kernel).split()
        run = subprocess.run(command, capture_output=True, text=True)
        summary = json.loads(run.stderr.strip().splitlines()[-1])
        launches = [t for t in summary["timing"] if t["tensor_flops"] > 0]
        if run.returncode != 0 or len(launches) != 1:
            sys.exit(f"{kernel}: {' '.join(command)} gave exit {run.returncode} and {len(launches)} MMA launches:\n"
                     + run.stderr[-2000:])
        out[kernel] = (launches[0]["tflops"], launches[0]["bound"])
    return out


def rms(predicted):
    return math.sqrt(sum(math.log(predicted[k][0] / PUBLISHED[k]) ** 2 for k in PUBLISHED) / len(PUBLISHED))


def table(predicted, settings):
    print("| kernel | published TFLOP/s | predicted | predicted / published | bound |")
    print("|---|---|---|---|---|")
    for k in PUBLISHED:
        tflops, bound = predicted[k]
        print(f"| {k} | {PUBLISHED[k]:.1f} | {tflops:.1f} | {tflops / PUBLISHED[k]:.3f} | {bound} |")
    kernels = list(PUBLISHED)
    print("\n| step | published ratio | predicted ratio |")
    print("|---|---|---|")
    for a, b in zip(kernels, kernels[1:]):
        print(f"| {a} → {b} | {PUBLISHED[b] / PUBLISHED[a]:.3f} | {predicted[b][0] / predicted[a][0]:.3f} |")
    order = sorted(kernels, key=lambda k: predicted[k][0]) == kernels
    print(f"\nladder order kept: {'yes' if order else 'no'}; RMS of log(predicted / published): {rms(predicted):.4f}")
    if settings:
        print("constants: " + ", ".join(f"{n}={v:.6g}" for n, v in settings.items()))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--program", required=True, help="the command, {kernel} standing for v1a ... v6")
    parser.add_argument("--tcgen", default="build/tools/tcgen/tcgen")
    parser.add_argument("--sms", type=int, default=8, help="SMs simulated (--timing-sms)")
    parser.add_argument("--set", action="append", default=[], help="NAME=VALUE, a constant held fixed")
    parser.add_argument("--fit", action="append", default=[], help="NAME[:LO:HI], a constant to fit")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    settings = {s.split("=")[0]: float(s.split("=")[1]) for s in args.set}
    if not args.fit:
        table(predict(args, settings), settings)
        return
    ranges = {}
    for f in args.fit:
        name, *bounds = f.split(":")
        if len(bounds) != 2:
            sys.exit(f"--fit {f}: give NAME:LO:HI")
        ranges[name] = (float(bounds[0]), float(bounds[1]))
        settings.setdefault(name, math.sqrt(ranges[name][0] * ranges[name][1]))
    best = rms(predict(args, settings))
    for rnd in range(args.rounds):
        for name, (lo, hi) in ranges.items():
            # a geometric grid over the range, narrowing each round around the best value
            span = (hi / lo) ** (0.5 ** rnd)
            center = settings[name]
            for i in range(7):
                value = min(hi, max(lo, center / math.sqrt(span) * span ** (i / 6)))
                trial = dict(settings, **{name: value})
                score = rms(predict(args, trial))
                print(f"round {rnd}: {name}={value:.5g}: RMS {score:.4f}", file=sys.stderr)
                if score < best:
                    best, settings = score, trial
    table(predict(args, settings), settings)


if __name__ == "__main__":
    main()
