#!/usr/bin/env bash
# Runs the test suite, or named parts of it:
#
#   tools/test.sh              every part below, in this order (what CI runs)
#   tools/test.sh PART...      only those parts (in the same order), e.g. `tools/test.sh c swift`
#
# Parts:
#   c        the C firmware tests (the same golden vectors through the C codec)
#   budgets  the firmware images against their budgets (AVR streaming and library, Cortex-M)
#   avr      the AVR firmware binary, its simavr harness and the harness's C tests (the AVR
#            end-to-end tests of `swift` run against them)
#   fuzz     each libFuzzer target for a few seconds (FUZZ_SECONDS, default 5; 0 skips them)
#   swift    the Swift tests: unit, golden vectors, in-process and pty end to end, simavr
#
# The Swift tests run on TEST_WORKERS processes at once (default: the number of cores), each test
# in its own process (`swift test --parallel`): they share no state, and those that run in real
# time (pty, simavr) judge against what the simulated device measured, never the wall clock.
# At the end come each part's time, the 10 slowest Swift tests, and last the XCTest summary line
# ("Executed N tests, with F failures ...").
set -euo pipefail
cd "$(dirname "$0")/.."

parts_in_order=(c budgets avr fuzz swift)
jobs=$(nproc 2>/dev/null || echo 2)

usage() { echo "usage: tools/test.sh [PART...], PART one of: ${parts_in_order[*]}" >&2; exit 2; }

part_c() {
    make -s -j"$jobs" -O -C hardware/firmware test
}

part_budgets() {
    make -s -j"$jobs" -O -C hardware/firmware avr avr-library cortex-m
}

part_avr() {
    make -s -j"$jobs" -O -C hardware/avrsim all test
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

part_swift() {
    local started=$SECONDS
    swift build --build-tests
    swift_build_time=$((SECONDS - started))
    swift_tests
}

# Runs the Swift tests in parallel (`swift test` arguments such as --filter narrow them: a named
# subset is a part that calls this), then prints each part's time, the 10 slowest tests and the
# summary line.
swift_tests() {
    local results=.build/test-results.xml status=0 started=$SECONDS
    rm -f "$results"
    # --disable-swift-testing: all tests are XCTest; an empty Swift Testing pass would print its
    # own "0 tests" line.
    swift test --skip-build --disable-swift-testing --parallel --num-workers "${TEST_WORKERS:-$jobs}" \
        --xunit-output "$results" "$@" || status=$?
    times+=("$(printf '%-8s %6d  (build %d, tests %d)' swift $((SECONDS - part_started)) "${swift_build_time:-0}" \
        $((SECONDS - started)))")
    print_times
    if [[ -f $results ]]; then
        python3 tools/test-report.py --slowest 10 "$results" || status=$?
    else
        echo "swift test wrote no results ($results)"
        status=1
    fi
    return "$status"
}

times=()
print_times() {
    echo "== time per part (s), on $jobs cores"
    printf '%s\n' "${times[@]}"
}

for part in "$@"; do
    [[ " ${parts_in_order[*]} " == *" $part "* ]] || usage
done
parts=()
for part in "${parts_in_order[@]}"; do
    [[ $# -gt 0 && " $* " != *" $part "* ]] || parts+=("$part")
done

tools/ensure-deps.sh
for part in "${parts[@]}"; do
    echo "== $part"
    part_started=$SECONDS
    if [[ $part == swift ]]; then
        part_swift  # last: prints the times and closes the output with the summary line
    else
        "part_$part"
        times+=("$(printf '%-8s %6d' "$part" $((SECONDS - part_started)))")
    fi
done
[[ " ${parts[*]} " == *" swift "* ]] || print_times
