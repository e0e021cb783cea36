/*
 * DRV2605L driver: probe, closed-loop LRA set-up in RTP mode, amplitude writes.
 * The register values and why they were chosen: hardware/drv2605/README.md.
 */
#include "drv2605l.h"
#include "thrum_fw.h"
#include "thrum_flash.h"

static int write_reg(drv2605l_t *drv, uint8_t reg, uint8_t value)
{
    const thrum_hal_t *hal = drv->hal;
    uint8_t buf[2];
    int err;

    buf[0] = reg;
    buf[1] = value;
    err = THRUM_HAL(hal, i2c_write)(THRUM_HAL_CTX(hal), DRV2605L_I2C_ADDR, buf, sizeof(buf));
    if (err != 0) {
        drv->failed_reg = reg;
        return err < 0 ? err : -DRV2605L_EIO;
    }
    return 0;
}

/* Write (register, value) pairs in order, stopping at the first failure. */
/* Registers some parts lack: CONTROL5 and OL_LRA_PERIOD exist on the L parts only (DEVICE_ID
 * 6, 7); the DRV2604/2604L (4, 6) have waveform RAM and no ROM library to select. */
static int reg_exists(const drv2605l_t *drv, uint8_t reg)
{
    if (reg == DRV2605L_REG_OL_LRA_PERIOD) {
        return drv->device_id >= DRV2605L_DEVICE_ID_DRV2604L;
    }
    if (reg == DRV2605L_REG_LIBRARY) {
        return DRV2605L_HAS_ROM(drv->device_id);
    }
    return 1;
}

/* Write `n` (register, value) pairs from a flash table; pair i whose bit is set in `dynamic`
 * takes its value from `values` instead (in order). Registers the part lacks are skipped. */
static int write_seq(drv2605l_t *drv, const uint8_t *pairs, uint8_t n, uint16_t dynamic, const uint8_t *values)
{
    uint8_t i;
    int err;

    for (i = 0; i < n; i++, pairs += 2, dynamic >>= 1) {
        uint8_t reg = THRUM_FLASH_U8(pairs);
        uint8_t value = (dynamic & 1u) != 0u ? *values++ : THRUM_FLASH_U8(pairs + 1);

        if (reg_exists(drv, reg) && (err = write_reg(drv, reg, value)) != 0) {
            return err;
        }
    }
    return 0;
}

static int read_reg(drv2605l_t *drv, uint8_t reg, uint8_t *value)
{
    const thrum_hal_t *hal = drv->hal;
    int err = THRUM_HAL(hal, i2c_read)(THRUM_HAL_CTX(hal), DRV2605L_I2C_ADDR, reg, value, 1);

    if (err != 0) {
        drv->failed_reg = reg;
        return err < 0 ? err : -DRV2605L_EIO;
    }
    return 0;
}

int drv2605l_probe(drv2605l_t *drv, const struct thrum_hal *hal)
{
    uint8_t status = 0;
    uint8_t id;
    int err;

    drv->hal = hal;
    drv->device_id = 0;
    drv->ready = 0;
    drv->failed_reg = 0;
    err = read_reg(drv, DRV2605L_REG_STATUS, &status);
    if (err != 0) {
        return -DRV2605L_ENODEV;
    }
    id = DRV2605L_FIELD_GET(DRV2605L_STATUS_DEVICE_ID, status);
    switch (id) {
    case DRV2605L_DEVICE_ID_DRV2605:
    case DRV2605L_DEVICE_ID_DRV2604:
    case DRV2605L_DEVICE_ID_DRV2604L:
    case DRV2605L_DEVICE_ID_DRV2605L:
        drv->device_id = id;
        return 0;
    default:
        /* something answered at 0x5A, but not a DRV260x: do not drive it */
        return -DRV2605L_ENODEV;
    }
}

/* A value too wide for its field is clamped to the field's maximum, never wrapped: 40 masked to
 * 5 bits would be 8, a half-period guess far from any LRA. */
static uint8_t clamp(uint8_t value, uint8_t max)
{
    return value > max ? max : value;
}

/* FEEDBACK_CONTROL for an LRA: the calibration inputs TI recommends (brake 3×, loop gain high)
 * and the BEMF_GAIN the last calibration found. */
