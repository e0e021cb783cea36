#!/usr/bin/env bash
# Installs what Thrum needs on a Debian or Ubuntu machine that already has a Swift 6 toolchain:
# libserialport (headers and pkg-config file), pkg-config, make and a C compiler.
# Uses sudo when not root. Prints nothing when everything is already there.
set -euo pipefail

missing=()
pkg-config --exists libserialport 2>/dev/null || missing+=(libserialport-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
# tools/fuzz.sh makes its seed corpora with python3.
command -v python3 >/dev/null 2>&1 || missing+=(python3)

if ! command -v swift >/dev/null 2>&1; then
    echo "thrum: no Swift toolchain on PATH; install Swift 6 (swift.org) and try again" >&2
    exit 1
fi

if ((${#missing[@]})); then
    echo "thrum: installing ${missing[*]} with apt-get" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
