#!/usr/bin/env bash
# Runs the whole test suite: the Swift tests (unit, golden vectors, in-process and pty end to
# end) and the C firmware tests (the same golden vectors through the C codec).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/ensure-deps.sh

echo "== C firmware tests"
make -C hardware/firmware test

echo "== Firmware budgets (AVR and Cortex-M builds: flash, static RAM, stack bound)"
make -s -C hardware/firmware avr cortex-m

echo "== Swift tests"
swift build --build-tests
# All tests are XCTest; without this flag swift test also runs an empty Swift Testing pass
# whose "0 tests" line would close the output.
swift test --skip-build --disable-swift-testing
