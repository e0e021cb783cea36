#!/usr/bin/env bash
# Runs the test suite, or named parts of it:
#
#   tools/test.sh              every part below, in this order (what CI runs)
#   tools/test.sh PART...      only those parts (in the same order), e.g. `tools/test.sh c swift`
#
# Parts:
#   c        the C firmware tests (the same golden vectors through the C codec) and the core's layer
#            check (its files call down only: tools/fw-layers.py)
#   budgets  the firmware images against their budgets (AVR streaming and library, Cortex-M)
#   avr      the AVR firmware binary, its simavr harness, the simulated boards' bootloader and the
#            harness's C tests (the AVR end-to-end tests of `swift` run against them)
#   fuzz     each libFuzzer target for a few seconds (FUZZ_SECONDS, default 5; 0 skips them)
#   swift    the Swift tests: unit, golden vectors, in-process and pty end to end, simavr
#   docs     only when named (`tools/test.sh docs`; `swift` runs them too): the tests that run the
#            docs' samples (DocSampleTests: every block marked <!-- doctest --> in README.md and
#            docs/), check docs/architecture.md against Package.swift and run the README's example
#
# The Swift tests run on TEST_WORKERS processes at once (default: the number of cores), each test
# in its own process (`swift test --parallel`; they share no state), except those that run in real
# time (pty, simavr, ser2net): these run after them, one at a time. Each pass is stopped as hung
# after TEST_PART_LIMIT (default 40m, a `timeout` duration).
# At the end come each part's time (wall clock, and the CPU time its processes used, which the
# machine's load does not inflate), the 10 slowest Swift tests, and last the XCTest summary line
# ("Executed N tests, with F failures ...").
set -euo pipefail
cd "$(dirname "$0")/.."

parts_in_order=(c budgets avr fuzz swift)
jobs=$(nproc 2>/dev/null || echo 2)
# The longest one pass of Swift tests may run (`timeout` duration) before it is stopped as hung.
part_limit=${TEST_PART_LIMIT:-40m}

named_only_parts=(docs)
usage() { echo "usage: tools/test.sh [PART...], PART one of: ${parts_in_order[*]} ${named_only_parts[*]}" >&2; exit 2; }

part_c() {
    make -s -j"$jobs" -O -C hardware/firmware test
}

part_budgets() {
    make -s -j"$jobs" -O -C hardware/firmware avr avr-library cortex-m
}

part_avr() {
    # bootloaders: the simulated boards' optiboot (FirmwareFlashTests), made here rather than in
    # the serial real-time pass (or in the parallel one, beside another test's make).
    make -s -j"$jobs" -O -C hardware/avrsim all test bootloaders
    tools/gen-arduino-library.sh --check
}

part_fuzz() {
    local seconds=${FUZZ_SECONDS:-5}
    if [[ $seconds == 0 ]]; then
        echo "FUZZ_SECONDS=0: skipped"
        return
    fi
    # A target's build is one single-threaded compile (-O, sanitizers): the compiler target, the
    # longest, is built and run beside the other three, so that both cores work.
    local log status=0
    log=$(mktemp)
    tools/fuzz.sh compiler "$seconds" > "$log" 2>&1 &
    local beside=$!
    for target in firmware-receive wire-decoder ahap-reader; do
        tools/fuzz.sh "$target" "$seconds" || status=$?
    done
    wait "$beside" || status=$?
    cat "$log"
    rm -f "$log"
    return "$status"
}

part_docs() {
    swift build --build-tests
    record "swift build"
    swift_tests 'DocSampleTests|DocBlockTests|ArchitectureDocTests|ReadmeExampleTests'
}

part_swift() {
    # The pinned labgrid of the farm tests (LabgridFarmTests, in real time below): quick once made;
    # made (downloads, mostly) while the build compiles.
    local venv_log=.build/labgrid-venv.log venv
    mkdir -p .build
    tools/labgrid-venv.sh >"$venv_log" 2>&1 &
    venv=$!
    swift build --build-tests
    record "swift build"
    if ! wait "$venv"; then
        cat "$venv_log"
        echo "labgrid's virtual environment could not be made: LabgridFarmTests will skip"
    fi
    record "labgrid venv (beside the build)"
    swift_tests
}

