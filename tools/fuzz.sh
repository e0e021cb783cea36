#!/usr/bin/env bash
# Builds and runs one libFuzzer target for SECONDS seconds:
#
#   tools/fuzz.sh NAME SECONDS [libFuzzer options...]
#   tools/fuzz.sh all SECONDS         each target in turn (what tools/test.sh runs, briefly)
#
# Targets (sources in fuzz/):
#   firmware-receive  the firmware's receive path (C), with queue, window and program invariants
#   wire-decoder      the host's device-frame decoder and message parser (Swift, ThrumWire)
#   ahap-reader       the AHAP reader, strict and lenient, with the write→read round trip
#   compiler          the compiler and renderer on any pattern the reader accepts
#
# Built with the Swift toolchain's clang / swiftc (-fsanitize=fuzzer,address) into
# .build/fuzz/NAME. The seed corpus is made on each run from the golden wire vectors and the
# repository's example patterns (nothing from outside the repository); findings go to
# .build/fuzz/NAME-corpus (the working corpus) and crash-* files in .build/fuzz/NAME-findings.
# A crash exits non-zero: reproduce it with `.build/fuzz/NAME FILE`, then make it a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: tools/fuzz.sh {firmware-receive|wire-decoder|ahap-reader|compiler|all} SECONDS [libFuzzer options]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
name=$1
seconds=$2
shift 2
[[ $seconds =~ ^[0-9]+$ ]] || usage

if [[ $name == all ]]; then
    for target in firmware-receive wire-decoder ahap-reader compiler; do
        "$0" "$target" "$seconds" "$@"
    done
    exit 0
fi

toolchain_bin=$(dirname "$(readlink -f "$(command -v swiftc)")")
clang="$toolchain_bin/clang"
swiftc="$toolchain_bin/swiftc"
out=.build/fuzz
mkdir -p "$out"
binary="$out/$name"

newer_than_binary() { [[ ! -x $binary ]] || [[ -n $(find "$@" -newer "$binary" -print -quit) ]]; }

build_swift() {  # module name, sources...
    local module=$1
    shift
    "$swiftc" -sanitize=fuzzer,address -parse-as-library -O -module-name "$module" "$@" -o "$binary" 2>&1 \
        | grep -v "ld.gold: warning: Cannot export local symbol" || true
    [[ -x $binary ]]
}

case $name in
    firmware-receive)
        if newer_than_binary hardware/firmware fuzz/firmware_receive.c firmware-protocol/thrum_protocol.h; then
            echo "== building $name"
            (cd hardware/firmware && "$clang" -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
                -Iinclude -Icore -Itests -Iports/host-sim -D_POSIX_C_SOURCE=200809L \
                core/*.c tests/fake_hal.c ports/host-sim/thrum_host_sim.c ../../fuzz/firmware_receive.c -o "../../$binary" 2>&1 \
                | grep -v "ld.gold: warning: Cannot export local symbol" || true)
        fi
        ;;
    wire-decoder)
        if newer_than_binary Sources/ThrumWire fuzz/wire_decoder.swift; then
            echo "== building $name"
            build_swift ThrumWireFuzz Sources/ThrumWire/*.swift fuzz/wire_decoder.swift
        fi
        ;;
    ahap-reader)
        if newer_than_binary Sources/ThrumPattern fuzz/ahap_reader.swift; then
            echo "== building $name"
            mapfile -t sources < <(find Sources/ThrumPattern -name '*.swift' | sort)
            build_swift ThrumAHAPFuzz "${sources[@]}" fuzz/ahap_reader.swift
        fi
        ;;
    compiler)
        if newer_than_binary Sources/ThrumPattern Sources/ThrumTime Sources/ThrumCompiler fuzz/compiler.swift; then
            echo "== building $name"
            # One module: the compiler's `import ThrumPattern` and `import ThrumTime` lines are
            # dropped from copies; of ThrumTime only the time types come along (no clocks).
            src="$out/compiler-src"
            rm -rf "$src" && mkdir -p "$src"
            for f in $(find Sources/ThrumCompiler -name '*.swift'); do
                sed '/^import ThrumPattern$/d; /^@testable import ThrumPattern$/d; /^import ThrumTime$/d' "$f" > "$src/$(basename "$f")"
            done
            mapfile -t sources < <(find Sources/ThrumPattern "$src" -name '*.swift' | sort)
            sources+=(Sources/ThrumTime/HostTime.swift Sources/ThrumTime/DeviceTime.swift Sources/ThrumTime/EngineTime.swift)
            build_swift ThrumCompilerFuzz "${sources[@]}" fuzz/compiler.swift
        fi
        ;;
    *) usage ;;
esac

# Seeds, made fresh from files in the repository.
seeds="$out/$name-seeds"
rm -rf "$seeds" && mkdir -p "$seeds"
case $name in
    firmware-receive | wire-decoder)
        # Every frame and stream of the golden vectors (hex in the last column), each a seed file
        # named by its label; for firmware-receive in script form ("receive n bytes" steps, then a
        # poll). One python3 for all of them: one per vector (108 start-ups for the two targets,
        # 0.1 s each and up to 1 s behind a version manager's shim on a loaded machine) took much
        # of the fuzz part's time.
        awk -F'\t' '($1 == "frame" || $1 == "stream") && $NF ~ /^[0-9a-f]+$/ { print $2 "\t" $NF }' \
            firmware-protocol/vectors/wire-vectors.txt | python3 -c '
import os, sys
seeds, script = sys.argv[1], sys.argv[2] == "firmware-receive"
for line in sys.stdin:
    label, hex = line.rstrip("\n").split("\t")
    data = bytes.fromhex(hex)
    if script:
        out = bytearray()
        for i in range(0, len(data), 64):
            chunk = data[i:i + 64]
            out.append((len(chunk) - 1) << 2)
            out += chunk
        out.append(0x01)
        data = bytes(out)
    with open(os.path.join(seeds, label), "wb") as seed:
        seed.write(data)
' "$seeds" "$name"
        ;;
    ahap-reader | compiler)
        cp examples/*.ahap "$seeds/"
        i=0
        for f in $(find Tests -name '*.ahap' -size -64k 2>/dev/null); do cp "$f" "$seeds/fixture-$i.ahap"; i=$((i + 1)); done
        ;;
esac

corpus="$out/$name-corpus"
findings="$out/$name-findings"
rm -rf "$findings"
mkdir -p "$corpus" "$findings"
echo "== fuzzing $name for $seconds s"
# The Swift runtime's backtracer trips AddressSanitizer; libFuzzer prints the stack instead.
SWIFT_BACKTRACE=enable=no "$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$@" "$corpus" "$seeds" 2>&1 | grep -E "^#[0-9]+.*(DONE|pulse)|ERROR|SUMMARY|stat::number_of_executed_units|stat::peak_rss|Test unit written|Done" || true
if compgen -G "$findings/crash-*" > /dev/null || compgen -G "$findings/leak-*" > /dev/null || compgen -G "$findings/timeout-*" > /dev/null; then
    echo "fuzz: $name found a problem: $(ls "$findings")" >&2
    exit 1
fi
echo "fuzz: $name ran $seconds s, no crash"
