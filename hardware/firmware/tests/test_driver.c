/* DRV2605L set-up: the exact register sequence, power-up wait, absent driver, bus errors during
 * set-up and playback, CONFIGURE_DRIVER, over-temperature. */
#include <string.h>

#include "fake_hal.h"
#include "harness.h"


static fake_t f;
static thrum_fw_t fw;

typedef struct reg_value {
    uint8_t reg;
    uint8_t value;
} reg_value_t;

/* What Thrum writes for the host-sim board (205 Hz, 1.5 V rms LRA); hardware/drv2605/README.md
 * derives each value. */
static const reg_value_t expected_init[] = {
    {DRV2605L_REG_RTP_INPUT, 0x00},        /* stop first */
    {DRV2605L_REG_MODE, 0x00},             /* out of standby */
    {DRV2605L_REG_FEEDBACK_CONTROL, 0xAA}, /* LRA, brake 3x, loop gain high, BEMF gain 2 */
    {DRV2605L_REG_RATED_VOLTAGE, 0x3E},
    {DRV2605L_REG_OD_CLAMP, 0x8C},
    {DRV2605L_REG_CONTROL1, 0x93},         /* startup boost, DRIVE_TIME 19 */
    {DRV2605L_REG_CONTROL2, 0x75},         /* unidirectional, stabiliser, 300 us, blank 1, idiss 1 */
    {DRV2605L_REG_CONTROL3, 0x88},         /* NG 4 %, closed loop, unsigned RTP */
    {DRV2605L_REG_OL_LRA_PERIOD, 50},
    {DRV2605L_REG_LIBRARY, 0x06},          /* LRA library */
    {DRV2605L_REG_MODE, 0x05},             /* RTP */
    {DRV2605L_REG_RTP_INPUT, 0x00},
};
#define INIT_WRITES (sizeof(expected_init) / sizeof(expected_init[0]))

static void check_sequence(size_t from, const reg_value_t *want, size_t n)
{
    size_t i;

    CHECK_EQ(f.nwrites - from, n);
    for (i = 0; i < n && from + i < f.nwrites; i++) {
        if (f.writes[from + i].reg != want[i].reg || f.writes[from + i].value != want[i].value) {
            harness_failed_checks++;
            printf("    write %zu: reg 0x%02x = 0x%02x, expected reg 0x%02x = 0x%02x\n", i,
                   f.writes[from + i].reg, f.writes[from + i].value, want[i].reg, want[i].value);
        }
    }
}

static void test_field_helpers(void)
{
    CHECK_EQ(DRV2605L_FIELD_PREP(DRV2605L_FEEDBACK_FB_BRAKE_FACTOR, 2), 0x20);
    CHECK_EQ(DRV2605L_FIELD_PREP(DRV2605L_CONTROL1_DRIVE_TIME, 40), 40 & 0x1F);
    CHECK_EQ(DRV2605L_FIELD_GET(DRV2605L_STATUS_DEVICE_ID, 0xE0), 7);
    CHECK_EQ(DRV2605L_FIELD_GET(DRV2605L_STATUS_DEVICE_ID, 0x6B), 3);
    CHECK_EQ(DRV2605L_FIELD_GET(DRV2605L_CONTROL2_SAMPLE_TIME, 0xF5), 3);
}

