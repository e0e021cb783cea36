#!/usr/bin/env bash
# Installs what Thrum needs on a Debian or Ubuntu machine that already has a Swift 6 toolchain:
# libserialport (headers and pkg-config file), pkg-config, make and a C compiler; for the firmware
# cross builds gcc-avr + avr-libc and gcc-arm-none-eabi + newlib (python3 for their budget report);
# and for the AVR firmware binary in simavr (hardware/avrsim, EndToEndTests/AVRFirmwareEndToEndTests):
# simavr, libsimavr-dev, libsimavrparts1 (a separate package on Debian) and libelf-dev; xmllint
# (libxml2-utils) for the JUnit schema check of `thrum play --junit`; ser2net for the tcp:// and
# rfc2217:// remote-rig tests; libasound2-dev (ALSA, the sound output of `thrum play`) and
# libsndfile1-dev (decoding AudioCustom files) for ThrumAudio; avrdude, stm32flash and the Arduino
# bootloaders for flashing; CivetWeb, chromium and selenium for the studio; python3-venv for labgrid.
# Uses sudo when not root. Prints nothing when everything is already there.
set -euo pipefail

missing=()
pkg-config --exists libserialport 2>/dev/null || missing+=(libserialport-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
# Firmware cross builds and their size budgets (make -C hardware/firmware avr cortex-m).
command -v avr-gcc >/dev/null 2>&1 || missing+=(gcc-avr binutils-avr)
[ -f /usr/lib/avr/include/avr/io.h ] || missing+=(avr-libc)
command -v arm-none-eabi-gcc >/dev/null 2>&1 || missing+=(gcc-arm-none-eabi)
[ -f /usr/lib/arm-none-eabi/newlib/thumb/v7-m/nofp/libc_nano.a ] || missing+=(libnewlib-arm-none-eabi)
# python3 also makes tools/fuzz.sh's seed corpora.
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v simavr >/dev/null 2>&1 || missing+=(simavr)
[ -f /usr/include/simavr/sim_avr.h ] || missing+=(libsimavr-dev)
ls /usr/lib/*/libsimavrparts.so.1 >/dev/null 2>&1 || missing+=(libsimavrparts1)
[ -f /usr/include/libelf.h ] || missing+=(libelf-dev)
# xmllint checks `thrum play --junit` reports against tools/junit.xsd.
command -v xmllint >/dev/null 2>&1 || missing+=(libxml2-utils)
# ser2net: the serial-over-network server the remote-rig tests put in front of `thrum sim`.
command -v ser2net >/dev/null 2>&1 || missing+=(ser2net)
# ALSA and libsndfile (both LGPL, linked by ThrumAudio through the CALSA and CSndFile targets).
pkg-config --exists alsa 2>/dev/null || missing+=(libasound2-dev)
pkg-config --exists sndfile 2>/dev/null || missing+=(libsndfile1-dev)
# Flashing through the boards' own bootloaders (`thrum firmware flash`): avrdude (GPL, run as a
# separate program) with the Arduino bootloader images Debian ships (optiboot for the Uno and new
# Nano, ATmegaBOOT for the old Nano), which the simulated board runs; stm32flash for the Blue Pill.
command -v avrdude >/dev/null 2>&1 || missing+=(avrdude)
command -v stm32flash >/dev/null 2>&1 || missing+=(stm32flash)
[ -f /usr/share/arduino/hardware/arduino/avr/bootloaders/optiboot/optiboot_atmega328.hex ] || missing+=(arduino-core-avr)
# Thrum Studio: CivetWeb (MIT) serves HTTP and WebSockets; the browser tests drive Debian's
# chromium through chromium-driver with python3-selenium (the system python3, /usr/bin/python3).
[ -f /usr/include/civetweb.h ] || missing+=(libcivetweb-dev)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
[ -d /usr/lib/python3/dist-packages/selenium ] || missing+=(python3-selenium)
# labgrid (rig farms) comes from PyPI into a virtual environment tools/labgrid-venv.sh makes.
[ -f /usr/lib/python3/dist-packages/venv/__init__.py ] || dpkg -s python3-venv >/dev/null 2>&1 || missing+=(python3-venv)

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
