#!/usr/bin/env bash
# Runs the whole test suite: the Swift tests (unit, golden vectors, in-process and pty end to
# end) and the C firmware tests (the same golden vectors through the C codec).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/ensure-deps.sh

echo "== C firmware tests"
make -C hardware/firmware test

echo "== Swift tests"
swift build --build-tests
swift test --skip-build
