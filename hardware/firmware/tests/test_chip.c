/* Driver fixes against the DRV2605L's documented behaviour (reference notes §1.2, §2.4):
 * DEV_RESET at boot and a reset that never completes, CONFIGURE_DRIVER held back while a
 * calibration's GO = 1, MODE untouched until GO clears after a failed GO read or the 3 s timeout,
 * ROM effects refused on the DRV2604/2604L. */
#include <string.h>

#include "fake_hal.h"
#include "harness.h"


static fake_t f;
static thrum_fw_t fw;
static uint8_t seq;

static void boot(void)
{
    fake_init(&f);
    fake_boot(&f, &fw, 0);
    f.now = 1000;
    fake_drop_output(&f);
    seq = 0;
}

static void send(const uint8_t *p, uint8_t n)
{
    fake_send_next(&f, &fw, &seq, p, n);
}

/* Writes to `reg` made while GO read 1 (a calibration running), from write index `from`. */
static unsigned writes_while_go(uint8_t reg, size_t from, size_t to)
{
    size_t i;
    unsigned n = 0;

    for (i = from; i < to && i < f.nwrites; i++) {
        if (f.writes[i].reg == reg) {
            n++;
        }
    }
    return n;
}

static void test_reset_that_never_completes(void)
{
    const thrum_msg_t *m;
    uint8_t p[THRUM_MAX_PAYLOAD];

    fake_init(&f);
    f.reset_stuck = 1;
    fake_boot(&f, &fw, 0);
    seq = 0;
    thrum_fw_poll(&fw);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_BUS_ERROR && m->field[1] == DRV2605L_REG_MODE);
    CHECK_EQ(f.reads, 1u + DRV2605L_RESET_POLLS); /* polled a bounded number of times */
    CHECK_EQ(f.nwrites, 1u);                      /* DEV_RESET, then nothing was set up */
    send(p, msg_segment(p, 2000, 1000, 100, 100, 3));
    fake_run_until(&f, &fw, 4000, 100);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[2] == THRUM_ONSET_DROPPED);
    CHECK_EQ(fake_writes_to(&f, DRV2605L_REG_RTP_INPUT, 0), 0);
}

static void test_configure_waits_for_go(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    size_t start;
    size_t go_clear = 0;
    size_t i;

    boot();
    f.cal_go_reads = 20; /* GO stays 1 for ~200 ms */
    send(p, msg_plain(p, THRUM_MSG_CALIBRATE));
    CHECK(thrum_fw_calibrating(&fw));
    fake_run_until(&f, &fw, 50000, 1000);
    start = f.nwrites;
    send(p, msg_configure(p, 0x50, 0x90, 20, 40));
    CHECK_EQ(f.nwrites, start); /* nothing written while GO = 1 */
    fake_run_until(&f, &fw, 400000, 1000);
    CHECK(!thrum_fw_calibrating(&fw));
    /* the set-up ran after the calibration's MODE 5, with the new values */
    for (i = start; i < f.nwrites; i++) {
        if (f.writes[i].reg == DRV2605L_REG_RATED_VOLTAGE) {
            go_clear = i;
        }
    }
    CHECK(go_clear > start);
    CHECK_EQ(f.regs[DRV2605L_REG_RATED_VOLTAGE], 0x50);
    CHECK_EQ(f.regs[DRV2605L_REG_OD_CLAMP], 0x90);
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], DRV2605L_MODE_RTP);
    CHECK_EQ(fake_count(&f, THRUM_MSG_CALIBRATION_RESULT), 1);
    CHECK(!f.bad_output);
}

static void test_failed_go_read_waits_for_go(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    size_t start;
    const thrum_msg_t *m;

    boot();
    f.cal_go_reads = 10;
    send(p, msg_plain(p, THRUM_MSG_CALIBRATE));
    start = f.nwrites;
    f.fail_read_reg = DRV2605L_REG_GO;
    f.fail_read_count = 2; /* two GO reads fail, the run has failed ... */
    fake_run_until(&f, &fw, 60000, 1000);
    CHECK(thrum_fw_calibrating(&fw)); /* ... but GO is still 1: MODE is not touched */
    CHECK_EQ(writes_while_go(DRV2605L_REG_MODE, start, f.nwrites), 0);
    fake_run_until(&f, &fw, 300000, 1000);
    CHECK(!thrum_fw_calibrating(&fw));
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], DRV2605L_MODE_RTP);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_BUS_ERROR && m->field[1] == DRV2605L_REG_GO);
    CHECK_EQ(fake_count(&f, THRUM_MSG_FAULT), 1); /* reported once per run */
    m = fake_next(&f, THRUM_MSG_CALIBRATION_RESULT);
    CHECK(m != NULL && m->field[0] == THRUM_CALIBRATION_FAIL);
}

