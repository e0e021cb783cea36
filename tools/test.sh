#!/usr/bin/env bash
# Runs the whole test suite: the Swift tests (unit, golden vectors, in-process and pty end to
# end), the C firmware tests (the same golden vectors through the C codec) and each libFuzzer
# target for a few seconds (FUZZ_SECONDS, default 5; 0 skips them); the AVR build and the simavr
# harness are built first so the AVR end-to-end test runs against the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/ensure-deps.sh

echo "== C firmware tests"
make -C hardware/firmware test

echo "== Firmware budgets (AVR streaming and library images, Cortex-M: flash, static RAM, stack bound)"
make -s -C hardware/firmware avr avr-library cortex-m

echo "== AVR firmware binary and its simavr harness"
make -C hardware/avrsim all test
tools/gen-arduino-library.sh --check

echo "== fuzzers, briefly (tools/fuzz.sh all \${FUZZ_SECONDS:-5}; 0 skips them)"
if [[ ${FUZZ_SECONDS:-5} != 0 ]]; then
    tools/fuzz.sh all "${FUZZ_SECONDS:-5}"
fi

# Last, so that the XCTest summary closes the output.
echo "== Swift tests"
swift build --build-tests
# All tests are XCTest; without this flag swift test also runs an empty Swift Testing pass
# whose "0 tests" line would close the output.
swift test --skip-build --disable-swift-testing