static uint8_t feedback_control(const drv2605l_t *drv)
{
    return (uint8_t)(DRV2605L_FIELD_PREP(DRV2605L_FEEDBACK_N_ERM_LRA, DRV2605L_ACTUATOR_LRA) |
                     DRV2605L_FIELD_PREP(DRV2605L_FEEDBACK_FB_BRAKE_FACTOR, DRV2605L_BRAKE_FACTOR_3X) |
                     DRV2605L_FIELD_PREP(DRV2605L_FEEDBACK_LOOP_GAIN, DRV2605L_LOOP_GAIN_HIGH) |
                     DRV2605L_FIELD_PREP(DRV2605L_FEEDBACK_BEMF_GAIN, drv->bemf_gain));
}

int drv2605l_reset(drv2605l_t *drv)
{
    uint8_t mode = DRV2605L_MODE_DEV_RESET;
    uint8_t polls;
    int err;

    if ((err = write_reg(drv, DRV2605L_REG_MODE, DRV2605L_MODE_DEV_RESET)) != 0) return err;
    for (polls = 0; polls < DRV2605L_RESET_POLLS && (mode & DRV2605L_MODE_DEV_RESET) != 0u; polls++) {
        THRUM_HAL(drv->hal, delay_us)(THRUM_HAL_CTX(drv->hal), DRV2605L_RESET_POLL_US);
        if ((err = read_reg(drv, DRV2605L_REG_MODE, &mode)) != 0) return err;
    }
    if ((mode & DRV2605L_MODE_DEV_RESET) != 0u) {
        drv->failed_reg = DRV2605L_REG_MODE;
        return -DRV2605L_EIO;
    }
    return 0; /* the caller's BEMF_GAIN must be the reset value again (thrum_fw_init's) */
}

/* The set-up sequence. Stop first: if the driver is already in RTP mode it would keep driving
 * the old sample. STANDBY = 0 takes the driver out of its reset low-power state (a
 * read-modify-write of MODE[2:0] alone would keep standby and nothing would play). BIDIR_INPUT = 0:
 * with unsigned RTP every code from 0 to 255 drives (8-bit resolution). LRA_OPEN_LOOP = 0
 * (auto-resonance), ERM_OPEN_LOOP = 0. OL_LRA_PERIOD is only used if the loop ever falls back to
 * open loop, but never leave the reset guess. Each register is written whole (no
 * read-modify-write), so reset values and earlier configurations never leak in. The pairs marked
 * in CONFIGURE_DYNAMIC take their value from the configuration. */
static const uint8_t configure_seq[] THRUM_FLASH = {
    DRV2605L_REG_RTP_INPUT, 0,
    DRV2605L_REG_MODE, DRV2605L_FIELD_PREP(DRV2605L_MODE_MODE, DRV2605L_MODE_INTERNAL_TRIGGER),
    DRV2605L_REG_FEEDBACK_CONTROL, 0,   /* dynamic: BEMF_GAIN */
    DRV2605L_REG_RATED_VOLTAGE, 0,      /* dynamic */
    DRV2605L_REG_OD_CLAMP, 0,           /* dynamic */
    DRV2605L_REG_CONTROL1, 0,           /* dynamic: DRIVE_TIME */
    DRV2605L_REG_CONTROL2, 0,           /* dynamic: SAMPLE_TIME */
    DRV2605L_REG_CONTROL3, (uint8_t)(DRV2605L_FIELD_PREP(DRV2605L_CONTROL3_NG_THRESH, DRV2605L_NG_THRESH_4PCT) |
                                     DRV2605L_FIELD_PREP(DRV2605L_CONTROL3_DATA_FORMAT_RTP, DRV2605L_RTP_FORMAT_UNSIGNED)),
    DRV2605L_REG_OL_LRA_PERIOD, 0,      /* dynamic */
    DRV2605L_REG_LIBRARY, DRV2605L_FIELD_PREP(DRV2605L_LIBRARY_SEL, DRV2605L_LIBRARY_LRA),
    DRV2605L_REG_MODE, DRV2605L_FIELD_PREP(DRV2605L_MODE_MODE, DRV2605L_MODE_RTP),
    DRV2605L_REG_RTP_INPUT, 0,
};
#define CONFIGURE_DYNAMIC ((1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6) | (1u << 8))

