/* Protocol additions (PROTOCOL.md §3.1, §4.5-§4.7): thrum_fw_next_deadline, calibration with
 * queued segments, standby and waking, the program store and GO, ROM effects. */
#include <string.h>

#include "fake_hal.h"
#include "harness.h"

#define HOST_UNSEQ (THRUM_CTRL_MARK_HOST | THRUM_CTRL_UNSEQ)

static fake_t f;
static thrum_fw_t fw;
static uint8_t seq;

static void boot(void)
{
    fake_start(&f, &fw, 1000, I2C_COST);
    seq = 0;
}

static void send(const uint8_t *p, uint8_t n)
{
    fake_send_next(&f, &fw, &seq, p, n);
}

static void send1(uint32_t id, uint8_t count, const uint32_t *fields)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    send(p, msg_any(p, id, count, fields));
}

static void unseq1(uint32_t id, uint8_t count, const uint32_t *fields)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    fake_send(&f, &fw, HOST_UNSEQ, 0, p, msg_any(p, id, count, fields));
}

/* Run to `t` polling only at the firmware's own deadlines, as a timer-driven port would. */
static unsigned run_by_deadlines(uint32_t t)
{
    unsigned passes = 0;
    uint8_t has;

    while (thrum_time_before(f.now, t)) {
        uint32_t next = thrum_fw_next_deadline(&fw, f.now, &has);
        if (!has || !thrum_time_before(next, t)) {
            f.now = t;
        } else if (thrum_time_before(f.now, next)) {
            f.now = next;
        }
        thrum_fw_poll(&fw);
        passes++;
        if (passes > 100000u) {
            break;
        }
    }
    return passes;
}

static void test_next_deadline(void)
{
    uint32_t d;
    uint8_t has;
    fake_write_t *w;
    unsigned passes;
    size_t mark;
    uint8_t p[THRUM_MAX_PAYLOAD];

    boot();
    thrum_fw_next_deadline(&fw, f.now, &has);
    CHECK_EQ(has, 0); /* nothing queued, no host yet: nothing to do */
    send(p, msg_segment(p, 5013, 10000, 0, 10, 1));
    d = thrum_fw_next_deadline(&fw, f.now, &has);
    CHECK_EQ(has, 1);
    CHECK_EQ(d, 5013u); /* the segment start, not the watchdog a second away */
    mark = f.nwrites;
    passes = run_by_deadlines(20000);
    /* nothing until the ramp reaches code 1 at 5513 (§4.1), then one write per step of the ramp
     * (every 1000 µs), then 0 at the end */
    w = &f.writes[mark];
    CHECK_EQ(f.nwrites - mark, 11u);
    CHECK_EQ(w[0].time, 5513u + I2C_COST);
    CHECK_EQ(w[0].value, 1);
    CHECK_EQ(w[1].time, 6513u + I2C_COST);
    CHECK_EQ(w[1].value, 2);
    CHECK_EQ(w[9].time, 14513u + I2C_COST);
    CHECK_EQ(w[9].value, 10);
    CHECK_EQ(w[10].value, 0);
    CHECK_EQ(w[10].time, 15013u + I2C_COST);
    CHECK(passes < 20u);
    /* the watchdog is the only deadline left */
    d = thrum_fw_next_deadline(&fw, f.now, &has);
    CHECK(has && d == fw.link.last_host_time + THRUM_WATCHDOG_US);
}