# The tests that run in real time beside other processes (`thrum sim`, simavr, ptys, ser2net,
# the reader's wake-ups): they run in a second pass, one at a time, so that no other test takes
# the cores they pace against. Every other test runs in virtual time (or on no clock at all)
# and runs in the parallel pass; so do these end-to-end classes, which run nothing in real time
# (CLIOutsideCheckTests starts `thrum sim` and `studio` only to see them stop at once;
# JourneyCheckTests a studio only to read its first lines).
# (Every other EndToEndTests class runs in real time, LabgridFarmTests' labgrid farm among them.)
virtual_time_end_to_end='BenchCommandTests|CLIHostileInputTests|CLIOutsideCheckTests|CLIPresetsTests|CLIRenderTests|CLIUsageErrorTests|'\
'CLIValidateTests|DocBlockTests|EngineOnVirtualRigTests|FaultOutcomeTests|FaultSoakTests|FeltOnsetGridTests|'\
'FirmwareListTests|FirmwarePreflightTests|IdleEngineTests|ImmediateStartTests|LibraryEndToEndTests|LibraryPowerLossTests|PlayEngineOptionsTests|'\
'PublicErrorMessageTests|ROMTableAgreementTests|RunFaultTests|ReadmeExampleTests|StalledLinkResetTests|'\
'VirtualTimePlaybackTests|CompletionsAndManTests|JourneyCheckTests|LongRoundTripCLITests'
# Single tests of real-time classes that pace nothing: each waits out a port nobody answers on (a
# pty the test holds itself), which a loaded machine can only make slower, never make answer.
no_answer_end_to_end='FirmwareFlashTests/testNoAnswerNamesTheCauses|PlayOverPseudoTerminalTests/testPortWithNoDeviceBehindItSaysSo|'\
'PlayExpectationsTests/testNoDeviceWritesAnErrorTestCase|DoctorCommandTests/testSilentPortGetsTheFlashLine'
real_time_tests="EndToEndTests\\.(?!($virtual_time_end_to_end)/|($no_answer_end_to_end)\$)|ThrumLinkTests\\.(PseudoTerminalTransportTests|"\
"ReaderWokenTests|WakeableWaitTests|PlatformWaitTests|WakeLatencyFloorTests|TCPTransportTests)/|"\
"ThrumHarnessTests\\.ReaderWakeFloorTests/|ThrumAudioTests\\.ALSAAudioSinkTests/|ThrumBenchTests\\.FirstPlayBenchTests/"

# After a pass was stopped as hung: what it ran from this checkout's build and left behind (swift
# test runs its test processes in their own process group, which `timeout` does not reach).
stop_strays() {
    pkill -KILL -f "$PWD/.build/" || true
}

# What the serial pass's log LOG says was running when the pass was stopped: the last test it shows
# started, unless a line says that test finished. Read as bytes (-a, LC_ALL=C): a test's output may
# hold a NUL (a pty's raw bytes), and grep then takes the whole log for binary and prints "binary
# file matches" on stderr instead of the line (the stop message once came out without the name);
# -o: output without a final newline puts the next "Test Case" line on its line.
running_test() {
    local last
    last=$(LC_ALL=C grep -a -o "Test Case '[^']*' \(started\|passed\|failed\|skipped\)" "$1" | tail -1 || true)
    case $last in
        *"' started") echo "${last% started} was running" ;;
        "") echo "no test had started" ;;
        *) echo "no test was running (the last, ${last#Test Case }, had finished)" ;;
    esac
}

