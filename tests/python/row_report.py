"""The numerical verdict of tcgen's Python kernel tests: per-row worst relative error and cosine
against an fp64 reference. Device memory is tcgen_device.DeviceArray (run/python, on PYTHONPATH
under tcgen run)."""
import numpy as np


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