static void test_calibration_with_queued_segments(void)
{
    const thrum_msg_t *m;
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;

    boot();
    f.cal_go_reads = 20; /* ≈ 200 ms */
    n = msg_plain(p, THRUM_MSG_CALIBRATE);
    n = (uint8_t)(n + msg_segment(p + n, 50000, 10000, 100, 100, 1));   /* passes during it */
    n = (uint8_t)(n + msg_segment(p + n, 150000, 200000, 100, 100, 2)); /* still running after */
    n = (uint8_t)(n + msg_segment(p + n, 400000, 10000, 100, 100, 3));  /* after it */
    send(p, n);
    CHECK(thrum_fw_calibrating(&fw));
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], 0x07);
    m = fake_next(&f, THRUM_MSG_STATE);
    CHECK(m != NULL && m->field[0] == THRUM_STATE_CALIBRATING && m->field[1] == THRUM_CAUSE_HOST);
    run_by_deadlines(500000);
    CHECK(!thrum_fw_calibrating(&fw));
    /* the result comes first, then the entries judged when the driver is free again */
    m = fake_next(&f, THRUM_MSG_CALIBRATION_RESULT);
    CHECK(m != NULL && m->field[0] == THRUM_CALIBRATION_PASS && m->field[1] == FAKE_CAL_COMP &&
          m->field[2] == FAKE_CAL_BEMF && m->field[3] == FAKE_CAL_BEMF_GAIN && m->field[4] == FAKE_CAL_LRA_PERIOD);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 1 && m->field[2] == THRUM_ONSET_DROPPED);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 2 && m->field[2] == THRUM_ONSET_LATE_TRIMMED);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 3 && m->field[2] == THRUM_ONSET_ON_TIME);
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], 0x05);
    /* a later set-up keeps the BEMF_GAIN calibration found */
    CHECK_EQ(fw.driver.bemf_gain, FAKE_CAL_BEMF_GAIN);

    /* a failing calibration says so */
    f.cal_fail = 1;
    f.cal_go_reads = 2;
    send(p, msg_plain(p, THRUM_MSG_CALIBRATE));
    run_by_deadlines(f.now + 100000);
    m = fake_next(&f, THRUM_MSG_CALIBRATION_RESULT);
    CHECK(m != NULL && m->field[0] == THRUM_CALIBRATION_FAIL);
    CHECK(!f.bad_output);
}

static void test_standby_and_wake(void)
{
    uint32_t timeout = 20;
    const thrum_msg_t *m;
    uint8_t p[THRUM_MAX_PAYLOAD];

    boot();
    unseq1(THRUM_MSG_WAKE, 1, &timeout);
    run_by_deadlines(f.now + 25000);
    CHECK(thrum_fw_standby(&fw));
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], 0x45);
    m = fake_next(&f, THRUM_MSG_STATE);
    CHECK(m != NULL && m->field[0] == THRUM_STATE_STANDBY && m->field[1] == THRUM_CAUSE_IDLE_TIMEOUT);
    /* a segment 10 ms ahead wakes the driver THRUM_FW_WAKE_LEAD_US early and starts on time */
    send(p, msg_segment(p, f.now + 10000, 5000, 90, 90, 4));
    run_by_deadlines(f.now + 12000);
    m = fake_next(&f, THRUM_MSG_STATE);
    CHECK(m != NULL && m->field[0] == THRUM_STATE_READY && m->field[1] == THRUM_CAUSE_AUTOMATIC);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[2] == THRUM_ONSET_ON_TIME);
    /* STANDBY stops and sleeps at once */
    fake_send(&f, &fw, HOST_UNSEQ, 0, p, msg_plain(p, THRUM_MSG_STANDBY));
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], 0x45);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 0);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    CHECK(!f.bad_output);
}

