#!/usr/bin/env python3
"""Writes a large AHAP file for measuring `thrum validate` and `thrum render` (never committed).

    gen-large-pattern.py EVENTS SPACING_S OUT.ahap [--continuous-every N]

EVENTS transients, one every SPACING_S seconds, one pattern element per line (about 150 bytes
an event: 10^6 events make a 143 MB file). Intensity and sharpness vary with the index so that
no two neighbours are alike; with --continuous-every N every Nth event is a 0.02 s continuous
event instead. Used for the cost table in docs/robustness.md:

    tools/gen-large-pattern.py 1000000 0.05 /tmp/e1m.ahap
    /usr/bin/time -v .build/release/thrum validate /tmp/e1m.ahap
    tools/gen-large-pattern.py 100000 0.05 /tmp/e100k.ahap
    /usr/bin/time -v .build/release/thrum render /tmp/e100k.ahap
"""
import argparse


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("events", type=int)
    parser.add_argument("spacing", type=float)
    parser.add_argument("out")
    parser.add_argument("--continuous-every", type=int, default=0)
    args = parser.parse_args()
    with open(args.out, "w") as f:
        f.write('{\n"Version": 1.0,\n"Pattern": [\n')
        for i in range(args.events):
            t = round(i * args.spacing, 6)
            intensity = 0.3 + 0.07 * (i % 10)
            sharpness = 0.1 * (i % 7)
            if args.continuous_every and i % args.continuous_every == 0:
                kind = '"EventType": "HapticContinuous", "EventDuration": 0.02'
            else:
                kind = '"EventType": "HapticTransient"'
            sep = "," if i + 1 < args.events else ""
            f.write(
                f'{{"Event": {{"Time": {t!r}, {kind}, "EventParameters": ['
                f'{{"ParameterID": "HapticIntensity", "ParameterValue": {intensity:.2f}}}, '
                f'{{"ParameterID": "HapticSharpness", "ParameterValue": {sharpness:.1f}}}]}}}}{sep}\n'
            )
        f.write("]\n}\n")


if __name__ == "__main__":
    main()
