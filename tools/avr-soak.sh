#!/bin/sh
# The issue's soak on the AVR firmware binary: MINUTES (default 10) of playback through
# `thrum play --port` against `thrum sim --mcu atmega328p --fault corrupt=5%`, judged against the
# simulated truth (Tests/EndToEndTests/AVRSoakTests.swift; the suite runs a 20 s form of it).
#   tools/avr-soak.sh [MINUTES] [AHAP_DIR]
# AHAP_DIR adds its .ahap files to the rotation of the repository's examples. The figures are
# printed on lines starting "AVR soak:". simavr is paced to the wall clock, so the run takes
# MINUTES of real time (more when the machine is loaded: the simulation then lags, which the
# host-side bound check reports as not measurable; the firmware figures are simulated time).
set -eu
cd "$(dirname "$0")/.."
minutes=${1:-10}
corpus=${2:-}
swift build --build-tests >/dev/null
THRUM_AVR_SOAK_MINUTES="$minutes" THRUM_SOAK_CORPUS="$corpus" \
    swift test --skip-build --filter AVRSoakTests 2>&1 | grep -E '^AVR soak|error|Executed|passed|failed'