static void test_program_store(void)
{
    uint32_t slot = 1;
    uint32_t seg[5] = {0, 1000, 50, 50, 1};
    uint32_t go[3] = {1, 0, 100};
    unsigned i;
    const thrum_msg_t *m;

    boot();
    /* GO of an empty slot: refused */
    go[1] = f.now + 1000;
    unseq1(THRUM_MSG_GO, 3, go);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_GO_REJECTED && m->field[1] == 1);
    /* fill slot 1 past the store: FAULT 7 once, slot invalid */
    send1(THRUM_MSG_PRELOAD_BEGIN, 1, &slot);
    for (i = 0; i < THRUM_FW_PROGRAM_SEGMENTS + 2u; i++) {
        seg[0] = i * 2000u;
        send1(THRUM_MSG_PRELOAD_SEGMENT, 5, seg);
    }
    CHECK_EQ(fake_count(&f, THRUM_MSG_FAULT), 1);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_PROGRAM_FULL && m->field[1] == 1);
    /* slot 0 with 3 segments, then slot 1 again with 2: the store compacts */
    slot = 0;
    send1(THRUM_MSG_PRELOAD_BEGIN, 1, &slot);
    for (i = 0; i < 3u; i++) {
        seg[0] = i * 2000u;
        send1(THRUM_MSG_PRELOAD_SEGMENT, 5, seg);
    }
    CHECK_EQ(fw.programs.used, 3);
    slot = 1;
    send1(THRUM_MSG_PRELOAD_BEGIN, 1, &slot);
    for (i = 0; i < 2u; i++) {
        seg[0] = i * 2000u;
        send1(THRUM_MSG_PRELOAD_SEGMENT, 5, seg);
    }
    slot = 0;
    send1(THRUM_MSG_PRELOAD_BEGIN, 1, &slot); /* reload slot 0: slot 1 moves down */
    seg[0] = 0;
    send1(THRUM_MSG_PRELOAD_SEGMENT, 5, seg);
    CHECK_EQ(fw.programs.used, 3);
    CHECK_EQ(fw.programs.first[1], 0);
    CHECK_EQ(fw.programs.first[0], 2);
    /* an empty slot begun above a slot that is reloaded moves down with the rest (it must never
     * point past the pool: fuzzer finding) */
    slot = 2;
    send1(THRUM_MSG_PRELOAD_BEGIN, 1, &slot); /* slot 2: valid, empty, first = 3 */
    slot = 1;
    send1(THRUM_MSG_PRELOAD_BEGIN, 1, &slot); /* removes slot 1's two segments */
    CHECK_EQ(fw.programs.used, 1);
    CHECK(fw.programs.first[2] + fw.programs.count[2] <= fw.programs.used);
    slot = 1;
    send1(THRUM_MSG_PRELOAD_BEGIN, 1, &slot); /* back to the layout the GO below expects */
    for (i = 0; i < 2u; i++) {
        seg[0] = i * 2000u;
        send1(THRUM_MSG_PRELOAD_SEGMENT, 5, seg);
    }
    go[0] = 1;
    go[1] = f.now + 1000;
    unseq1(THRUM_MSG_GO, 3, go);
    CHECK_EQ(thrum_fw_queued(&fw), 2);
    run_by_deadlines(f.now + 10000);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 101 && m->field[1] == go[1] + I2C_COST);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 101 && m->field[1] == go[1] + 2000u + I2C_COST);
    CHECK(!f.bad_output);
}

static void test_rom_effect(void)
{
    uint32_t rom[3] = {0, 47, 7};
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    size_t mark;
    const thrum_msg_t *m;

    boot();
    rom[0] = 5000;
    mark = f.nwrites;
    send1(THRUM_MSG_ROM_EFFECT, 3, rom);
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    run_by_deadlines(5000 + 4 * I2C_COST);
    CHECK_EQ(f.writes[mark].reg, DRV2605L_REG_MODE);
    CHECK_EQ(f.writes[mark].value, 0x00);
    CHECK_EQ(f.writes[mark + 1].reg, DRV2605L_REG_WAV_FRM_SEQ1);
    CHECK_EQ(f.writes[mark + 1].value, 47);
    CHECK_EQ(f.writes[mark + 2].value, 0);
    CHECK_EQ(f.writes[mark + 3].reg, DRV2605L_REG_GO);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 7 && m->field[1] == 5000u + 3u * I2C_COST && m->field[2] == THRUM_ONSET_ON_TIME);
    /* the fake clears GO after 5 reads, polled every 2 ms: back to RTP, slot freed */
    run_by_deadlines(30000);
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], 0x05);
    CHECK_EQ(thrum_fw_queued(&fw), 0);

    /* the next segment cuts a long effect at its start */
    f.rom_go_reads = 1000;
    n = msg_any(p, THRUM_MSG_ROM_EFFECT, 3, rom);
    ((void)0);
    rom[0] = 40000;
    n = msg_any(p, THRUM_MSG_ROM_EFFECT, 3, rom);
    n = (uint8_t)(n + msg_segment(p + n, 60000, 5000, 80, 80, 8));
    send(p, n);
    run_by_deadlines(60000 + 2 * I2C_COST);
    CHECK_EQ(f.regs[DRV2605L_REG_GO], 0);
    run_by_deadlines(61000);
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], 0x05);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 80);
    /* reached too late: dropped */
    rom[0] = 100000;
    send1(THRUM_MSG_ROM_EFFECT, 3, rom);
    f.now = 100000 + THRUM_ROM_LATE_WINDOW_US + 1;
    thrum_fw_poll(&fw);
    fake_drop_output(&f);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    CHECK(!f.bad_output);
}