static void test_init_sequence(void)
{
    fake_init(&f);
    f.i2c_cost_us = 73;
    fake_boot(&f, &fw, 1000);
    /* 250 µs wait before the first bus access, then STATUS is read to probe */
    CHECK(f.delayed_us >= DRV2605L_POWER_UP_DELAY_US);
    CHECK(f.first_access_time >= 1000u + DRV2605L_POWER_UP_DELAY_US);
    /* probe (STATUS), then DEV_RESET and MODE read until bit 7 clears (the fake: 3 reads), so a
     * driver that kept its registers across an MCU-only reset starts from its reset values */
    CHECK_EQ(f.dev_resets, 1);
    CHECK_EQ(f.reads, 1u + 3u);
    CHECK(f.nwrites > 0u && f.writes[0].reg == DRV2605L_REG_MODE && f.writes[0].value == DRV2605L_MODE_DEV_RESET);
    check_sequence(1, expected_init, INIT_WRITES);
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], DRV2605L_MODE_RTP);
    CHECK_EQ(thrum_fw_driver_id(&fw), DRV2605L_DEVICE_ID_DRV2605L);
    thrum_fw_poll(&fw);
    CHECK_EQ(fake_count(&f, 0), 0); /* a healthy boot says nothing until asked */

    /* a plain DRV2605 (non-L) is driven the same way and reported as 3, without the L-only
     * OL_LRA_PERIOD; the DRV2604 (RAM, no ROM library) also without LIBRARY; the DRV2604L has
     * OL_LRA_PERIOD but no LIBRARY */
    {
        static const struct { uint8_t status; uint8_t id; int ol; int lib; } parts[] = {
            {0x60, DRV2605L_DEVICE_ID_DRV2605, 0, 1},
            {0x80, DRV2605L_DEVICE_ID_DRV2604, 0, 0},
            {0xC0, DRV2605L_DEVICE_ID_DRV2604L, 1, 0},
        };
        size_t k;
        for (k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
            fake_init(&f);
            f.regs[DRV2605L_REG_STATUS] = parts[k].status;
            fake_boot(&f, &fw, 0);
            CHECK_EQ(thrum_fw_driver_id(&fw), parts[k].id);
            CHECK_EQ(fake_writes_to(&f, DRV2605L_REG_OL_LRA_PERIOD, 0), (unsigned)parts[k].ol);
            CHECK_EQ(fake_writes_to(&f, DRV2605L_REG_LIBRARY, 0), (unsigned)parts[k].lib);
            CHECK_EQ(f.nwrites, 1u + INIT_WRITES - 2u + (unsigned)parts[k].ol + (unsigned)parts[k].lib);
            CHECK_EQ(f.regs[DRV2605L_REG_MODE], DRV2605L_MODE_RTP);
        }
    }
}

static void test_absent_driver(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    const thrum_msg_t *m;

    fake_init(&f);
    f.present = 0;
    fake_boot(&f, &fw, 0);
    thrum_fw_poll(&fw);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_NO_DRIVER);
    CHECK_EQ(thrum_fw_driver_id(&fw), 0);
    /* segments are reached and dropped without touching the bus */
    n = msg_segment(p, 1000, 1000, 100, 100, 5);
    fake_send(&f, &fw, HOST_RESYNC, 0, p, n);
    fake_run_until(&f, &fw, 3000, 100);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 5 && m->field[2] == THRUM_ONSET_DROPPED);
    CHECK_EQ(f.nwrites, 0);

    /* something else at 0x5A (DEVICE_ID 0) is not driven either */
    fake_init(&f);
    f.regs[DRV2605L_REG_STATUS] = 0x00;
    fake_boot(&f, &fw, 0);
    CHECK_EQ(thrum_fw_driver_id(&fw), 0);
    CHECK_EQ(f.nwrites, 0);
}

static void test_bus_error_during_init(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    const thrum_msg_t *m;
    size_t i;

    fake_init(&f);
    f.fail_reg = DRV2605L_REG_CONTROL2;
    f.fail_count = -1;
    fake_boot(&f, &fw, 0);
    thrum_fw_poll(&fw);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_BUS_ERROR && m->field[1] == DRV2605L_REG_CONTROL2);
    /* stopped at the failing step: nothing after CONTROL2 was written */
    for (i = 0; i < f.nwrites; i++) {
        CHECK(f.writes[i].reg != DRV2605L_REG_CONTROL3);
    }
    CHECK(f.regs[DRV2605L_REG_MODE] != DRV2605L_MODE_RTP);
    /* a half-configured driver is never driven */
    n = msg_segment(p, 1000, 1000, 100, 100, 6);
    fake_send(&f, &fw, HOST_RESYNC, 0, p, n);
    fake_run_until(&f, &fw, 3000, 100);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[2] == THRUM_ONSET_DROPPED);
    CHECK_EQ(fake_writes_to(&f, DRV2605L_REG_RTP_INPUT, 2), 0); /* after DEV_RESET and the first stop */

    /* CONFIGURE_DRIVER retries the set-up; with the bus healthy the driver comes up */
    f.fail_reg = -1;
    n = msg_configure(p, 0x3E, 0x8C, 19, 50);
    fake_send(&f, &fw, HOST_SEQ, 1, p, n);
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], DRV2605L_MODE_RTP);
    n = msg_segment(p, 5000, 1000, 100, 100, 7);
    fake_send(&f, &fw, HOST_SEQ, 2, p, n);
    fake_run_until(&f, &fw, 5000, 100);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 7 && m->field[2] == THRUM_ONSET_ON_TIME);
}

