/*
 * DRV2605L driver: probe, closed-loop LRA set-up in RTP mode, amplitude writes.
 * The register values and why they were chosen: hardware/drv2605/README.md.
 */
#include "drv2605l.h"
#include "thrum_fw.h"

static int write_reg(drv2605l_t *drv, uint8_t reg, uint8_t value)
{
    const thrum_hal_t *hal = drv->hal;
    uint8_t buf[2];
    int err;

    buf[0] = reg;
    buf[1] = value;
    err = hal->i2c_write(hal->ctx, DRV2605L_I2C_ADDR, buf, sizeof(buf));
    if (err != 0) {
        drv->failed_reg = reg;
        return err < 0 ? err : -DRV2605L_EIO;
    }
    return 0;
}

/* Write (register, value) pairs in order, stopping at the first failure. */
static int write_seq(drv2605l_t *drv, const uint8_t *pairs, uint8_t len)
{
    uint8_t i;
    int err;

    for (i = 0; i + 1u < len; i = (uint8_t)(i + 2u)) {
        if ((err = write_reg(drv, pairs[i], pairs[i + 1u])) != 0) {
            return err;
        }
    }
    return 0;
}

static int read_reg(drv2605l_t *drv, uint8_t reg, uint8_t *value)
{
    const thrum_hal_t *hal = drv->hal;
    int err = hal->i2c_read(hal->ctx, DRV2605L_I2C_ADDR, reg, value, 1);

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

int drv2605l_configure(drv2605l_t *drv, const drv2605l_config_t *config)
{
    /* Each step is written whole (no read-modify-write), so reset values and earlier
     * configurations never leak in. */
    const uint8_t feedback = feedback_control(drv);
    const uint8_t control1 = (uint8_t)(DRV2605L_CONTROL1_STARTUP_BOOST |
                                       DRV2605L_FIELD_PREP(DRV2605L_CONTROL1_DRIVE_TIME, clamp(config->drive_time, DRV2605L_DRIVE_TIME_MAX)));
    /* BIDIR_INPUT = 0: with unsigned RTP every code from 0 to 255 drives (8-bit resolution). */
    const uint8_t control2 = (uint8_t)(DRV2605L_CONTROL2_BRAKE_STABILIZER |
                                       DRV2605L_FIELD_PREP(DRV2605L_CONTROL2_SAMPLE_TIME, DRV2605L_SAMPLE_TIME_300US) |
                                       DRV2605L_FIELD_PREP(DRV2605L_CONTROL2_BLANKING_TIME, DRV2605L_BLANKING_TIME_TI_CAL) |
                                       DRV2605L_FIELD_PREP(DRV2605L_CONTROL2_IDISS_TIME, DRV2605L_IDISS_TIME_TI_CAL));
    /* LRA_OPEN_LOOP = 0 (auto-resonance), ERM_OPEN_LOOP = 0, unsigned RTP. */
    const uint8_t control3 = (uint8_t)(DRV2605L_FIELD_PREP(DRV2605L_CONTROL3_NG_THRESH, DRV2605L_NG_THRESH_4PCT) |
                                       DRV2605L_FIELD_PREP(DRV2605L_CONTROL3_DATA_FORMAT_RTP, DRV2605L_RTP_FORMAT_UNSIGNED));
    const uint8_t library = DRV2605L_FIELD_PREP(DRV2605L_LIBRARY_SEL, DRV2605L_LIBRARY_LRA);
    const uint8_t mode_ready = DRV2605L_FIELD_PREP(DRV2605L_MODE_MODE, DRV2605L_MODE_INTERNAL_TRIGGER);
    const uint8_t mode_rtp = DRV2605L_FIELD_PREP(DRV2605L_MODE_MODE, DRV2605L_MODE_RTP);
    /* Stop first: if the driver is already in RTP mode it would keep driving the old sample.
     * STANDBY = 0 takes the driver out of its reset low-power state (a read-modify-write of
     * MODE[2:0] alone would keep standby and nothing would play). OL_LRA_PERIOD is only used if
     * the loop ever falls back to open loop, but never leave the reset guess. */
    const uint8_t seq[] = {
        DRV2605L_REG_RTP_INPUT, 0,
        DRV2605L_REG_MODE, mode_ready,
        DRV2605L_REG_FEEDBACK_CONTROL, feedback,
        DRV2605L_REG_RATED_VOLTAGE, config->rated_voltage,
        DRV2605L_REG_OD_CLAMP, config->od_clamp,
        DRV2605L_REG_CONTROL1, control1,
        DRV2605L_REG_CONTROL2, control2,
        DRV2605L_REG_CONTROL3, control3,
        DRV2605L_REG_OL_LRA_PERIOD, DRV2605L_FIELD_PREP(DRV2605L_OL_LRA_PERIOD, clamp(config->ol_lra_period, DRV2605L_OL_LRA_PERIOD_MAX)),
        DRV2605L_REG_LIBRARY, library,
        DRV2605L_REG_MODE, mode_rtp,
        DRV2605L_REG_RTP_INPUT, 0,
    };
    int err;

    drv->ready = 0;
    if (drv->device_id == 0u) {
        return -DRV2605L_ENODEV;
    }
    if ((err = write_seq(drv, seq, sizeof(seq))) != 0) return err;
    drv->ready = 1;
    return 0;
}

int drv2605l_set_amplitude(drv2605l_t *drv, uint8_t amplitude)
{
    if (!drv->ready) {
        return -DRV2605L_ENODEV;
    }
    return write_reg(drv, DRV2605L_REG_RTP_INPUT, amplitude);
}

int drv2605l_stop(drv2605l_t *drv)
{
    if (drv->device_id == 0u) {
        return -DRV2605L_ENODEV;
    }
    return write_reg(drv, DRV2605L_REG_RTP_INPUT, 0);
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

int drv2605l_calibration_start(drv2605l_t *drv)
{
    /* ZC_DET_TIME 100 µs as TI recommends; SAMPLE_TIME, BLANKING and IDISS are already at TI's
     * calibration values from drv2605l_configure (CONTROL2), as are RATED_VOLTAGE, OD_CLAMP and
     * DRIVE_TIME. */
    const uint8_t control4 = (uint8_t)(DRV2605L_FIELD_PREP(DRV2605L_CONTROL4_ZC_DET_TIME, DRV2605L_ZC_DET_TIME_100US) |
                                       DRV2605L_FIELD_PREP(DRV2605L_CONTROL4_AUTO_CAL_TIME, DRV2605L_AUTO_CAL_TIME_FIRMWARE));
    const uint8_t seq[] = {
        DRV2605L_REG_RTP_INPUT, 0,
        DRV2605L_REG_MODE, mode_value(DRV2605L_MODE_AUTO_CALIBRATION, 0),
        DRV2605L_REG_FEEDBACK_CONTROL, feedback_control(drv),
        DRV2605L_REG_CONTROL4, control4,
        DRV2605L_REG_GO, DRV2605L_GO_GO,
    };

    if (!drv->ready) {
        return -DRV2605L_ENODEV;
    }
    return write_seq(drv, seq, sizeof(seq));
}

int drv2605l_calibration_finish(drv2605l_t *drv, drv2605l_calibration_t *out)
{
    uint8_t status = 0;
    uint8_t feedback = 0;
    int err;

    out->failed = 1;
    if ((err = drv2605l_read(drv, DRV2605L_REG_STATUS, &status)) != 0) return err;
    if ((err = read_reg(drv, DRV2605L_REG_A_CAL_COMP, &out->a_cal_comp)) != 0) return err;
    if ((err = read_reg(drv, DRV2605L_REG_A_CAL_BEMF, &out->a_cal_bemf)) != 0) return err;
    if ((err = read_reg(drv, DRV2605L_REG_FEEDBACK_CONTROL, &feedback)) != 0) return err;
    out->failed = DRV2605L_FIELD_GET(DRV2605L_STATUS_DIAG_RESULT, status);
    out->bemf_gain = DRV2605L_FIELD_GET(DRV2605L_FEEDBACK_BEMF_GAIN, feedback);
    if (!out->failed) {
        drv->bemf_gain = out->bemf_gain;
    }
    return drv2605l_set_standby(drv, 0);
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
    err = hal->i2c_write(hal->ctx, DRV2605L_I2C_ADDR, seq, sizeof(seq));
    if (err != 0) {
        drv->failed_reg = DRV2605L_REG_WAV_FRM_SEQ1;
        return err < 0 ? err : -DRV2605L_EIO;
    }
    return write_reg(drv, DRV2605L_REG_GO, DRV2605L_GO_GO);
}

int drv2605l_rom_stop(drv2605l_t *drv)
{
    const uint8_t seq[] = {
        DRV2605L_REG_GO, 0,
        DRV2605L_REG_RTP_INPUT, 0,
        DRV2605L_REG_MODE, mode_value(DRV2605L_MODE_RTP, 0),
    };

    if (drv->device_id == 0u) {
        return -DRV2605L_ENODEV;
    }
    return write_seq(drv, seq, sizeof(seq));
}
