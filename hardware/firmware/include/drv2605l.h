/*
 * drv2605l.h — TI DRV2605L haptic driver: register map, fields and a small driver API.
 *
 * Register and field names follow the datasheet (SLOS854D); hardware/drv2605/README.md explains
 * the values Thrum writes. The driver reaches the bus only through the Thrum HAL and returns 0 or
 * a negative errno from every call, checked by the caller at once.
 */
#ifndef DRV2605L_H
#define DRV2605L_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct thrum_hal;

/** Fixed 7-bit I2C address: one driver per bus. */
#define DRV2605L_I2C_ADDR 0x5Au

/** Power-up (or EN high) to first I2C access. */
#define DRV2605L_POWER_UP_DELAY_US 250u

/* Field helpers: `mask` is a contiguous constant bit mask. Multiplying by the mask's lowest set
 * bit shifts without needing a separate shift constant (FIELD_PREP / FIELD_GET style). */
#define DRV2605L_FIELD_LSB(mask) ((mask) & (~(mask) + 1u))
#define DRV2605L_FIELD_PREP(mask, val) ((uint8_t)(((uint32_t)(val) * DRV2605L_FIELD_LSB(mask)) & (mask)))
#define DRV2605L_FIELD_GET(mask, reg) ((uint8_t)(((uint32_t)(reg) & (mask)) / DRV2605L_FIELD_LSB(mask)))

/* ---- Registers ----------------------------------------------------------------------------- */
#define DRV2605L_REG_STATUS 0x00u
#define DRV2605L_REG_MODE 0x01u
#define DRV2605L_REG_RTP_INPUT 0x02u
#define DRV2605L_REG_LIBRARY 0x03u
#define DRV2605L_REG_WAV_FRM_SEQ1 0x04u
#define DRV2605L_REG_GO 0x0Cu
#define DRV2605L_REG_ODT 0x0Du
#define DRV2605L_REG_SPT 0x0Eu
#define DRV2605L_REG_SNT 0x0Fu
#define DRV2605L_REG_BRT 0x10u
#define DRV2605L_REG_ATH_CONTROL 0x11u
#define DRV2605L_REG_ATH_MIN_INPUT 0x12u
#define DRV2605L_REG_ATH_MAX_INPUT 0x13u
#define DRV2605L_REG_ATH_MIN_DRIVE 0x14u
#define DRV2605L_REG_ATH_MAX_DRIVE 0x15u
#define DRV2605L_REG_RATED_VOLTAGE 0x16u
#define DRV2605L_REG_OD_CLAMP 0x17u
#define DRV2605L_REG_A_CAL_COMP 0x18u
#define DRV2605L_REG_A_CAL_BEMF 0x19u
#define DRV2605L_REG_FEEDBACK_CONTROL 0x1Au
#define DRV2605L_REG_CONTROL1 0x1Bu
#define DRV2605L_REG_CONTROL2 0x1Cu
#define DRV2605L_REG_CONTROL3 0x1Du
#define DRV2605L_REG_CONTROL4 0x1Eu
#define DRV2605L_REG_CONTROL5 0x1Fu
#define DRV2605L_REG_OL_LRA_PERIOD 0x20u
#define DRV2605L_REG_VBAT 0x21u
#define DRV2605L_REG_LRA_PERIOD 0x22u

/* ---- STATUS (0x00, read-only; flags clear on read) ------------------------------------------ */
#define DRV2605L_STATUS_DEVICE_ID 0xE0u
#define DRV2605L_STATUS_DIAG_RESULT 0x08u
#define DRV2605L_STATUS_FB_STS 0x04u
#define DRV2605L_STATUS_OVER_TEMP 0x02u
#define DRV2605L_STATUS_OC_DETECT 0x01u

/** DEVICE_ID values (STATUS[7:5]). */
#define DRV2605L_DEVICE_ID_DRV2605 3u
#define DRV2605L_DEVICE_ID_DRV2604 4u
#define DRV2605L_DEVICE_ID_DRV2604L 6u
#define DRV2605L_DEVICE_ID_DRV2605L 7u