static void test_timeout_waits_for_go(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    size_t start;
    const thrum_msg_t *m;

    /* GO clears 3.3 s in: after the 3 s timeout, MODE waits for it */
    boot();
    f.cal_go_reads = 330;
    send(p, msg_plain(p, THRUM_MSG_CALIBRATE));
    start = f.nwrites;
    fake_run_until(&f, &fw, 1000 + DRV2605L_CALIBRATION_TIMEOUT_US + 200000u, 1000);
    CHECK(thrum_fw_calibrating(&fw));
    CHECK_EQ(writes_while_go(DRV2605L_REG_MODE, start, f.nwrites), 0);
    fake_run_until(&f, &fw, 1000 + DRV2605L_CALIBRATION_TIMEOUT_US + 400000u, 1000);
    CHECK(!thrum_fw_calibrating(&fw));
    m = fake_next(&f, THRUM_MSG_CALIBRATION_RESULT);
    CHECK(m != NULL && m->field[0] == THRUM_CALIBRATION_FAIL);

    /* GO never clears: set up regardless once the drain time is over too */
    boot();
    f.cal_go_reads = 1000000u;
    send(p, msg_plain(p, THRUM_MSG_CALIBRATE));
    fake_run_until(&f, &fw, 1000 + DRV2605L_CALIBRATION_TIMEOUT_US + DRV2605L_CALIBRATION_DRAIN_US - 20000u, 1000);
    CHECK(thrum_fw_calibrating(&fw));
    fake_run_until(&f, &fw, 1000 + DRV2605L_CALIBRATION_TIMEOUT_US + DRV2605L_CALIBRATION_DRAIN_US + 20000u, 1000);
    CHECK(!thrum_fw_calibrating(&fw));
    m = fake_next(&f, THRUM_MSG_CALIBRATION_RESULT);
    CHECK(m != NULL && m->field[0] == THRUM_CALIBRATION_FAIL);
}

static void test_no_rom_effects_on_drv2604(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint32_t rom[3] = {5000, 47, 9};
    const thrum_msg_t *m;
    size_t start;

    fake_init(&f);
    f.regs[DRV2605L_REG_STATUS] = 0x80; /* DRV2604: waveform RAM, no ROM library */
    fake_boot(&f, &fw, 0);
    f.now = 1000;
    fake_drop_output(&f);
    seq = 0;
    start = f.nwrites;
    send(p, msg_any(p, THRUM_MSG_ROM_EFFECT, 3, rom));
    fake_run_until(&f, &fw, 8000, 100);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 9u && m->field[2] == THRUM_ONSET_DROPPED);
    CHECK_EQ(fake_writes_to(&f, DRV2605L_REG_GO, start), 0);
    CHECK_EQ(fake_writes_to(&f, DRV2605L_REG_WAV_FRM_SEQ1, start), 0);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
}

static void test_sample_time_reaches_control2(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    uint32_t code = 1;

    boot();
    CHECK_EQ(f.regs[DRV2605L_REG_CONTROL2], 0x75); /* 300 µs until told otherwise */
    /* CONFIGURE_SAMPLE_TIME alone only stores it ... */
    send(p, msg_any(p, THRUM_MSG_CONFIGURE_SAMPLE_TIME, 1, &code));
    CHECK_EQ(f.regs[DRV2605L_REG_CONTROL2], 0x75);
    /* ... the set-up of the CONFIGURE_DRIVER after it (same frame) writes 200 µs */
    code = 1;
    n = msg_any(p, THRUM_MSG_CONFIGURE_SAMPLE_TIME, 1, &code);
    n = (uint8_t)(n + msg_configure(p + n, 0x53, 0x85, 24, 58));
    send(p, n);
    CHECK_EQ(f.regs[DRV2605L_REG_CONTROL2], 0x55); /* stabiliser, SAMPLE_TIME 1, blank 1, idiss 1 */
    CHECK_EQ(f.regs[DRV2605L_REG_RATED_VOLTAGE], 0x53);
    /* and it stays for later set-ups; out-of-range codes are clamped to 300 µs */
    send(p, msg_configure(p, 0x53, 0x85, 24, 58));
    CHECK_EQ(f.regs[DRV2605L_REG_CONTROL2], 0x55);
    code = 200;
    n = msg_any(p, THRUM_MSG_CONFIGURE_SAMPLE_TIME, 1, &code);
    n = (uint8_t)(n + msg_configure(p + n, 0x53, 0x85, 24, 58));
    send(p, n);
    CHECK_EQ(f.regs[DRV2605L_REG_CONTROL2], 0x75);
    CHECK(!f.bad_output);
}

const test_case_t chip_tests[] = {
    {"chip: CONFIGURE_SAMPLE_TIME reaches CONTROL2 with the next set-up", test_sample_time_reaches_control2},
    {"chip: DEV_RESET that never completes -> FAULT 2 (MODE), driver not driven", test_reset_that_never_completes},
    {"chip: CONFIGURE_DRIVER during calibration is applied after GO clears", test_configure_waits_for_go},
    {"chip: failed GO read: FAULT once, MODE only after GO reads 0, result failed", test_failed_go_read_waits_for_go},
    {"chip: 3 s timeout: MODE only after GO clears (or after the drain time)", test_timeout_waits_for_go},
    {"chip: DRV2604 has no ROM library: ROM_EFFECT dropped, sequencer untouched", test_no_rom_effects_on_drv2604},
    {NULL, NULL},
};
