/* See drv_model.h. Register facts: hardware/drv2605/README.md and the DRV2605L datasheet (SLOS854D). */
#include "drv_model.h"

#include <string.h>

enum {
    R_STATUS = 0x00, R_MODE = 0x01, R_RTP = 0x02, R_LIBRARY = 0x03, R_SEQ1 = 0x04, R_GO = 0x0C,
    R_A_CAL_COMP = 0x18, R_A_CAL_BEMF = 0x19, R_FEEDBACK = 0x1A, R_CONTROL4 = 0x1E,
    R_VBAT = 0x21, R_LRA_PERIOD = 0x22,
};

#define MODE_DEV_RESET 0x80u
#define MODE_STANDBY 0x40u
#define STATUS_DIAG_RESULT 0x08u
#define STATUS_CLEAR_ON_READ 0x0Eu /* DIAG_RESULT, FB_STS, OVER_TEMP */
#define CONTROL4_OTP_STATUS 0x04u
#define DIAGNOSTICS_US 100000u
/* LRA_PERIOD code of a 175 Hz resonance (the C10-100's): 1 / 175 Hz / 98.46 µs = 58.04 -> 0x3A */
#define LRA_PERIOD_175HZ 0x3Au
/* VBAT code of a 5.0 V supply: 5.0 × 255 / 5.6 */
#define VBAT_5V 0xE4u

/* DRV2605L reset values (reference §1.1, the "Reset (L)" column). */
static const uint8_t reset_image[DRV_MODEL_REGS] = {
    0xE0, 0x40, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, /* 0x00..0x07 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 0x08..0x0F */
    0x00, 0x05, 0x19, 0xFF, 0x19, 0xFF, 0x3E, 0x8C, /* 0x10..0x17 */
    0x0C, 0x6C, 0x36, 0x93, 0xF5, 0xA0, 0x20, 0x80, /* 0x18..0x1F */
    0x33, 0x00, 0x00,                               /* 0x20..0x22 */
};

/* AUTO_CAL_TIME code -> window in µs; the same figures as the Swift model's
 * DRV2605LFormulas.autoCalibrationDuration (150/250/500/1000 ms minimum plus convergence). */
static const uint32_t auto_cal_us[4] = {250000u, 350000u, 600000u, 1100000u};

/* ROM effect lengths in ms, effects 1..123: the Swift model's ROMWaveform table (TI does not
 * publish the ROM; both models use Thrum's approximations). `avrsim --rom-durations` prints them
 * and an XCTest compares the two tables. */
static const uint16_t rom_ms[123] = {
    20, 20, 20, 12, 12, 12, 40, 40, 40, 80, 80, 140,
    200, 300, 750, 1000, 20, 20, 20, 20, 15, 15, 15, 10,
    10, 10, 80, 80, 80, 80, 75, 75, 75, 70, 70, 70,
    140, 140, 140, 140, 135, 135, 135, 130, 130, 130, 250, 250,
    250, 250, 250, 420, 420, 400, 400, 380, 380, 15, 15, 15,
    15, 15, 15, 250, 250, 250, 250, 250, 250, 1000, 1000, 500,
    500, 250, 250, 1000, 1000, 500, 500, 250, 250, 1000, 1000, 500,
    500, 250, 250, 1000, 1000, 500, 500, 250, 250, 1000, 1000, 500,
    500, 250, 250, 1000, 1000, 500, 500, 250, 250, 1000, 1000, 500,
    500, 250, 250, 1000, 1000, 500, 500, 250, 250, 5000, 500, 500,
    500, 500, 500,
};

uint8_t drv_model_lra_period_code(double hz)
{
    double code = hz > 0.0 ? 1e6 / (hz * 98.46) + 0.5 : 0.0;
    return (code >= 1.0 && code < 256.0) ? (uint8_t)code : 0u;
}

uint32_t drv_model_rom_duration_us(uint8_t id)
{
    return (id >= 1u && id <= 123u) ? (uint32_t)rom_ms[id - 1u] * 1000u : 0u;
}

void drv_model_init(drv_model_t *m, drv_cal_result_t cal)
{
    memset(m, 0, sizeof(*m));
    memcpy(m->reg, reset_image, sizeof(reset_image));
    m->cal = cal;
}

static int standby(const drv_model_t *m) { return (m->reg[R_MODE] & MODE_STANDBY) != 0u; }
static uint8_t mode(const drv_model_t *m) { return (uint8_t)(m->reg[R_MODE] & 7u); }