int drv2605l_configure(drv2605l_t *drv, const drv2605l_config_t *config)
{
    /* Each step is written whole (no read-modify-write), so reset values and earlier
     * configurations never leak in. */
    uint8_t values[6];
    int err;

    drv->ready = 0;
    if (drv->device_id == 0u) {
        return -DRV2605L_ENODEV;
    }
    values[0] = feedback_control(drv);
    values[1] = config->rated_voltage;
    values[2] = config->od_clamp;
    values[3] = (uint8_t)(DRV2605L_CONTROL1_STARTUP_BOOST |
                          DRV2605L_FIELD_PREP(DRV2605L_CONTROL1_DRIVE_TIME, clamp(config->drive_time, DRV2605L_DRIVE_TIME_MAX)));
    /* BLANKING and IDISS at TI's calibration values; SAMPLE_TIME from the profile */
    values[4] = (uint8_t)(DRV2605L_CONTROL2_BRAKE_STABILIZER |
                          DRV2605L_FIELD_PREP(DRV2605L_CONTROL2_SAMPLE_TIME, clamp(config->sample_time, DRV2605L_SAMPLE_TIME_300US)) |
                          DRV2605L_FIELD_PREP(DRV2605L_CONTROL2_BLANKING_TIME, DRV2605L_BLANKING_TIME_TI_CAL) |
                          DRV2605L_FIELD_PREP(DRV2605L_CONTROL2_IDISS_TIME, DRV2605L_IDISS_TIME_TI_CAL));
    values[5] = DRV2605L_FIELD_PREP(DRV2605L_OL_LRA_PERIOD, clamp(config->ol_lra_period, DRV2605L_OL_LRA_PERIOD_MAX));
    if ((err = write_seq(drv, configure_seq, sizeof(configure_seq) / 2u, CONFIGURE_DYNAMIC, values)) != 0) return err;
    drv->ready = 1;
    return 0;
}

int drv2605l_set_amplitude(drv2605l_t *drv, uint8_t amplitude)
{
    /* 0 is written to any driver that answered, even one whose set-up failed: stopping must
     * always be tried; anything else needs a driver that is set up */
    if (amplitude == 0u ? drv->device_id == 0u : !drv->ready) {
        return -DRV2605L_ENODEV;
    }
    return write_reg(drv, DRV2605L_REG_RTP_INPUT, amplitude);
}

int drv2605l_read_status(drv2605l_t *drv, uint8_t *status)
{
    if (drv->device_id == 0u) {
        return -DRV2605L_ENODEV;
    }
    return read_reg(drv, DRV2605L_REG_STATUS, status);
}

int drv2605l_read(drv2605l_t *drv, uint8_t reg, uint8_t *value)
{
    if (drv->device_id == 0u) {
        return -DRV2605L_ENODEV;
    }
    return read_reg(drv, reg, value);
}

static uint8_t mode_value(uint8_t mode, int standby)
{
    return (uint8_t)(DRV2605L_FIELD_PREP(DRV2605L_MODE_MODE, mode) | (standby ? DRV2605L_MODE_STANDBY : 0u));
}

int drv2605l_set_standby(drv2605l_t *drv, int standby)
{
    int err;

    if (!drv->ready) {
        return -DRV2605L_ENODEV;
    }
    if (standby && (err = write_reg(drv, DRV2605L_REG_RTP_INPUT, 0)) != 0) return err;
    return write_reg(drv, DRV2605L_REG_MODE, mode_value(DRV2605L_MODE_RTP, standby));
}

/* Auto-calibration: ZC_DET_TIME 100 µs as TI recommends; SAMPLE_TIME, BLANKING and IDISS are
 * already at TI's calibration values from the set-up (CONTROL2), as are RATED_VOLTAGE, OD_CLAMP
 * and DRIVE_TIME. FEEDBACK_CONTROL (pair 2) is dynamic: BEMF_GAIN. */
static const uint8_t calibration_seq[] THRUM_FLASH = {
    DRV2605L_REG_RTP_INPUT, 0,
    DRV2605L_REG_MODE, DRV2605L_FIELD_PREP(DRV2605L_MODE_MODE, DRV2605L_MODE_AUTO_CALIBRATION),
    DRV2605L_REG_FEEDBACK_CONTROL, 0,
    DRV2605L_REG_CONTROL4, (uint8_t)(DRV2605L_FIELD_PREP(DRV2605L_CONTROL4_ZC_DET_TIME, DRV2605L_ZC_DET_TIME_100US) |
                                     DRV2605L_FIELD_PREP(DRV2605L_CONTROL4_AUTO_CAL_TIME, DRV2605L_AUTO_CAL_TIME_FIRMWARE)),
    DRV2605L_REG_GO, DRV2605L_GO_GO,
};

int drv2605l_calibration_start(drv2605l_t *drv)
{
    uint8_t feedback = feedback_control(drv);

    if (!drv->ready) {
        return -DRV2605L_ENODEV;
    }
    return write_seq(drv, calibration_seq, sizeof(calibration_seq) / 2u, 1u << 2, &feedback);
}

