/*
 * A register-level DRV2605L for the simavr harness: what the firmware can observe over I²C.
 *
 * Deliberately small (hardware/avrsim/README.md explains why this is a second model next to the
 * Swift DRV2605LModel, and which test holds the two to the same register trace):
 *   - the DRV2605L reset image, STATUS reading DEVICE_ID 7 (0xE0), read-only STATUS/VBAT/LRA_PERIOD;
 *   - MODE: DEV_RESET restores every register (and self-clears), STANDBY, MODE[2:0];
 *   - GO in MODE 7 (auto-calibration) and MODE 6 (diagnostics): runs for the AUTO_CAL_TIME window
 *     (or 100 ms), cannot be cancelled, then self-clears; calibration writes A_CAL_COMP, A_CAL_BEMF
 *     and BEMF_GAIN from a fixed, plausible result and clears DIAG_RESULT;
 *   - GO in MODE 0: the ROM sequencer plays WAV_FRM_SEQ1..8 (same effect lengths as the Swift
 *     model's ROMWaveform table) and self-clears at the end; GO = 0 cancels;
 *   - RTP_INPUT is stored; LRA_PERIOD reads the actuator's resonance period while driving or
 *     calibrating (175 Hz, the Precision Microdrives C10-100 `thrum sim` also defaults to, unless
 *     the result says otherwise);
 *   - reading STATUS clears DIAG_RESULT, FB_STS and OVER_TEMP.
 * No actuator physics: the harness measures timing, the Swift model measures motion.
 * Times are µs of simulated time. Pure C99, no simavr dependency.
 */
#ifndef AVRSIM_DRV_MODEL_H
#define AVRSIM_DRV_MODEL_H

#include <stdint.h>

#define DRV_MODEL_ADDR 0x5Au
#define DRV_MODEL_REGS 0x23u

/* The result a passing calibration writes. */
typedef struct {
    uint8_t compensation; /* A_CAL_COMP */
    uint8_t back_emf;     /* A_CAL_BEMF */
    uint8_t bemf_gain;    /* FEEDBACK_CONTROL[1:0] */
    uint8_t lra_period;   /* LRA_PERIOD it measures (the actuator's resonance); 0: 175 Hz */
} drv_cal_result_t;

/* LRA_PERIOD code of a resonance of `hz`: 1 / hz / 98.46 µs, rounded (0 outside 1..255). */
uint8_t drv_model_lra_period_code(double hz);

typedef struct {
    uint8_t reg[DRV_MODEL_REGS];
    uint64_t routine_end;  /* calibration/diagnostics end, 0 = none */
    int routine_calibrates;
    uint64_t sequence_end; /* ROM sequence end, 0 = none */
    drv_cal_result_t cal;  /* what a calibration finds */
    uint64_t now;
} drv_model_t;

/** Power-up state (reset image, standby) with the calibration result `cal`. */
void drv_model_init(drv_model_t *m, drv_cal_result_t cal);

/** Moves the model to `t_us`: routines and sequences that ended by then self-clear GO. */
void drv_model_advance(drv_model_t *m, uint64_t t_us);

/** A register write completed at `t_us`. */
void drv_model_write(drv_model_t *m, uint8_t reg, uint8_t value, uint64_t t_us);

/** A register read at `t_us` (with STATUS's clear-on-read). */
uint8_t drv_model_read(drv_model_t *m, uint8_t reg, uint64_t t_us);

/** Length of ROM effect `id` in µs (0 for an id outside 1..123). */
uint32_t drv_model_rom_duration_us(uint8_t id);

#endif
