#!/usr/bin/env python3
"""The firmware's layer order, and the check that its files call down only.

    fw-layers.py --unit core --cc gcc -- -std=c99 -O0 -Iinclude -Icore
    fw-layers.py --unit ports/avr --cc avr-gcc -- -mmcu=atmega328p ...
    fw-layers.py --unit ports/cortex-m --cc arm-none-eabi-gcc -- -mcpu=cortex-m3 -mthumb ...
    fw-layers.py --picture core            the layer picture hardware/firmware/README.md shows
    fw-layers.py --readme README.md        fails when the README's picture is not --picture's

LAYERS below is the one place the order is declared. A file may use (call, or read the data of)
files in the layers below its own, never one in its own layer or above: so the files' call graph
has no cycle, and a module reaches a module above it only by being called.

The check compiles each .c of the unit (run from hardware/firmware) with the compiler and flags
given, then reads each object's symbols with the matching nm: the defined ones (T, D, R, B, ...)
say which file a symbol belongs to, the undefined ones (U) what a file uses. The compiler's own
output, not a reading of the source: a call hidden behind a macro or an #if of the flags given
counts as the compiler sees it. Run it once per set of build options (the Makefile runs the
core's three: the host's defaults, the AVR streaming image's and the AVR library image's).
Symbols no file of the unit defines (the HAL a port provides, libc) are not the unit's business.

Exits 1 with one line per use that goes up (or per file missing from LAYERS), 2 on a tool error.
"""
import argparse
import concurrent.futures
import glob
import os
import subprocess
import sys
import tempfile

# Lowest layer first. Each layer: (what it is, its files).
LAYERS = {
    "core": [
        ("HAL clock, checksums, varints", ["hal.c", "crc16.c", "uvarint.c"]),
        ("frames, ramp lists, DRV2605L", ["frame_decoder.c", "frame_encoder.c", "ramps.c", "drv2605l.c"]),
        ("message codec, reports", ["messages.c", "outbox.c"]),
        ("standby and wake", ["power.c"]),
        ("scheduler (the queue)", ["scheduler.c"]),
        ("stream, preload, library, set-up, sessions", ["stream.c", "program.c", "library.c", "setup.c", "session.c"]),
        ("calibration", ["calibration.c"]),
        ("command table (dispatch, check)", ["commands.c"]),
        ("sequence numbers, ACKs, flow, watchdog", ["link.c"]),
        ("port API (thrum_fw_*)", ["firmware.c"]),
    ],
    "ports/avr": [
        ("Timer1 clock, TWI master", ["clock.c", "twi.c"]),
        ("24LC256 storage, triggers", ["library_io.c"]),
        ("main, UART, I2C HAL", ["board.c"]),
    ],
    "ports/cortex-m": [
        ("main, SysTick clock, UART, I2C, flash storage, fault", ["board.c"]),
        ("vector table, reset (copies .data, clears .bss)", ["startup.c"]),
    ],
}

DEFINED = set("TDRBCGSVW")


def fail(msg):
    sys.exit("fw-layers: " + msg)


def picture(unit):
    """The layers as text, top layer first: each file calls only files on the rows below its own."""
    layers = LAYERS[unit]
    width = max(len("   ".join(files)) for _, files in layers)
    rule = "    +" + "-" * (width + 2) + "+"
    lines = [rule]
    for i in range(len(layers) - 1, -1, -1):
        what, files = layers[i]
        lines.append("%2d  | %-*s |  %s" % (i, width, "   ".join(files), what))
        lines.append(rule)
    lines.append("       calls go down only (tools/fw-layers.py checks it)")
    return "\n".join(line.rstrip() for line in lines)


def check_readme(path):
    """Each ```text block after a `<!-- fw-layers UNIT -->` line is UNIT's picture."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found = 0
    for i, line in enumerate(lines):
        if not line.startswith("<!-- fw-layers "):
            continue
        unit = line[len("<!-- fw-layers "):].split()[0]
        if unit not in LAYERS:
            fail("%s:%d: no unit %r in LAYERS" % (path, i + 1, unit))
        if i + 1 >= len(lines) or lines[i + 1] != "```text":
            fail("%s:%d: expected a ```text block after the marker" % (path, i + 2))
        end = lines.index("```", i + 2)
        if "\n".join(lines[i + 2:end]) != picture(unit):
            fail("%s:%d: the picture of %s is not the one LAYERS declares; write this instead:\n%s"
                 % (path, i + 3, unit, picture(unit)))
        found += 1
    if found == 0:
        fail("%s: no `<!-- fw-layers UNIT -->` picture" % path)


def symbols(nm, obj):
    try:
        out = subprocess.run([nm, obj], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail("%s %s failed: %s" % (nm, obj, e))
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in DEFINED:
            defined.add(parts[2])
    return defined, used


def check(unit, cc, nm, flags, label):
    rank = {}
    for level, (_, files) in enumerate(LAYERS[unit]):
        for f in files:
            rank[f] = level
    sources = sorted(os.path.basename(p) for p in glob.glob(os.path.join(unit, "*.c")))
    problems = ["%s/%s is in no layer: add it to LAYERS in tools/fw-layers.py" % (unit, f)
                for f in sources if f not in rank]
    problems += ["%s/%s is in LAYERS but not in %s" % (unit, f, unit) for f in rank if f not in sources]
    owner, uses = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        def compile_one(f):
            obj = os.path.join(tmp, f + ".o")
            cmd = [cc] + flags + ["-c", os.path.join(unit, f), "-o", obj]
            r = subprocess.run(cmd, capture_output=True, text=True)
            return f, obj, cmd, r

        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            compiled = list(pool.map(compile_one, sources))
        for f, obj, cmd, r in compiled:
            if r.returncode != 0:
                fail("%s failed:\n%s" % (" ".join(cmd), r.stderr))
            defined, used = symbols(nm, obj)
            for s in defined:
                owner[s] = f
            uses[f] = used
    edges = 0
    for f in sources:
        for s in sorted(uses[f]):
            g = owner.get(s)
            if g is None or g == f:
                continue
            edges += 1
            if f in rank and g in rank and rank[g] >= rank[f]:
                problems.append("%s/%s (layer %d) uses %s of %s/%s (layer %d): a file calls down only"
                                % (unit, f, rank[f], s, unit, g, rank[g]))
    for p in problems:
        print("fw-layers: " + p, file=sys.stderr)
    if problems:
        print("fw-layers: %s%s: %d use(s) against the layer order" % (unit, label, len(problems)), file=sys.stderr)
        sys.exit(1)
    print("fw-layers: %s%s ok: %d files in %d layers, %d uses between files, all downward"
          % (unit, label, len(sources), len(LAYERS[unit]), edges))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--unit", choices=sorted(LAYERS))
    ap.add_argument("--cc", help="the compiler (its nm is found beside it: gcc -> nm, avr-gcc -> avr-nm)")
    ap.add_argument("--label", default="", help="said after the unit in the report (the build options' name)")
    ap.add_argument("--picture", choices=sorted(LAYERS))
    ap.add_argument("--readme")
    ap.add_argument("flags", nargs="*")
    a = ap.parse_args()
    if a.picture:
        print(picture(a.picture))
        return
    if a.readme:
        check_readme(a.readme)
        print("fw-layers: %s shows the declared layers" % a.readme)
        return
    if not a.unit or not a.cc:
        ap.error("--unit and --cc (or --picture, --readme)")
    nm = a.cc[:-3] + "nm" if a.cc.endswith("gcc") else "nm"
    check(a.unit, a.cc, nm, a.flags, " (%s)" % a.label if a.label else "")


if __name__ == "__main__":
    main()