/* CAPABILITIES `calibrated` as an IDENTIFY (unsequenced) reports it now. */
static uint32_t calibrated_now(void)
{
    const thrum_msg_t *m;

    fake_drop_output(&f);
    unseq1(THRUM_MSG_IDENTIFY, 0, NULL);
    m = fake_next(&f, THRUM_MSG_CAPABILITIES);
    return m != NULL ? m->field[2] : 0xFFu;
}

/* RESTORE_CALIBRATION (§3.5): the kept words go into A_CAL_COMP, A_CAL_BEMF and BEMF_GAIN without
 * a calibration run, later set-ups keep them, a run going on ignores it, a bus error leaves the
 * driver uncalibrated, and a reset forgets it. */
static void test_restore_calibration(void)
{
    const uint32_t words[3] = {0x0Bu, 0x80u, 3u};
    const uint32_t wide[3] = {0x0Cu, 0x70u, 9u};
    const uint8_t feedback = (uint8_t)(DRV2605L_FEEDBACK_N_ERM_LRA |
                                       DRV2605L_FIELD_PREP(DRV2605L_FEEDBACK_FB_BRAKE_FACTOR, DRV2605L_BRAKE_FACTOR_3X) |
                                       DRV2605L_FIELD_PREP(DRV2605L_FEEDBACK_LOOP_GAIN, DRV2605L_LOOP_GAIN_HIGH));
    const thrum_msg_t *m;
    uint8_t p[THRUM_MAX_PAYLOAD];
    size_t mark;

    boot();
    CHECK_EQ(calibrated_now(), THRUM_CALIBRATED_NONE);
    mark = f.nwrites;
    send1(THRUM_MSG_RESTORE_CALIBRATION, 3, words);
    CHECK_EQ(f.regs[DRV2605L_REG_A_CAL_COMP], 0x0B);
    CHECK_EQ(f.regs[DRV2605L_REG_A_CAL_BEMF], 0x80);
    CHECK_EQ(f.regs[DRV2605L_REG_FEEDBACK_CONTROL], feedback | 3u); /* whole, as the set-up writes it */
    CHECK_EQ(f.nwrites - mark, 3u);                                 /* those three registers only */
    CHECK_EQ(fake_writes_to(&f, DRV2605L_REG_MODE, mark), 0u);       /* no calibration, mode untouched */
    CHECK_EQ(fake_count(&f, THRUM_MSG_CALIBRATION_RESULT), 0u);
    CHECK_EQ(fake_count(&f, THRUM_MSG_STATE), 0u);
    CHECK(!thrum_fw_calibrating(&fw));
    CHECK_EQ(calibrated_now(), THRUM_CALIBRATED_RESTORED);

    /* a later set-up (CONFIGURE_DRIVER) keeps them: BEMF_GAIN in FEEDBACK_CONTROL, the words untouched */
    send(p, msg_configure(p, 0x53, 0x85, 24, 58));
    CHECK_EQ(f.regs[DRV2605L_REG_FEEDBACK_CONTROL], feedback | 3u);
    CHECK_EQ(f.regs[DRV2605L_REG_A_CAL_COMP], 0x0B);
    CHECK_EQ(f.regs[DRV2605L_REG_A_CAL_BEMF], 0x80);
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], DRV2605L_MODE_RTP);
    CHECK_EQ(calibrated_now(), THRUM_CALIBRATED_RESTORED);

    /* BEMF_GAIN is two bits: a larger value is clamped (the message still parses) */
    send1(THRUM_MSG_RESTORE_CALIBRATION, 3, wide);
    CHECK_EQ(f.regs[DRV2605L_REG_FEEDBACK_CONTROL], feedback | 3u);
    CHECK_EQ(f.regs[DRV2605L_REG_A_CAL_BEMF], 0x70);

    /* during a calibration it is ignored: nothing is written while GO = 1, the run's result stands */
    f.cal_go_reads = 10;
    send(p, msg_plain(p, THRUM_MSG_CALIBRATE));
    CHECK(thrum_fw_calibrating(&fw));
    mark = f.nwrites;
    send1(THRUM_MSG_RESTORE_CALIBRATION, 3, words);
    CHECK_EQ(f.nwrites - mark, 0u);
    run_by_deadlines(f.now + 300000);
    CHECK(!thrum_fw_calibrating(&fw));
    m = fake_next(&f, THRUM_MSG_CALIBRATION_RESULT);
    CHECK(m != NULL && m->field[0] == THRUM_CALIBRATION_PASS);
    CHECK_EQ(f.regs[DRV2605L_REG_A_CAL_COMP], FAKE_CAL_COMP);
    CHECK_EQ(f.regs[DRV2605L_REG_A_CAL_BEMF], FAKE_CAL_BEMF);
    CHECK_EQ(fw.driver.bemf_gain, FAKE_CAL_BEMF_GAIN);
    CHECK_EQ(calibrated_now(), THRUM_CALIBRATED_MEASURED);

    /* a bus error half way: FAULT 2 naming the register, and the driver counts as uncalibrated */
    f.fail_reg = DRV2605L_REG_A_CAL_BEMF;
    f.fail_count = 1;
    fake_drop_output(&f);
    send1(THRUM_MSG_RESTORE_CALIBRATION, 3, words);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_BUS_ERROR && m->field[1] == DRV2605L_REG_A_CAL_BEMF);
    f.fail_reg = -1;
    CHECK_EQ(calibrated_now(), THRUM_CALIBRATED_NONE);
    send1(THRUM_MSG_RESTORE_CALIBRATION, 3, words); /* the host tries again */
    CHECK_EQ(calibrated_now(), THRUM_CALIBRATED_RESTORED);

    /* a failed run after a restore leaves the driver uncalibrated */
    f.cal_fail = 1;
    f.cal_go_reads = 2;
    send(p, msg_plain(p, THRUM_MSG_CALIBRATE));
    run_by_deadlines(f.now + 100000);
    CHECK_EQ(calibrated_now(), THRUM_CALIBRATED_NONE);

    /* a reset (DEV_RESET of the driver at boot) forgets it */
    send1(THRUM_MSG_RESTORE_CALIBRATION, 3, words);
    CHECK_EQ(calibrated_now(), THRUM_CALIBRATED_RESTORED);
    boot();
    CHECK_EQ(calibrated_now(), THRUM_CALIBRATED_NONE);
    CHECK(f.regs[DRV2605L_REG_A_CAL_BEMF] != 0x80);
    CHECK(!f.bad_output);
}

const test_case_t feature_tests[] = {
    {"features: next deadline drives a timer-only port exactly", test_next_deadline},
    {"features: calibration, segments during it late/dropped, result", test_calibration_with_queued_segments},
    {"features: idle timeout to standby, early wake, STANDBY", test_standby_and_wake},
    {"features: program store, overflow, compaction, GO", test_program_store},
    {"features: ROM effect via sequencer, cut by next segment, late drop", test_rom_effect},
#if THRUM_FW_LIBRARY
    {"features: RESTORE_CALIBRATION writes the kept words, kept by set-ups, ignored while calibrating", test_restore_calibration},
#endif
    {NULL, NULL},
};
