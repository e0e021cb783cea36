#!/usr/bin/env python3
"""Memory budget of a firmware image: flash, static RAM and a worst-case stack bound.

    fw-budget.py --arch avr --elf build/avr/thrum.elf --su 'build/avr/*.su' \
        --flash-max 12288 --static-max 1280 --ram 2048 --margin-min 256

Flash is text + data (what gets programmed), static RAM is data + bss. The stack bound is a
static call-graph bound: the call graph comes from the disassembly of the linked image (direct
calls, tail jumps to other functions, and indirect calls: --indirect CALLER=TARGETS rules say which
functions (regex TARGETS) an indirect call in a function matching regex CALLER may reach, first
match wins; the default reaches the HAL callbacks, hal_*), each function's frame from GCC's
-fstack-usage output of the same link (LTO: the ltrans .su). Per call level the return address
is added (AVR: 2 bytes, pushed by CALL; ARM: 0, LR is saved inside the frame). The worst case is
the deepest path from the reset root plus the deepest interrupt handler (interrupts do not nest
on either port: AVR clears I on entry, and the Cortex-M port leaves every IRQ at one priority)
plus, on Cortex-M, the fault handler, which can preempt an IRQ, and the hardware-stacked
exception frames (32 bytes each). A function without a .su entry (libgcc, libc) is given
--unknown-frame bytes and no callees of its own beyond what the disassembly shows. Recursion
makes the bound infinite and is reported as an error.

Prints one report and exits 1 when a limit is exceeded (2 on a tool error).
"""
import argparse
import glob
import re
import subprocess
import sys

AVR_CALL = re.compile(r"\t(?:r?call|r?jmp)\t[^;]*;\s*0x([0-9a-f]+)\s*<([^>+]+)(\+0x[0-9a-f]+)?>")
ARM_CALL = re.compile(r"\t(?:bl|blx|b|b\.w|b\.n|bx)(?:\.[nw])?\s+([0-9a-f]+)\s+<([^>+]+)(\+0x[0-9a-f]+)?>")
AVR_INDIRECT = re.compile(r"\t(?:e?icall|e?ijmp)\b")
ARM_INDIRECT = re.compile(r"\tblx\s+r\d+")
FUNC = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")


def run(cmd):
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit("fw-budget: %s failed: %s" % (" ".join(cmd), e))


def base_name(name):
    """GCC clones get suffixes: foo.constprop.3, foo.lto_priv.12, foo.part.0, foo.isra.1."""
    return re.sub(r"(\.(constprop|lto_priv|part|isra|cold)(\.\d+)?)+$", "", name)


def read_su(patterns):
    frames = {}
    for pattern in patterns:
        for path in glob.glob(pattern):
            with open(path) as f:
                for line in f:
                    parts = line.rstrip("\n").split("\t")
                    if len(parts) < 3:
                        continue
                    name = parts[0].rsplit(":", 1)[-1]
                    size = int(parts[1])
                    key = base_name(name)
                    frames[key] = max(frames.get(key, 0), size)
                    if "dynamic" in parts[2] and "bounded" not in parts[2]:
                        sys.exit("fw-budget: %s has a dynamic, unbounded frame" % name)
    return frames