static void test_bus_error_during_playback(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    const thrum_msg_t *m;
    size_t mark;

    fake_init(&f);
    fake_boot(&f, &fw, 0);
    f.now = 0;
    fake_drop_output(&f);
    mark = f.nwrites;
    n = msg_segment(p, 1000, 5000, 0, 250, 0);
    fake_send(&f, &fw, HOST_RESYNC, 0, p, n);
    f.fail_reg = DRV2605L_REG_RTP_INPUT;
    f.fail_count = 4;
    fake_run_until(&f, &fw, 8000, 100);
    /* one FAULT 2 for the run of failures (then the bus recovery's FAULT 9: this fake bus stays
     * stuck until its failures run out), each failure counted, and in the end the output is 0 */
    CHECK_EQ(fake_count(&f, THRUM_MSG_FAULT), 2);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_BUS_ERROR && m->field[1] == DRV2605L_REG_RTP_INPUT);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_BUS_RECOVERY && m->field[1] == 1u);
    CHECK_EQ(f.recoveries, 1);
    CHECK_EQ(thrum_fw_stats(&fw)->bus_errors, 4);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 0);
    CHECK(fake_writes_to(&f, DRV2605L_REG_RTP_INPUT, mark) >= 3u);

    /* a write of 0 that fails is retried until it lands */
    fake_init(&f);
    fake_boot(&f, &fw, 0);
    f.now = 0;
    n = msg_segment(p, 1000, 1000, 200, 200, 0);
    fake_send(&f, &fw, HOST_RESYNC, 0, p, n);
    fake_run_until(&f, &fw, 1500, 100);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 200);
    f.fail_reg = DRV2605L_REG_RTP_INPUT;
    f.fail_count = 3;
    fake_run_until(&f, &fw, 5000, 100);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 0);
    CHECK_EQ(thrum_fw_amplitude(&fw), 0);
}

static void test_configure_driver(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    size_t mark;
    static const reg_value_t want[] = {
        {DRV2605L_REG_RTP_INPUT, 0x00},
        {DRV2605L_REG_MODE, 0x00},
        {DRV2605L_REG_FEEDBACK_CONTROL, 0xAA},
        {DRV2605L_REG_RATED_VOLTAGE, 0x53},
        {DRV2605L_REG_OD_CLAMP, 0x85},
        {DRV2605L_REG_CONTROL1, 0x80 | 31}, /* 255 clamped to the 5-bit field's maximum */
        {DRV2605L_REG_CONTROL2, 0x75},
        {DRV2605L_REG_CONTROL3, 0x88},
        {DRV2605L_REG_OL_LRA_PERIOD, 127},  /* 200 clamped to 7 bits */
        {DRV2605L_REG_LIBRARY, 0x06},
        {DRV2605L_REG_MODE, 0x05},
        {DRV2605L_REG_RTP_INPUT, 0x00},
        /* RATED_VOLTAGE and OD_CLAMP changed, but set-up never starts a calibration: the host
         * decides (CALIBRATE) */
    };

    fake_init(&f);
    fake_boot(&f, &fw, 0);
    f.now = 0;
    /* playing at 180 when the new values arrive: output stops first */
    n = msg_segment(p, 100, 100000, 180, 180, 0);
    fake_send(&f, &fw, HOST_RESYNC, 0, p, n);
    fake_run_until(&f, &fw, 1000, 100);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 180);
    mark = f.nwrites;
    n = msg_configure(p, 0x53, 0x85, 255, 200);
    fake_send(&f, &fw, HOST_SEQ, 1, p, n);
    check_sequence(mark, want, sizeof(want) / sizeof(want[0]));
    /* the segment still in its window resumes at the next update */
    CHECK(!thrum_fw_calibrating(&fw));
    fake_run_until(&f, &fw, 2000, 100);
    CHECK_EQ(fake_writes_to(&f, DRV2605L_REG_GO, 0), 0);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 180);
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], 0x05);
    CHECK(!f.bad_output);

    /* a CONFIGURE_DRIVER that fails half-way: FAULT 2, queue discarded, output stays 0 */
    fake_drop_output(&f);
    f.fail_reg = DRV2605L_REG_CONTROL2;
    f.fail_count = -1;
    n = msg_configure(p, 0x53, 0x85, 24, 58);
    fake_send(&f, &fw, HOST_SEQ, 2, p, n);
    {
        const thrum_msg_t *m = fake_next(&f, THRUM_MSG_FAULT);
        CHECK(m != NULL && m->field[0] == THRUM_FAULT_BUS_ERROR && m->field[1] == DRV2605L_REG_CONTROL2);
    }
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    mark = f.nwrites;
    fake_run_until(&f, &fw, 200000, 1000);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 0);
    CHECK(f.nwrites - mark <= 1u); /* at most the one confirming 0 */
    CHECK_EQ(fake_count(&f, THRUM_MSG_ONSET), 0);

    /* even when the very first write (RTP_INPUT = 0) is what fails, 0 is retried until it lands */
    fake_init(&f);
    fake_boot(&f, &fw, 0);
    f.now = 0;
    n = msg_segment(p, 100, 100000, 180, 180, 0);
    fake_send(&f, &fw, HOST_RESYNC, 0, p, n);
    fake_run_until(&f, &fw, 1000, 100);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 180);
    f.fail_reg = DRV2605L_REG_RTP_INPUT;
    f.fail_count = 5;
    n = msg_configure(p, 0x53, 0x85, 24, 58);
    fake_send(&f, &fw, HOST_SEQ, 1, p, n);
    fake_run_until(&f, &fw, 10000, 100);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 0);
    CHECK_EQ(thrum_fw_amplitude(&fw), 0);
}

