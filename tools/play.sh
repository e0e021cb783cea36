#!/usr/bin/env bash
# Quick start: build Thrum and play a pattern on the built-in virtual device.
#   tools/play.sh                      plays examples/heartbeat.ahap
#   tools/play.sh FILE.ahap [OPTIONS]  plays FILE (any `thrum play` options pass through)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/ensure-deps.sh
swift build --product thrum -c release >&2
if [ $# -eq 0 ]; then set -- examples/heartbeat.ahap; fi
exec .build/release/thrum play "$@"
