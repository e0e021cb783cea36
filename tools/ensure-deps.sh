#!/usr/bin/env bash
# Installs what Thrum needs on a Debian or Ubuntu machine that already has a Swift 6 toolchain:
# libserialport (headers and pkg-config file), pkg-config, make and a C compiler; and for the AVR
# firmware binary in simavr (hardware/avrsim, tests/EndToEndTests/AVRFirmwareEndToEndTests):
# gcc-avr, avr-libc, simavr, libsimavr-dev, libsimavrparts1 (a separate package on Debian) and
# libelf-dev.
# Uses sudo when not root. Prints nothing when everything is already there.
set -euo pipefail

missing=()
pkg-config --exists libserialport 2>/dev/null || missing+=(libserialport-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
command -v avr-gcc >/dev/null 2>&1 || missing+=(gcc-avr)
[ -f /usr/lib/avr/include/avr/io.h ] || missing+=(avr-libc)
command -v simavr >/dev/null 2>&1 || missing+=(simavr)
[ -f /usr/include/simavr/sim_avr.h ] || missing+=(libsimavr-dev)
ls /usr/lib/*/libsimavrparts.so.1 >/dev/null 2>&1 || missing+=(libsimavrparts1)
[ -f /usr/include/libelf.h ] || missing+=(libelf-dev)

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
