#!/usr/bin/python3
"""Thrum Studio's targets, measured in a real browser: one command, several runs, medians.

Runs tools/studio-browser-test.py --bench RUNS times (each a fresh `thrum studio`, two `thrum sim`s
and headless chromium; every check of the browser test runs too) and prints, per target, the
median of the runs with their spread (min–max) against its goal, and the machine's load
average before and after (the figures mean little without it).

Usage: /usr/bin/python3 tools/studio-bench.py [--thrum .build/release/thrum] [--runs 5]
Exit status 0 when every run's checks passed (a missed target is reported, not failed).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# (label printed by the browser test after "bench: ", the figure's pattern, goal, unit)
TARGETS = [
    ("page load to drawn timeline", r"page load to drawn timeline: ([\d.]+) ms", 300, "ms"),
    ("page load to drive and acceleration drawn", r"page load to drive and acceleration drawn: ([\d.]+) ms", None, "ms"),
    ("10 000-event pattern opened to painted", r"10 000-event pattern opened to painted: ([\d.]+) ms", 1000, "ms"),
    ("10 000-event pattern draw (script)", r"10 000-event pattern draw \(script\): ([\d.]+) ms", None, "ms"),
    ("onset report to mark, p99 of a run", r"onset report to mark: p50 [\d.]+ ms, p99 ([\d.]+) ms", 50, "ms"),
    ("save then play accepted", r"save then play accepted: ([\d.]+) ms", 200, "ms"),
    ("save (page click) to file on disk", r"save \(page click\) to file on disk: ([\d.]+) ms", None, "ms"),
    ("file changed on disk to page updated", r"file changed on disk to page updated: ([\d.]+) ms", 1000, "ms"),
    ("idle studio CPU (page open)", r"idle studio CPU: ([\d.]+) %", 1, "% of a core"),
    ("idle page CPU (chromium)", r"idle page CPU \(chromium\): ([\d.]+) %", None, "% of a core"),
]


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--thrum", default=os.path.join(ROOT, ".build", "release", "thrum"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not os.access(args.thrum, os.X_OK):
        sys.exit(f"studio-bench: {args.thrum}: no such program (swift build -c release --product thrum)")
    figures = {label: [] for label, *_ in TARGETS}
    latencies = []
    failed_runs = 0
    before = load()
    for run in range(args.runs):
        done = subprocess.run(
            ["/usr/bin/python3", os.path.join(ROOT, "tools", "studio-browser-test.py"), "--thrum", args.thrum, "--bench",
             "--screenshots", os.path.join(ROOT, ".build", "studio-bench-screenshots")],
            capture_output=True, text=True)
        out = done.stdout
        if done.returncode != 0:
            failed_runs += 1
            print(f"run {run + 1}: checks failed:\n" + "\n".join(l for l in out.splitlines() if l.startswith("FAIL")), file=sys.stderr)
        for label, pattern, _, _ in TARGETS:
            m = re.search(pattern, out)
            if m and m.group(1) != "nan":
                figures[label].append(float(m.group(1)))
        m = re.search(r"bench: onset latencies: (.*)", out)
        if m:
            latencies += [float(v) for v in m.group(1).split()]
        print(f"run {run + 1} of {args.runs} done (load {load()})", file=sys.stderr, flush=True)
    after = load()
    print(f"thrum studio, {args.runs} runs; {os.cpu_count()} cores; load average (1, 5, 15 min) {before} before, {after} after")
    for label, _, goal, unit in TARGETS:
        values = figures[label]
        if not values:
            print(f"  {label}: not measured")
            continue
        median = statistics.median(values)
        verdict = "" if goal is None else (f"  goal ≤ {goal} {unit}: " + ("met" if median <= goal else "MISSED"))
        print(f"  {label}: median {median:.1f} {unit} (min {min(values):.1f}, max {max(values):.1f}){verdict}")
    if latencies:
        ordered = sorted(latencies)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
        print(f"  onset report to mark, all runs: {len(ordered)} onsets, median {statistics.median(ordered):.1f} ms,"
              f" p99 {p99:.1f} ms, max {ordered[-1]:.1f} ms  goal p99 ≤ 50 ms: " + ("met" if p99 <= 50 else "MISSED"))
    return 1 if failed_runs else 0


if __name__ == "__main__":
    sys.exit(main())
