#!/usr/bin/env bash
# Makes the virtual environment with the pinned labgrid (and pytest) that the rig-farm work uses
# (docs/hil.md, "A farm of rigs"): `thrum --place`, the ThrumDriver of integrations/labgrid and
# the suite's farm tests. Nothing is installed system-wide: the environment lives in the
# git-ignored .build/labgrid-venv (or $THRUM_LABGRID_VENV), made with /usr/bin/python3's venv.
#
#   tools/labgrid-venv.sh          make it, or check it is complete (quick when it is)
#   tools/labgrid-venv.sh --path   print its directory (after making it)
#
# Its bin/ holds labgrid-coordinator, labgrid-exporter, labgrid-client and pytest; `thrum --place`
# finds labgrid-client there when run from this repository (or in $THRUM_LABGRID_CLIENT, or on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."

labgrid_version=26.0.1
pytest_version=8.3.5
venv=${THRUM_LABGRID_VENV:-.build/labgrid-venv}
stamp="$venv/.thrum-labgrid-$labgrid_version-pytest-$pytest_version"

if [[ ! -f $stamp ]]; then
    if [[ ! -x $venv/bin/python ]]; then
        mkdir -p "$(dirname "$venv")"
        /usr/bin/python3 -m venv "$venv"
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        "labgrid==$labgrid_version" "pytest==$pytest_version" >&2
    touch "$stamp"
fi
if [[ ${1:-} == --path ]]; then
    cd "$venv" && pwd
fi