# Runs the Swift tests, or those matching REGEX (`swift test --filter`: a named subset is a part
# that calls this with its own): those in virtual time in parallel, then those in real time one at
# a time; then prints each part's time, the 10 slowest tests and the summary line.
swift_tests() {
    local regex=${1:-.} results=.build/test-results.xml serial_log=.build/test-serial.log status=0
    rm -f "$results" "$serial_log"
    # --disable-swift-testing: all tests are XCTest; an empty Swift Testing pass would print its
    # own "0 tests" line. Each pass is stopped at TEST_PART_LIMIT (`timeout` signals its whole
    # process group: the test processes and what they started): a hung test fails the run there,
    # with the pass named, instead of holding CI to its own limit (both passes take 4–10 min on
    # 2 cores, loaded or not).
    timeout --kill-after=30s "$part_limit" \
        swift test --skip-build --disable-swift-testing --parallel --num-workers "${TEST_WORKERS:-$jobs}" \
        --xunit-output "$results" --filter "$regex" --skip "$real_time_tests" || status=$?
    if [ "$status" = 124 ]; then
        echo "== the parallel tests ran past $part_limit and were stopped: a test hung"
        stop_strays
    fi
    record "swift tests (parallel)"
    echo "== Swift tests in real time, one at a time"
    # A serial run writes no xUnit file: its log is read instead (its last "started" line names a
    # test that hung). The test bundle runs them itself, as `swift test` would (one process, the
    # tests its --filter selects from `--list-tests`, NO_COLOR): `swift test` relays the bundle's
    # output through its own stdout, block-buffered into a pipe, so a pass stopped as hung lost
    # its last lines, the running test's "started" among them; the bundle flushes each of XCTest's
    # lines. Run by `timeout` itself, it is stopped with the pass.
    local serial=0 selected
    selected=$(swift test --skip-build --list-tests 2>/dev/null | grep -P "^(?=.*(?:$regex))(?=.*(?:$real_time_tests))" | paste -sd, - || true)
    if [ -n "$selected" ]; then
        NO_COLOR=1 timeout --kill-after=30s "$part_limit" \
            "$(swift build --show-bin-path)/ThrumPackageTests.xctest" "$selected" 2>&1 \
            | tee "$serial_log" || serial=$?
    fi
    if [ "$serial" = 124 ]; then
        echo "== the real-time tests ran past $part_limit and were stopped: $(running_test "$serial_log")"
        stop_strays
    fi
    if [ "$serial" != 0 ]; then status=$serial; fi
    record "swift tests (serial)"
    print_times
    python3 tools/test-report.py --slowest 10 "$results" "$serial_log" || status=$?
    return "$status"
}

# Each part's wall-clock and CPU time (user + system of the processes it ran and waited for).
part_times=()
cpu_file=$(mktemp)
trap 'rm -f "$cpu_file"' EXIT
cpu_seconds() {  # into $cpu: the CPU time of this shell's finished children so far, s
    times > "$cpu_file"  # the builtin, in this shell (a subshell would count its own children)
    cpu=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$cpu_file")
}
mark() { mark_wall=$SECONDS; cpu_seconds; mark_cpu=$cpu; }
record() {  # name: the time since the last mark
    cpu_seconds
    part_times+=("$(printf '%-24s %6d %6d' "$1" $((SECONDS - mark_wall)) $((cpu - mark_cpu)))")
    mark
}
print_times() {
    echo "== time per part (s; $jobs cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"
    printf '%-24s %6s %6s\n' part wall cpu
    printf '%s\n' "${part_times[@]}"
}

for part in "$@"; do
    [[ " ${parts_in_order[*]} ${named_only_parts[*]} " == *" $part "* ]] || usage
done
parts=()
for part in "${parts_in_order[@]}"; do
    [[ $# -gt 0 && " $* " != *" $part "* ]] || parts+=("$part")
done
for part in "${named_only_parts[@]}"; do
    [[ " $* " != *" $part "* ]] || parts+=("$part")
done

tools/ensure-deps.sh
for part in "${parts[@]}"; do
    echo "== $part"
    mark
    if [[ $part == swift || $part == docs ]]; then
        "part_$part"  # last: prints the times and closes the output with the summary line
    else
        "part_$part"
        record "$part"
    fi
done
[[ " ${parts[*]} " == *" swift "* || " ${parts[*]} " == *" docs "* ]] || print_times