/* ---- MODE (0x01) ----------------------------------------------------------------------------- */
#define DRV2605L_MODE_DEV_RESET 0x80u
#define DRV2605L_MODE_STANDBY 0x40u
#define DRV2605L_MODE_MODE 0x07u
#define DRV2605L_MODE_INTERNAL_TRIGGER 0u
#define DRV2605L_MODE_EXTERNAL_EDGE 1u
#define DRV2605L_MODE_EXTERNAL_LEVEL 2u
#define DRV2605L_MODE_PWM_ANALOG 3u
#define DRV2605L_MODE_AUDIO_TO_VIBE 4u
#define DRV2605L_MODE_RTP 5u
#define DRV2605L_MODE_DIAGNOSTICS 6u
#define DRV2605L_MODE_AUTO_CALIBRATION 7u

/* ---- LIBRARY (0x03) -------------------------------------------------------------------------- */
#define DRV2605L_LIBRARY_HI_Z 0x10u
#define DRV2605L_LIBRARY_SEL 0x07u
#define DRV2605L_LIBRARY_EMPTY 0u
#define DRV2605L_LIBRARY_LRA 6u

/* ---- FEEDBACK_CONTROL (0x1A) ----------------------------------------------------------------- */
#define DRV2605L_FEEDBACK_N_ERM_LRA 0x80u
#define DRV2605L_FEEDBACK_FB_BRAKE_FACTOR 0x70u
#define DRV2605L_FEEDBACK_LOOP_GAIN 0x0Cu
#define DRV2605L_FEEDBACK_BEMF_GAIN 0x03u
#define DRV2605L_ACTUATOR_LRA 1u
#define DRV2605L_BRAKE_FACTOR_3X 2u
#define DRV2605L_LOOP_GAIN_HIGH 2u
#define DRV2605L_BEMF_GAIN_LRA_15X 2u
#define DRV2605L_BEMF_GAIN_MAX 3u /* the field is 2 bits wide */

/* ---- CONTROL1 (0x1B) ------------------------------------------------------------------------- */
#define DRV2605L_CONTROL1_STARTUP_BOOST 0x80u
#define DRV2605L_CONTROL1_AC_COUPLE 0x20u
#define DRV2605L_CONTROL1_DRIVE_TIME 0x1Fu
#define DRV2605L_DRIVE_TIME_MAX 31u

/* ---- CONTROL2 (0x1C) ------------------------------------------------------------------------- */
#define DRV2605L_CONTROL2_BIDIR_INPUT 0x80u
#define DRV2605L_CONTROL2_BRAKE_STABILIZER 0x40u
#define DRV2605L_CONTROL2_SAMPLE_TIME 0x30u
#define DRV2605L_CONTROL2_BLANKING_TIME 0x0Cu
#define DRV2605L_CONTROL2_IDISS_TIME 0x03u
#define DRV2605L_SAMPLE_TIME_300US 3u
#define DRV2605L_BLANKING_TIME_TI_CAL 1u
#define DRV2605L_IDISS_TIME_TI_CAL 1u

/* ---- CONTROL3 (0x1D) ------------------------------------------------------------------------- */
#define DRV2605L_CONTROL3_NG_THRESH 0xC0u
#define DRV2605L_CONTROL3_ERM_OPEN_LOOP 0x20u
#define DRV2605L_CONTROL3_SUPPLY_COMP_DIS 0x10u
#define DRV2605L_CONTROL3_DATA_FORMAT_RTP 0x08u
#define DRV2605L_CONTROL3_LRA_DRIVE_MODE 0x04u
#define DRV2605L_CONTROL3_N_PWM_ANALOG 0x02u
#define DRV2605L_CONTROL3_LRA_OPEN_LOOP 0x01u
#define DRV2605L_NG_THRESH_4PCT 2u
#define DRV2605L_RTP_FORMAT_UNSIGNED 1u