/* Read after a calibration, in this order: STATUS once (DIAG_RESULT clears on read), then the
 * results. */
static const uint8_t result_regs[] THRUM_FLASH = {
    DRV2605L_REG_STATUS, DRV2605L_REG_A_CAL_COMP, DRV2605L_REG_A_CAL_BEMF, DRV2605L_REG_FEEDBACK_CONTROL,
};

int drv2605l_calibration_finish(drv2605l_t *drv, drv2605l_calibration_t *out)
{
    uint8_t v[sizeof(result_regs)];
    uint8_t i;
    int err;

    out->failed = 1;
    for (i = 0; i < sizeof(result_regs); i++) {
        if ((err = read_reg(drv, THRUM_FLASH_U8(&result_regs[i]), &v[i])) != 0) return err;
    }
    out->failed = DRV2605L_FIELD_GET(DRV2605L_STATUS_DIAG_RESULT, v[0]);
    out->a_cal_comp = v[1];
    out->a_cal_bemf = v[2];
    out->bemf_gain = DRV2605L_FIELD_GET(DRV2605L_FEEDBACK_BEMF_GAIN, v[3]);
    if (!out->failed) {
        drv->bemf_gain = out->bemf_gain;
    }
    return drv2605l_set_standby(drv, 0);
}

/* Restore: the three words a calibration leaves (reference §2.4 outputs). FEEDBACK_CONTROL is
 * written whole, as the set-up writes it, with the restored BEMF_GAIN. */
static const uint8_t restore_regs[] THRUM_FLASH = {
    DRV2605L_REG_A_CAL_COMP, 0,
    DRV2605L_REG_A_CAL_BEMF, 0,
    DRV2605L_REG_FEEDBACK_CONTROL, 0,
};

int drv2605l_calibration_restore(drv2605l_t *drv, const drv2605l_calibration_t *words)
{
    uint8_t values[3];

    if (!drv->ready) {
        return -DRV2605L_ENODEV;
    }
    drv->bemf_gain = clamp(words->bemf_gain, DRV2605L_BEMF_GAIN_MAX); /* kept by later set-ups */
    values[0] = words->a_cal_comp;
    values[1] = words->a_cal_bemf;
    values[2] = feedback_control(drv);
    return write_seq(drv, restore_regs, sizeof(restore_regs) / 2u, 7u, values);
}

int drv2605l_rom_start(drv2605l_t *drv, uint8_t effect)
{
    const thrum_hal_t *hal = drv->hal;
    uint8_t seq[3];
    int err;

    if (!drv->ready) {
        return -DRV2605L_ENODEV;
    }
    if ((err = write_reg(drv, DRV2605L_REG_MODE, mode_value(DRV2605L_MODE_INTERNAL_TRIGGER, 0))) != 0) return err;
    /* WAV_FRM_SEQ1 = effect and WAV_FRM_SEQ2 = end, in one auto-increment write */
    seq[0] = DRV2605L_REG_WAV_FRM_SEQ1;
    seq[1] = DRV2605L_FIELD_PREP(DRV2605L_WAV_FRM_SEQ_ID, effect);
    seq[2] = DRV2605L_WAV_FRM_SEQ_END;
    err = THRUM_HAL(hal, i2c_write)(THRUM_HAL_CTX(hal), DRV2605L_I2C_ADDR, seq, sizeof(seq));
    if (err != 0) {
        drv->failed_reg = DRV2605L_REG_WAV_FRM_SEQ1;
        return err < 0 ? err : -DRV2605L_EIO;
    }
    return write_reg(drv, DRV2605L_REG_GO, DRV2605L_GO_GO);
}

/* Leave the sequencer: GO = 0 cancels a running effect, then RTP mode at amplitude 0. */
static const uint8_t rom_stop_seq[] THRUM_FLASH = {
    DRV2605L_REG_GO, 0,
    DRV2605L_REG_RTP_INPUT, 0,
    DRV2605L_REG_MODE, DRV2605L_FIELD_PREP(DRV2605L_MODE_MODE, DRV2605L_MODE_RTP),
};

int drv2605l_rom_stop(drv2605l_t *drv)
{
    if (drv->device_id == 0u) {
        return -DRV2605L_ENODEV;
    }
    return write_seq(drv, rom_stop_seq, sizeof(rom_stop_seq) / 2u, 0u, NULL);
}
