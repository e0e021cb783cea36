/*
 * thrum_board_defaults.h — the one source of the board defaults every port starts with (until
 * CONFIGURE_DRIVER replaces them): the AVR and Cortex-M ports, the host-sim port, and through it
 * the Swift virtual device (VirtualDevice.BoardDefaults).
 *
 * The reference board carries a SEMCO 1030 LRA (205 Hz, 1.5 V rms, 3.0 V peak), the actuator of
 * TI's DRV2605L EVM. RATED_VOLTAGE, OD_CLAMP and DRIVE_TIME are the driver's reset values, which
 * TI tuned for it. OL_LRA_PERIOD is the actuator's: 1 / 205 Hz / 98.46 µs = 49.5 -> 50. The
 * driver's own reset value, 0x33 (51, i.e. 199 Hz), is an untuned guess and not used.
 */
#ifndef THRUM_BOARD_DEFAULTS_H
#define THRUM_BOARD_DEFAULTS_H

#define THRUM_BOARD_RATED_VOLTAGE 0x3Eu
#define THRUM_BOARD_OD_CLAMP 0x8Cu
#define THRUM_BOARD_DRIVE_TIME 19u
#define THRUM_BOARD_OL_LRA_PERIOD 50u

#endif /* THRUM_BOARD_DEFAULTS_H */
