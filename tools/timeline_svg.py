#!/usr/bin/env python3
"""A picture of one SM of a timing trace (tcgen run --trace FILE.json): one row
per track (the tensor pipe, TMA, each warp), a bar per span, coloured by what
it is (MMA, TMA copy, issue, a wait by barrier), as SVG, for docs where
Perfetto cannot be opened.

    tools/timeline_svg.py TRACE.json OUT.svg [--launch N] [--sm 0] [--from US] [--to US]
"""
import argparse
import html
import json
import sys

COLOURS = {"mma": "#2b6cb0", "tcgen05.cp": "#2c5282", "load": "#2f855a", "store": "#9c4221", "issue": "#a0aec0",
           "tcgen05.wait": "#805ad5", "ld.global": "#d69e2e"}
WAIT_COLOURS = ["#e53e3e", "#dd6b20", "#d53f8c", "#b7791f", "#c05621", "#97266d", "#f6ad55", "#fc8181", "#9f7aea",
                "#ed64a6", "#744210", "#63171b"]


def colour(name, waits):
    if name.startswith("wait "):
        barrier = name[5:]
        if barrier not in waits:
            waits[barrier] = WAIT_COLOURS[len(waits) % len(WAIT_COLOURS)]
        return waits[barrier]
    return COLOURS.get(name.split(" ")[0], "#718096")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace")
    p.add_argument("out")
    p.add_argument("--launch", type=int, default=0, help="which launch (0: the first)")
    p.add_argument("--sm", type=int, default=0)
    p.add_argument("--from", dest="start", type=float, default=None, help="microseconds")
    p.add_argument("--to", dest="end", type=float, default=None, help="microseconds")
    a = p.parse_args()
    events = json.load(open(a.trace))["traceEvents"]
    processes = [e for e in events if e["ph"] == "M" and e["name"] == "process_name"]
    # "launch N: KERNEL, SM s" (timing/src/chrome_trace.cpp)
    title = next((e["args"]["name"] for e in processes if e["args"]["name"].startswith(f"launch {a.launch}: ")), None)
    if title is None:
        sys.exit(f"--launch {a.launch}: the trace has launches 0 to {len(processes) and max(int(e['args']['name'].split(':')[0].split()[1]) for e in processes)}")
    name = title.rsplit(", SM ", 1)[0].split(": ", 1)[1]
    pids = [e["pid"] for e in processes if e["args"]["name"] == f"launch {a.launch}: {name}, SM {a.sm}"]
    if not pids:
        sys.exit(f"--sm {a.sm}: launch {a.launch} has no such SM on its timeline")
    pid = pids[0]
    tracks = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == pid}
    spans = [e for e in events if e["ph"] == "X" and e["pid"] == pid]
    t0 = a.start if a.start is not None else min(e["ts"] for e in spans)
    t1 = a.end if a.end is not None else max(e["ts"] + e["dur"] for e in spans)
    order = sorted(tracks, key=lambda t: (not tracks[t].startswith("tensor"), not tracks[t].startswith("TMA"),
                                          int(tracks[t].split()[1]) if tracks[t].startswith("warp") else 0))
    row, left, width = 22, 150, 1000
    height = row * len(order) + 80
    scale = width / (t1 - t0)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 20}" height="{height}" font-family="sans-serif" font-size="12">',
           f'<text x="{left}" y="14">{html.escape(name[:110])}, SM {a.sm}: {t0:.2f} to {t1:.2f} us</text>']
    waits = {}
    for i, tid in enumerate(order):
        y = 24 + i * row
        out.append(f'<text x="4" y="{y + 14}">{html.escape(tracks[tid])}</text>')
        for e in spans:
            if e["tid"] != tid or e["ts"] + e["dur"] < t0 or e["ts"] > t1:
                continue
            x = left + (max(e["ts"], t0) - t0) * scale
            w = max(0.5, (min(e["ts"] + e["dur"], t1) - max(e["ts"], t0)) * scale)
            out.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row - 4}" fill="{colour(e["name"], waits)}">'
                       f'<title>{html.escape(e["name"])}: {e["dur"]:.3f} us</title></rect>')
    y = 24 + len(order) * row + 14
    legend = [(n, c) for n, c in COLOURS.items()] + [("wait " + b, c) for b, c in waits.items()]
    x = 4
    for name, c in legend:
        if x + 24 + 7 * len(name) > left + width:  # wrap onto a second line
            x, y = 4, y + 18
        out.append(f'<rect x="{x}" y="{y - 10}" width="10" height="10" fill="{c}"/><text x="{x + 14}" y="{y}">{html.escape(name)}</text>')
        x += 24 + 7 * len(name)
    out.append("</svg>")
    open(a.out, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