static void test_over_temperature_and_current(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    const thrum_msg_t *m;

    fake_init(&f);
    fake_boot(&f, &fw, 0);
    f.now = 0;
    n = msg_segment(p, 1000, 1000000, 200, 200, 0);
    fake_send(&f, &fw, HOST_RESYNC, 0, p, n);
    fake_run_until(&f, &fw, 20000, 1000);
    f.regs[DRV2605L_REG_STATUS] |= DRV2605L_STATUS_OVER_TEMP;
    fake_run_until(&f, &fw, 20000u + THRUM_FW_STATUS_POLL_US + 1000u, 1000);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_OVER_TEMPERATURE);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 0);
    CHECK_EQ(thrum_fw_queued(&fw), 0);

    n = msg_segment(p, 200000, 1000000, 200, 200, 0);
    fake_send(&f, &fw, HOST_SEQ, 1, p, n);
    fake_run_until(&f, &fw, 210000, 1000);
    f.regs[DRV2605L_REG_STATUS] |= DRV2605L_STATUS_OC_DETECT;
    fake_run_until(&f, &fw, 210000u + THRUM_FW_STATUS_POLL_US + 1000u, 1000);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_OVER_CURRENT);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 0);

    /* while idle, STATUS is left alone */
    {
        unsigned reads = f.reads;
        fake_run_until(&f, &fw, 1000000, 1000);
        CHECK_EQ(f.reads, reads);
    }
}

/* No STATUS read (≈ 90 µs on the bus) in the THRUM_FW_STATUS_GUARD_US before the next entry
 * starts: the entry would start late. The poll runs right after the start instead. */
static void test_status_poll_keeps_clear_of_the_next_start(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    unsigned reads;

    fake_init(&f);
    fake_boot(&f, &fw, 0);
    f.now = 0;
    n = msg_segment(p, 1000, 1000000, 200, 200, 0);
    n = (uint8_t)(n + msg_segment(p + n, 1000u + THRUM_FW_STATUS_POLL_US + 150u, 1000000, 120, 120, 0));
    fake_send(&f, &fw, HOST_RESYNC, 0, p, n);
    fake_run_until(&f, &fw, 1000u + THRUM_FW_STATUS_POLL_US - 200u, 10);
    reads = f.reads;
    /* the poll falls due here, 150 µs or less before the second segment starts */
    fake_run_until(&f, &fw, 1000u + THRUM_FW_STATUS_POLL_US + 149u, 1);
    CHECK_EQ(f.reads, reads);
    fake_run_until(&f, &fw, 1000u + THRUM_FW_STATUS_POLL_US + 2000u, 10);
    CHECK(f.reads > reads);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 120);
}

const test_case_t driver_tests[] = {
    {"driver: STATUS poll keeps clear of the next entry's start", test_status_poll_keeps_clear_of_the_next_start},
    {"driver: field helpers", test_field_helpers},
    {"driver: power-up wait, probe, LRA/RTP register sequence", test_init_sequence},
    {"driver: absent driver -> FAULT 1, never driven", test_absent_driver},
    {"driver: bus error in set-up -> FAULT 2 with the register", test_bus_error_during_init},
    {"driver: bus errors while playing, retries end at 0", test_bus_error_during_playback},
    {"driver: CONFIGURE_DRIVER stops, reconfigures, clamps; failure", test_configure_driver},
    {"driver: over-temperature / over-current stop", test_over_temperature_and_current},
    {NULL, NULL},
};
