#!/usr/bin/env bash
# Regenerates the docs' generated tables from the code: the DRV2605L ROM table of
# docs/presets.md, the pre-shift and felt-onset grid tables of docs/semantics.md. Each is written
# between its `<!-- generated: thrum dev table NAME -->` and `<!-- end generated -->` lines.
# The Apple preset rows carry a prose column, so they are printed for editing by hand:
# `thrum dev table presets-apple`. DocTablesTests fails whenever the docs and the code disagree.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product thrum >/dev/null
thrum=$(swift build --show-bin-path)/thrum
"$thrum" dev table presets-rom --into docs/presets.md
"$thrum" dev table preshift --into docs/semantics.md
"$thrum" dev table felt-grid --into docs/semantics.md
git --no-pager diff --stat -- docs/presets.md docs/semantics.md
