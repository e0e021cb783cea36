#!/usr/bin/env bash
# Puts `thrum` where a person types it: builds the release binary and installs it with its man
# page and its bash, zsh and fish completions (made by the binary itself from the usage texts
# `thrum CMD --help` prints: `thrum dev man`, `thrum dev completions SHELL`), and the files
# `thrum sim --mcu` and `thrum firmware list | flash` need, so they work from any directory.
#
#   tools/install.sh [--prefix DIR] [--no-build]
#
#   --prefix DIR   where to install (default ~/.local): DIR/bin/thrum, DIR/share/man/man1/thrum.1,
#                  DIR/share/bash-completion/completions/thrum, DIR/share/zsh/site-functions/_thrum,
#                  DIR/share/fish/vendor_completions.d/thrum.fish, and DIR/share/thrum/hardware/:
#                  the AVR simulation harness, the simulated Uno's optiboot, the firmware images
#   --no-build     install the binary already built (THRUM_BINARY, default .build/release/thrum);
#                  the harness and the AVR images are still made (make: nothing when up to date),
#                  the Blue Pill's image is installed only if built
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="$HOME/.local"
build=1
while [ $# -gt 0 ]; do
    case $1 in
    --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --no-build) build=0; shift ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option '$1' (expected --prefix DIR or --no-build)" >&2; exit 2 ;;
    esac
done
binary=${THRUM_BINARY:-.build/release/thrum}
if [ "$build" = 1 ]; then
    tools/ensure-deps.sh
    swift build --product thrum -c release >&2
    binary=.build/release/thrum
fi
[ -x "$binary" ] || { echo "install.sh: no binary at $binary (build it, or drop --no-build)" >&2; exit 1; }

man_dir=$prefix/share/man/man1
bash_dir=$prefix/share/bash-completion/completions
zsh_dir=$prefix/share/zsh/site-functions
fish_dir=$prefix/share/fish/vendor_completions.d
mkdir -p "$prefix/bin" "$man_dir" "$bash_dir" "$zsh_dir" "$fish_dir"
install -m 755 "$binary" "$prefix/bin/thrum"
"$prefix/bin/thrum" dev man >"$man_dir/thrum.1"
"$prefix/bin/thrum" dev completions bash >"$bash_dir/thrum"
"$prefix/bin/thrum" dev completions zsh >"$zsh_dir/_thrum"
"$prefix/bin/thrum" dev completions fish >"$fish_dir/thrum.fish"

# What the binary finds beside itself (PREFIX/share/thrum, the checkout's layout): the harness
# (a separate program: simavr is GPL-3.0), the optiboot the simulated Uno and Nano run (built from
# Debian's source: hardware/avrsim/Makefile says why), the firmware images with their ELFs, and
# the firmware version header `thrum firmware flash` checks the device's answer against.
share=$prefix/share/thrum
rm -rf "$share/hardware"
hardware=""
if make -s -C hardware/avrsim all bootloaders >&2 && make -s -C hardware/firmware avr avr-library >/dev/null; then
    install -D -m 755 hardware/avrsim/build/avrsim "$share/hardware/avrsim/build/avrsim"
    install -D -m 644 hardware/avrsim/build/optiboot_atmega328.hex "$share/hardware/avrsim/build/optiboot_atmega328.hex"
    for image in avr avr-library; do
        install -D -m 644 -t "$share/hardware/firmware/build/$image" hardware/firmware/build/$image/thrum.elf \
            hardware/firmware/build/$image/thrum.hex
    done
    # The Blue Pill's image when its toolchain is here (with --no-build: when it is built).
    if [ "$build" = 1 ]; then make -s -C hardware/firmware cortex-m >/dev/null 2>&1 || true; fi
    if [ -f hardware/firmware/build/cortex-m/thrum.bin ]; then
        install -D -m 644 hardware/firmware/build/cortex-m/thrum.bin "$share/hardware/firmware/build/cortex-m/thrum.bin"
    fi
    install -D -m 644 hardware/firmware/include/thrum_fw.h "$share/hardware/firmware/include/thrum_fw.h"
    hardware=", and the AVR simulation and firmware images in $share"
else
    echo "install.sh: the AVR simulation harness or the firmware images did not build (tools/ensure-deps.sh" \
        "installs simavr, gcc-avr and arduino-core-avr): thrum sim --mcu and thrum firmware flash need a checkout" >&2
fi
echo "installed $("$prefix/bin/thrum" --version) in $prefix/bin, with thrum.1 and bash, zsh and fish completions$hardware"
case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "add it to your PATH: echo 'export PATH=\"$prefix/bin:\$PATH\"' >> ~/.bashrc, then open a new shell" ;;
esac