/* ---- CONTROL4 (0x1E) / CONTROL5 (0x1F) ------------------------------------------------------- */
#define DRV2605L_CONTROL4_ZC_DET_TIME 0xC0u
#define DRV2605L_CONTROL4_AUTO_CAL_TIME 0x30u
#define DRV2605L_CONTROL4_OTP_STATUS 0x04u
#define DRV2605L_CONTROL4_OTP_PROGRAM 0x01u
#define DRV2605L_CONTROL5_AUTO_OL_CNT 0xC0u
#define DRV2605L_CONTROL5_LRA_AUTO_OPEN_LOOP 0x20u
#define DRV2605L_CONTROL5_PLAYBACK_INTERVAL 0x10u
#define DRV2605L_CONTROL5_BLANKING_TIME_MSB 0x0Cu
#define DRV2605L_CONTROL5_IDISS_TIME_MSB 0x03u
#define DRV2605L_ZC_DET_TIME_100US 0u
#define DRV2605L_AUTO_CAL_TIME_150_350MS 0u
#define DRV2605L_AUTO_CAL_TIME_250_450MS 1u
#define DRV2605L_AUTO_CAL_TIME_500_700MS 2u
#define DRV2605L_AUTO_CAL_TIME_1000_1200MS 3u

/* ---- WAV_FRM_SEQ1..8 (0x04..0x0B) / GO (0x0C) ------------------------------------------------ */
#define DRV2605L_WAV_FRM_SEQ_WAIT 0x80u
#define DRV2605L_WAV_FRM_SEQ_ID 0x7Fu
#define DRV2605L_WAV_FRM_SEQ_END 0u
#define DRV2605L_GO_GO 0x01u

/* ---- OL_LRA_PERIOD (0x20) -------------------------------------------------------------------- */
#define DRV2605L_OL_LRA_PERIOD 0x7Fu
#define DRV2605L_OL_LRA_PERIOD_MAX 127u

/* ---- LRA_PERIOD (0x22, read-only): measured period in 98.46 µs steps, valid while driving --- */
#define DRV2605L_LRA_PERIOD 0xFFu

/* ---- Timing the firmware assumes ------------------------------------------------------------- */
/** STANDBY = 0 to the first drive: the datasheet only promises "fast start-up"; the reference
 *  models it as < 1 ms. The firmware treats the driver as ready this long after leaving standby. */
#define DRV2605L_STANDBY_EXIT_US 500u
/** Calibration window used by the firmware (CONTROL4 AUTO_CAL_TIME; TI recommends 3 for the
 *  best result, 1 keeps prepare() short). */
#define DRV2605L_AUTO_CAL_TIME_FIRMWARE DRV2605L_AUTO_CAL_TIME_250_450MS
/** GO is polled this often while calibration runs (Linux polls every 15 ms). */
#define DRV2605L_CALIBRATION_POLL_US 10000u
/** A calibration whose GO has not cleared after this long is reported as failed. */
#define DRV2605L_CALIBRATION_TIMEOUT_US 3000000u
/* After a failed GO read or the timeout, GO is still polled (MODE must not change while GO = 1)
 * for at most this much longer; a driver whose GO never clears is then set up regardless. */
#define DRV2605L_CALIBRATION_DRAIN_US 1000000u
/* DEV_RESET: MODE is read this often until bit 7 clears, at most this many times. */
#define DRV2605L_RESET_POLL_US 1000u
#define DRV2605L_RESET_POLLS 20u

/* ---- Driver API ------------------------------------------------------------------------------ */

/** Actuator-specific values (CONFIGURE_DRIVER, or the board defaults). */
typedef struct drv2605l_config {
    uint8_t rated_voltage; /**< RATED_VOLTAGE: closed-loop full scale (§2.1 of the notes) */
    uint8_t od_clamp;      /**< OD_CLAMP: peak limit during overdrive */
    uint8_t drive_time;    /**< CONTROL1 DRIVE_TIME, 0..31 (larger is clamped): initial half-period guess */
    uint8_t ol_lra_period; /**< OL_LRA_PERIOD, 0..127 (larger is clamped): open-loop fallback period */
    uint8_t sample_time;   /**< CONTROL2 SAMPLE_TIME code, 0..3 = 150..300 µs (larger is clamped) */
} drv2605l_config_t;

/** Mutable driver state. */
typedef struct drv2605l {
    const struct thrum_hal *hal;
    uint8_t device_id;  /**< STATUS DEVICE_ID, 0 when nothing answered */
    uint8_t ready;      /**< 1 once configured for RTP; 0 after any set-up failure */
    uint8_t failed_reg; /**< register of the last failed bus access */
    uint8_t bemf_gain;  /**< FEEDBACK_CONTROL BEMF_GAIN to write: the last calibration's output */
} drv2605l_t;

