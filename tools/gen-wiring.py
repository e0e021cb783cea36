#!/usr/bin/env python3
"""Draws the wiring diagrams docs/wiring/{uno,nano,bluepill}.svg from the firmware's pin tables.

The pins come from the headers the firmware builds from (hardware/firmware/ports/avr/pins.h and
ports/cortex-m/pins.h): every line `#define THRUM_PIN_<ROLE> <bit> /* <board pin> -> <to> */` is a
wire. What is not a firmware pin (the supply, ground, the LRA on the driver's outputs) is drawn
from the table below. A pin changed in a header changes the drawing; the test suite
(WiringDiagramTests) regenerates the drawings and compares them with the committed ones.

The same pins, by the names a board prints, make the board table's pin list (`thrum firmware
list`): Sources/thrum/Support/PortPins.swift is generated here too, and compared the same way.

    tools/gen-wiring.py [--out DIR]      (default: docs/wiring, and PortPins.swift in
                                          Sources/thrum/Support; with --out both go to DIR)
"""
import html
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIN_LINE = re.compile(r"^#define\s+THRUM_PIN_(\w+)\s+(\S+)\s*/\*\s*(.+?)\s*->\s*(.+?)\s*\*/\s*$")

BOARDS = {
    "uno": {
        "title": "Arduino Uno R3 (ATmega328P, 5 V logic)",
        "header": "hardware/firmware/ports/avr/pins.h",
        "power": [("5V", "DRV2605L VIN"), ("GND", "DRV2605L GND")],
        "notes": [
            "Power the breakout from the Uno's 5V pin: the LRA's rated drive needs VDD near 5 V.",
            "A4/A5 are also the SDA/SCL pins next to AREF on R3 boards (the same signals).",
            "The USB port is the ATmega16U2 bridge on the board: no serial wires to add.",
        ],
    },
    "nano": {
        "title": "Arduino Nano (ATmega328P, 5 V logic)",
        "header": "hardware/firmware/ports/avr/pins.h",
        "power": [("5V", "DRV2605L VIN"), ("GND", "DRV2605L GND")],
        "notes": [
            "Power the breakout from the Nano's 5V pin (from USB), not 3V3: the LRA needs VDD near 5 V.",
            "The USB port is the Nano's bridge (CH340 or FTDI): no serial wires to add.",
        ],
    },
    "bluepill": {
        "title": "Blue Pill (STM32F103C8, 3.3 V logic)",
        "header": "hardware/firmware/ports/cortex-m/pins.h",
        "power": [("5V", "DRV2605L VIN"), ("GND", "DRV2605L GND"), ("GND", "USB-serial adapter GND")],
        "notes": [
            "Power the breakout from 5V (the LRA needs VDD near 5 V); its I2C pull-ups then pull to 5 V,",
            "which PB6/PB7 tolerate (5 V-tolerant pins). Set the USB-serial adapter to 3.3 V.",
            "Flashing: BOOT0 jumper to 1, reset, flash over A9/A10, BOOT0 back to 0, reset.",
        ],
    },
}

# Pins of the parts that are not the board, top to bottom.
DEVICE_PINS = {
    "DRV2605L": ["VIN", "GND", "SCL", "SDA", "EN", "OUT+", "OUT-"],
    "USB-serial adapter": ["GND", "RX", "TX"],
}
COLOURS = {"5V": "#d62728", "GND": "#222222", "SDA": "#1f77b4", "SCL": "#ff7f0e", "EN": "#2ca02c",
           "RX": "#9467bd", "TX": "#8c564b", "TRIGGER": "#7f7f7f"}