def call_graph(objdump, elf, arch):
    text = run([objdump, "-d", "--no-show-raw-insn", elf] if arch == "arm" else [objdump, "-d", elf])
    call_re = ARM_CALL if arch == "arm" else AVR_CALL
    ind_re = ARM_INDIRECT if arch == "arm" else AVR_INDIRECT
    graph = {}
    indirect = set()
    current = None
    for line in text.splitlines():
        m = FUNC.match(line)
        if m:
            current = m.group(2)
            graph.setdefault(current, set())
            continue
        if current is None:
            continue
        m = call_re.search(line)
        if m:
            target, offset = m.group(2), m.group(3)
            if target != current and offset is None:
                graph[current].add(target)
            continue
        if ind_re.search(line):
            indirect.add(current)
    return graph, indirect


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", choices=["avr", "arm"], required=True)
    ap.add_argument("--elf", required=True)
    ap.add_argument("--su", action="append", default=[], help="glob of .su files (repeatable)")
    ap.add_argument("--flash-max", type=int, required=True)
    ap.add_argument("--static-max", type=int, required=True)
    ap.add_argument("--ram", type=int, required=True, help="RAM of the part, bytes")
    ap.add_argument("--margin-min", type=int, required=True)
    ap.add_argument("--indirect", action="append", default=[],
                    help="CALLER=TARGETS (regexes): what an indirect call in CALLER may reach (repeatable)")
    ap.add_argument("--unknown-frame", type=int, default=16)
    ap.add_argument("--ram-code", action="append", default=[],
                    help="an output section of code copied to RAM at start-up (counted as text by size): "
                         "its bytes are added to static RAM (repeatable)")
    ap.add_argument("--label", default="")
    args = ap.parse_args()

    prefix = "avr-" if args.arch == "avr" else "arm-none-eabi-"
    sizes = run([prefix + "size", "--format=berkeley", args.elf]).splitlines()[1].split()
    text, data, bss = int(sizes[0]), int(sizes[1]), int(sizes[2])
    flash = text + data
    ram_code = 0
    if args.ram_code:
        for line in run([prefix + "size", "-A", args.elf]).splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0] in args.ram_code:
                ram_code += int(parts[1])
    static = data + bss + ram_code

    frames = read_su(args.su)
    if not frames:
        sys.exit("fw-budget: no -fstack-usage data found in %s" % args.su)
    graph, indirect = call_graph(prefix + "objdump", args.elf, args.arch)
    rules = []
    for rule in args.indirect + [r".*=^hal_"]:
        caller, _, targets = rule.partition("=")
        t_re = re.compile(targets)
        rules.append((re.compile(caller), sorted(f for f in graph if t_re.search(base_name(f)))))

    def indirect_targets(f):
        for c_re, targets in rules:
            if c_re.search(base_name(f)):
                return targets
        return []
    ret = 2 if args.arch == "avr" else 0
    skip = re.compile(r"^__(prologue_saves|epilogue_restores)__$")

    unknown = set()
    memo = {}

    def frame(f):
        b = base_name(f)
        if b in frames:
            return frames[b]
        unknown.add(f)
        return args.unknown_frame

    def depth(f, stack):
        """Worst stack (bytes) from entering f, and the path that reaches it."""
        if f in memo:
            return memo[f]
        if f in stack:
            sys.exit("fw-budget: recursion, no static bound: %s" % " -> ".join(stack + [f]))
        callees = set(graph.get(f, ()))
        if f in indirect:
            callees |= set(indirect_targets(f))
        best, path = 0, []
        for c in sorted(callees):
            if skip.match(c) or c not in graph:
                continue
            d, p = depth(c, stack + [f])
            if d + ret > best:
                best, path = d + ret, p
        memo[f] = (frame(f) + best, [f] + path)
        return memo[f]

    if args.arch == "avr":
        roots = ["main"]
        isrs = [f for f in graph if re.match(r"^__vector_\d+$", f)]
        faults = []
        entry = 2  # the interrupted PC
    else:
        roots = ["Reset_Handler"]
        isrs = [f for f in graph if re.search(r"(IRQHandler|SysTick_Handler)$", f)]
        faults = [f for f in graph if re.search(r"^(HardFault|Fault|Default)_Handler$|Fault_Handler$", f)]
        entry = 32  # r0-r3, r12, lr, pc, xpsr stacked by the hardware
    for r in roots:
        if r not in graph:
            sys.exit("fw-budget: no %s in %s" % (r, args.elf))
    main_d, main_p = max(depth(r, []) for r in roots)
    isr_d, isr_p = max([depth(f, []) for f in isrs] or [(0, [])])
    fault_d, fault_p = max([depth(f, []) for f in faults] or [(0, [])])
    stack = main_d + (isr_d + entry if isrs else 0) + (fault_d + entry if faults else 0)
    margin = args.ram - static - stack

    label = args.label or args.arch
    print("%s budget:" % label)
    print("  flash        %6d B of %6d B (text %d + data %d)" % (flash, args.flash_max, text, data))
    print("  static RAM   %6d B of %6d B (data %d + bss %d%s)" % (static, args.static_max, data, bss,
          " + code in RAM %d" % ram_code if args.ram_code else ""))
    print("  stack bound  %6d B: main path %d B (%s)" % (stack, main_d, " > ".join(base_name(f) for f in main_p)))
    if isrs:
        print("                        + interrupt %d B + %d entry (%s)" % (isr_d, entry, " > ".join(base_name(f) for f in isr_p)))
    if faults:
        print("                        + fault handler %d B + %d entry (%s)" % (fault_d, entry, " > ".join(base_name(f) for f in fault_p)))
    print("  stack margin %6d B of RAM %d B left after static RAM and the bound (minimum %d B)" % (margin, args.ram, args.margin_min))
    if unknown:
        print("  (no frame data, %d B assumed: %s)" % (args.unknown_frame, ", ".join(sorted(unknown))))
    failures = []
    if flash > args.flash_max:
        failures.append("flash %d B > %d B" % (flash, args.flash_max))
    if static > args.static_max:
        failures.append("static RAM %d B > %d B" % (static, args.static_max))
    if margin < args.margin_min:
        failures.append("stack margin %d B < %d B" % (margin, args.margin_min))
    if failures:
        print("%s budget EXCEEDED: %s" % (label, "; ".join(failures)))
        return 1
    print("%s budget ok" % label)
    return 0


if __name__ == "__main__":
    sys.exit(main())