/** What an auto-calibration run reported (reference §2.4 outputs). */
typedef struct drv2605l_calibration {
    uint8_t failed;     /**< STATUS DIAG_RESULT: 0 = converged, 1 = failed */
    uint8_t a_cal_comp; /**< A_CAL_COMP */
    uint8_t a_cal_bemf; /**< A_CAL_BEMF */
    uint8_t bemf_gain;  /**< FEEDBACK_CONTROL BEMF_GAIN */
} drv2605l_calibration_t;

/** Error codes (negative errno values, spelled out because freestanding targets lack errno.h). */
#define DRV2605L_EIO 5
#define DRV2605L_ENODEV 19

/** Read STATUS and record DEVICE_ID. -DRV2605L_ENODEV when nothing (or no DRV260x) answers. */
int drv2605l_probe(drv2605l_t *drv, const struct thrum_hal *hal);

/** Set the driver up for a closed-loop LRA in unsigned, unidirectional RTP mode at amplitude 0.
 *  Stops output first. On failure `failed_reg` names the register and the driver is not ready. */
int drv2605l_configure(drv2605l_t *drv, const drv2605l_config_t *config);

/** DEV_RESET (MODE bit 7): every register back to its reset value, as a power cycle; polls MODE
 *  every DRV2605L_RESET_POLL_US until the bit clears (at most DRV2605L_RESET_POLLS times).
 *  0, or a negative errno (-DRV2605L_EIO when it never cleared, failed_reg = MODE). */
int drv2605l_reset(drv2605l_t *drv);

/** 1 when the part has the ROM effect library (DRV2605, DRV2605L); the DRV2604/2604L have RAM. */
#define DRV2605L_HAS_ROM(device_id) (((device_id) & 1u) != 0u) /* 3 and 7; 4 and 6 are even */

/** Write RTP_INPUT: 0 = no drive (the closed loop brakes the actuator; tried on any driver that
 *  answered, even one whose set-up failed), 255 = rated voltage (needs a driver that is set up). */
int drv2605l_set_amplitude(drv2605l_t *drv, uint8_t amplitude);



/** Read STATUS (its flags clear on read) into `*status`. */
int drv2605l_read_status(drv2605l_t *drv, uint8_t *status);

/** Read one register. */
int drv2605l_read(drv2605l_t *drv, uint8_t reg, uint8_t *value);

/** Enter (1) or leave (0) software standby, keeping RTP mode selected. Entering writes
 *  RTP_INPUT = 0 first. */
int drv2605l_set_standby(drv2605l_t *drv, int standby);

/** Start auto-calibration without waiting: RTP_INPUT = 0, MODE = 7 (leaves standby), the
 *  calibration inputs of reference §2.4 that configure did not write (FEEDBACK_CONTROL, CONTROL4),
 *  then GO. Poll GO with drv2605l_read(DRV2605L_REG_GO) until it reads 0. */
int drv2605l_calibration_start(drv2605l_t *drv);

/** After GO cleared: read STATUS once (DIAG_RESULT clears on read), then A_CAL_COMP, A_CAL_BEMF
 *  and BEMF_GAIN (kept for later set-ups), and return to RTP mode at amplitude 0. */
int drv2605l_calibration_finish(drv2605l_t *drv, drv2605l_calibration_t *out);

/** Write a kept calibration result back (PROTOCOL.md §3.5): A_CAL_COMP, A_CAL_BEMF, then
 *  FEEDBACK_CONTROL whole with BEMF_GAIN = `words->bemf_gain` (clamped to 3), which later set-ups
 *  keep. `words->failed` is not used. Needs a set-up driver; on failure `failed_reg` names the
 *  register. */
int drv2605l_calibration_restore(drv2605l_t *drv, const drv2605l_calibration_t *words);

/** Play ROM effect `effect` (1..123) through the sequencer: MODE = internal trigger,
 *  WAV_FRM_SEQ1 = effect, WAV_FRM_SEQ2 = 0 (end), GO = 1. GO self-clears when it ends. */
int drv2605l_rom_start(drv2605l_t *drv, uint8_t effect);

/** End ROM playback: GO = 0 (cancels a running sequence), back to RTP mode at amplitude 0. */
int drv2605l_rom_stop(drv2605l_t *drv);

#ifdef __cplusplus
}
#endif

#endif /* DRV2605L_H */