def pins(header):
    """(role, bit, board pin, target) for each wired pin of `header`."""
    found = []
    with open(os.path.join(ROOT, header), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = PIN_LINE.match(line.strip())
            if m:
                found.append((m.group(1), m.group(2), m.group(3), m.group(4)))
    if not found:
        sys.exit(f"{header}: no THRUM_PIN_<ROLE> <bit> /* <board pin> -> <to> */ lines")
    return found


def colour(role, board_pin):
    for key in (role, board_pin):
        for name, c in COLOURS.items():
            if key.startswith(name):
                return c
    return "#555555"


def draw(board, spec):
    wires = []  # (board pin, role, device, device pin, dashed)
    onboard = []
    for label, target in spec["power"]:
        device, pin = target.rsplit(" ", 1)
        wires.append((label, label, device, pin, False))
    for role, bit, label, target in pins(spec["header"]):
        if "(on the board)" in target:
            onboard.append(f"{label}: {target}")
            continue
        note = ""
        m = re.match(r"(.*?)\s*\((.*)\)$", target)
        if m:
            target, note = m.group(1), m.group(2)
        if target.startswith("button"):
            device, pin = target.split(" to ")[0], "input"
        else:
            device, pin = target.rsplit(" ", 1)
        wires.append((label, role, device, pin, bool(note)))

    devices = []
    for _, _, device, _, _ in wires:
        if device not in devices:
            devices.append(device)
    row = 26
    board_rows = [w[0] for w in wires]
    width = 860
    top = 70
    board_h = max(len(board_rows) * row + 40, 200)
    out = []
    # Device boxes on the right, stacked.
    y = top
    device_pin_y = {}
    device_boxes = []
    for device in devices:
        pin_list = DEVICE_PINS.get(device, ["input", "GND"])
        h = len(pin_list) * row + 30
        device_boxes.append((device, y, h, pin_list))
        for i, p in enumerate(pin_list):
            device_pin_y[(device, p)] = y + 30 + i * row
        y += h + 24
    height = max(top + board_h, y) + 40 + 18 * (len(spec["notes"]) + len(onboard) + 1)
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
               f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">')
    out.append(f"<!-- Generated by tools/gen-wiring.py from {spec['header']}; edit that file, not this one. -->")
    out.append(f'<rect width="{width}" height="{height}" fill="white"/>')
    out.append(f'<text x="20" y="30" font-size="18" font-weight="bold">Thrum wiring: {html.escape(spec["title"])}</text>')
    out.append(f'<text x="20" y="50" fill="#555">pins from {spec["header"]}</text>')
    # Board.
    bx, bw = 40, 200
    out.append(f'<rect x="{bx}" y="{top}" width="{bw}" height="{board_h}" rx="8" fill="#e8f0e8" stroke="#333"/>')
    out.append(f'<text x="{bx + 12}" y="{top + 22}" font-weight="bold">{html.escape(spec["title"].split(" (")[0])}</text>')
    pad_x = bx + bw
    for i, (label, role, device, pin, dashed) in enumerate(wires):
        py = top + 46 + i * row
        dy = device_pin_y.get((device, pin), py)
        c = colour(role, label)
        channel = 300 + i * 16
        dx = 560
        dash = ' stroke-dasharray="6 4"' if dashed else ""
        out.append(f'<polyline points="{pad_x},{py} {channel},{py} {channel},{dy} {dx},{dy}" fill="none" '
                   f'stroke="{c}" stroke-width="2.5"{dash}/>')
        out.append(f'<circle cx="{pad_x}" cy="{py}" r="4" fill="{c}"/>')
        out.append(f'<text x="{pad_x - 10}" y="{py + 4}" text-anchor="end">{html.escape(label)}</text>')
    # Devices.
    for device, dy0, h, pin_list in device_boxes:
        out.append(f'<rect x="560" y="{dy0}" width="170" height="{h}" rx="6" fill="#eef" stroke="#333"/>')
        out.append(f'<text x="572" y="{dy0 + 18}" font-weight="bold">{html.escape(device)}</text>')
        for p in pin_list:
            py = device_pin_y[(device, p)]
            out.append(f'<circle cx="560" cy="{py}" r="4" fill="#333"/>')
            out.append(f'<text x="572" y="{py + 4}">{html.escape(p)}</text>')
        if device == "DRV2605L":
            y1, y2 = device_pin_y[(device, "OUT+")], device_pin_y[(device, "OUT-")]
            out.append(f'<polyline points="730,{y1} 780,{y1} 780,{(y1 + y2) // 2 - 14}" fill="none" stroke="#d62728" stroke-width="2.5"/>')
            out.append(f'<polyline points="730,{y2} 780,{y2} 780,{(y1 + y2) // 2 + 14}" fill="none" stroke="#222" stroke-width="2.5"/>')
            out.append(f'<circle cx="780" cy="{(y1 + y2) // 2}" r="14" fill="#ffd" stroke="#333"/>')
            out.append(f'<text x="780" y="{(y1 + y2) // 2 + 4}" text-anchor="middle" font-size="11">LRA</text>')
    ny = max(top + board_h, y) + 30
    lines = spec["notes"] + onboard + ["Dashed: only the library image, or only a breakout that brings the pin out.",
                                   "A trigger button: one leg to its input, the other to GND (the input's pull-up is on)."]
    for line in lines:
        out.append(f'<text x="20" y="{ny}" fill="#333">{html.escape(line)}</text>')
        ny += 18
    out.append("</svg>")
    return "\n".join(out) + "\n"


# The ports whose pins the board table names: (Swift name, header, how a pin is named).
PORTS = [
    ("avr", "hardware/firmware/ports/avr/pins.h", "the Arduino pin, then the port bit: A4 (PC4)",
     lambda label, bit: f"{label} ({bit})"),
    ("cortexM", "hardware/firmware/ports/cortex-m/pins.h", "the STM32 pin the Blue Pill prints: PB7",
     lambda label, bit: f"P{label}"),
]


def swift_pins():
    """PortPins.swift: each port's SDA, SCL, EN and trigger inputs, named as on the board."""
    out = ["// Generated by tools/gen-wiring.py from the firmware's pin headers: edit those and run it, not",
           "// this file (WiringDiagramTests regenerates it and compares).", "",
           "/// The pins the firmware's ports use (hardware/firmware/ports/*/pins.h), named as on the board:",
           "/// the board table (``BoardCatalogue``) lists these.",
           "enum PortPins {"]
    for name, header, naming, spell in PORTS:
        table = {role: spell(label.split(" ")[0], bit) for role, bit, label, _ in pins(header)}
        for role in ("SDA", "SCL", "EN"):
            if role not in table:
                sys.exit(f"{header}: no THRUM_PIN_{role} line")
        triggers = [table[r] for r in sorted(table) if r.startswith("TRIGGER")]
        quoted = ", ".join(f'"{t}"' for t in triggers)
        out.append(f"    /// {header}: {naming}.")
        out.append(f'    static let {name} = PinNames(')
        out.append(f'        sda: "{table["SDA"]}", scl: "{table["SCL"]}", enable: "{table["EN"]}", triggers: [{quoted}])')
    out.append("}")
    return "\n".join(out) + "\n"


def main(argv):
    out_dir = os.path.join(ROOT, "docs", "wiring")
    swift_dir = os.path.join(ROOT, "Sources", "thrum", "Support")
    if len(argv) == 2 and argv[0] == "--out":
        out_dir = swift_dir = argv[1]
    elif argv:
        sys.exit("usage: tools/gen-wiring.py [--out DIR]")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(swift_dir, "PortPins.swift"), "w", encoding="utf-8") as f:
        f.write(swift_pins())
    print(os.path.relpath(os.path.join(swift_dir, "PortPins.swift")))
    for board, spec in BOARDS.items():
        with open(os.path.join(out_dir, f"{board}.svg"), "w", encoding="utf-8") as f:
            f.write(draw(board, spec))
        print(os.path.relpath(os.path.join(out_dir, board + ".svg")))


if __name__ == "__main__":
    main(sys.argv[1:])