static void finish_routine(drv_model_t *m)
{
    m->routine_end = 0;
    m->reg[R_STATUS] &= (uint8_t)~STATUS_DIAG_RESULT; /* passed */
    if (m->routine_calibrates) {
        m->reg[R_A_CAL_COMP] = m->cal.compensation;
        m->reg[R_A_CAL_BEMF] = m->cal.back_emf;
        m->reg[R_FEEDBACK] = (uint8_t)((m->reg[R_FEEDBACK] & ~3u) | (m->cal.bemf_gain & 3u));
    }
    m->reg[R_GO] = 0;
}

void drv_model_advance(drv_model_t *m, uint64_t t_us)
{
    if (t_us > m->now) {
        m->now = t_us;
    }
    if (m->routine_end != 0u && m->now >= m->routine_end) {
        finish_routine(m);
    }
    if (m->sequence_end != 0u && m->now >= m->sequence_end) {
        m->sequence_end = 0;
        m->reg[R_GO] = 0;
    }
}

/* The sequence WAV_FRM_SEQ1..8 describes: effects and WAIT slots until the first 0. */
static uint64_t sequence_length_us(const drv_model_t *m)
{
    uint64_t total = 0;
    unsigned i;

    for (i = 0; i < 8u; i++) {
        uint8_t v = m->reg[R_SEQ1 + i];
        if (v == 0u) {
            break;
        }
        total += (v & 0x80u) ? (uint64_t)(v & 0x7Fu) * 10000u : drv_model_rom_duration_us((uint8_t)(v & 0x7Fu));
    }
    return total;
}

static void write_go(drv_model_t *m, uint8_t value)
{
    if (m->routine_end != 0u) {
        return; /* calibration and diagnostics cannot be cancelled */
    }
    m->reg[R_GO] = (uint8_t)(value & 1u);
    if (standby(m)) {
        return;
    }
    if ((value & 1u) != 0u && (mode(m) == 7u || mode(m) == 6u)) {
        m->routine_calibrates = mode(m) == 7u;
        m->routine_end = m->now + (m->routine_calibrates ? auto_cal_us[(m->reg[R_CONTROL4] >> 4) & 3u] : DIAGNOSTICS_US);
    } else if (mode(m) == 0u) {
        if ((value & 1u) != 0u) {
            uint64_t length = sequence_length_us(m);
            m->sequence_end = m->now + (length > 0u ? length : 1u);
        } else {
            m->sequence_end = 0; /* GO = 0 cancels the sequence */
        }
    }
}

void drv_model_write(drv_model_t *m, uint8_t reg, uint8_t value, uint64_t t_us)
{
    drv_model_advance(m, t_us);
    if (reg >= DRV_MODEL_REGS) {
        return;
    }
    switch (reg) {
    case R_STATUS:
    case R_VBAT:
    case R_LRA_PERIOD:
        return; /* read-only */
    case R_MODE:
        if ((value & MODE_DEV_RESET) != 0u) { /* like a power cycle; the bit self-clears */
            drv_cal_result_t cal = m->cal;
            uint64_t now = m->now;
            drv_model_init(m, cal);
            m->now = now;
            return;
        }
        m->reg[R_MODE] = value;
        if (m->sequence_end != 0u && (mode(m) != 0u || standby(m))) {
            m->sequence_end = 0;
            m->reg[R_GO] = 0;
        }
        return;
    case R_GO:
        write_go(m, value);
        return;
    case R_CONTROL4:
        m->reg[reg] = (uint8_t)((value & ~CONTROL4_OTP_STATUS) | (m->reg[reg] & CONTROL4_OTP_STATUS));
        return;
    default:
        m->reg[reg] = value;
        return;
    }
}

uint8_t drv_model_read(drv_model_t *m, uint8_t reg, uint64_t t_us)
{
    uint8_t value;
    int driving;

    drv_model_advance(m, t_us);
    if (reg >= DRV_MODEL_REGS) {
        return 0;
    }
    driving = !standby(m) && (m->routine_end != 0u || m->sequence_end != 0u || (mode(m) == 5u && m->reg[R_RTP] != 0u));
    if (driving) { /* VBAT and LRA_PERIOD update only while the driver drives */
        m->reg[R_VBAT] = VBAT_5V;
        m->reg[R_LRA_PERIOD] = m->cal.lra_period != 0u ? m->cal.lra_period : LRA_PERIOD_175HZ;
    }
    value = m->reg[reg];
    if (reg == R_STATUS) {
        m->reg[R_STATUS] &= (uint8_t)~STATUS_CLEAR_ON_READ;
    }
    return value;
}
