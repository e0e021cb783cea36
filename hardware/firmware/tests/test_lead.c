/* THRUM_FW_DRIVE_LEAD_US (the AVR build's 2000 µs): a port whose main loop is slow and coarse
 * still begins each drive at its instant. Built into a second test binary with the lead on
 * (make test runs both); the fake clock moves only through I2C costs and delay_us, so the held
 * write's time is exact. */
#include <string.h>

#include "fake_hal.h"
#include "harness.h"

#if THRUM_FW_DRIVE_LEAD_US > 0

static fake_t f;
static thrum_fw_t fw;
static uint8_t seq;
static size_t mark;

/* The main loop of a slow port: a pass every `step` µs, whatever is due. */
#define PASS_US 700u

static void boot(void)
{
    fake_start(&f, &fw, 500, I2C_COST);
    seq = 0;
    mark = f.nwrites;
}

static void send(const uint8_t *p, uint8_t n)
{
    fake_send_next(&f, &fw, &seq, p, n);
}

static unsigned rtp_writes(fake_write_t *out, unsigned max)
{
    return fake_register_writes(&f, mark, DRV2605L_REG_RTP_INPUT, out, max);
}

/* A segment start reached by a pass up to the lead ahead: the write completes one I2C transfer
 * after the start, not after the pass that found it; the ONSET says so and is on time. */
static void test_start_held_to_its_instant(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    fake_write_t w[8];
    const thrum_msg_t *m;

    boot();
    send(p, msg_segment(p, 10000, 3000, 100, 100, 7));
    f.now = 10000 - THRUM_FW_DRIVE_LEAD_US - 1u;
    thrum_fw_poll(&fw); /* just outside the lead: nothing yet */
    CHECK_EQ(rtp_writes(w, 8), 0);
    CHECK_EQ(f.now, 10000 - THRUM_FW_DRIVE_LEAD_US - 1u);
    f.now = 10000 - THRUM_FW_DRIVE_LEAD_US + 300u;
    thrum_fw_poll(&fw);
    CHECK_EQ(rtp_writes(w, 8), 1);
    CHECK_EQ(w[0].value, 100);
    CHECK_EQ(w[0].time, 10000u + I2C_COST);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 7u && m->field[1] == 10000u + I2C_COST && m->field[2] == THRUM_ONSET_ON_TIME);
}

/* Ramps up from 0 begin at their crossing (start + ceil(d / 2 to)), held there too, and a later
 * segment takes over at its start exactly, with passes PASS_US apart. */
static void test_crossing_and_take_over_held(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    fake_write_t w[64];
    unsigned count;
    unsigned i;

    boot();
    /* 0 -> 200 over 10 ms from 1000: crossing at 1025; then 150 flat from 14000 */
    n = msg_segment(p, 1000, 10000, 0, 200, 5);
    n = (uint8_t)(n + msg_segment(p + n, 14000, 2000, 150, 150, 6));
    send(p, n);
    fake_run_until(&f, &fw, 17000, PASS_US);
    count = rtp_writes(w, 64);
    CHECK(count >= 3u);
    CHECK_EQ(w[0].value, 1);
    CHECK_EQ(w[0].time, 1025u + I2C_COST);
    for (i = 0; i < count && w[i].value != 150u; i++) {
    }
    CHECK(i < count);
    if (i < count) {
        CHECK_EQ(w[i].time, 14000u + I2C_COST);
    }
    CHECK_EQ(fake_count(&f, THRUM_MSG_ONSET), 2);
    while (fake_count(&f, THRUM_MSG_ONSET) > 0u) {
        const thrum_msg_t *m = fake_next(&f, THRUM_MSG_ONSET);
        CHECK_EQ(m->field[2], THRUM_ONSET_ON_TIME);
        CHECK(m->field[1] == 1025u + I2C_COST || m->field[1] == 14000u + I2C_COST);
    }
}

/* A pass that arrives after the tolerance is still judged late: the lead only looks ahead. */
static void test_late_pass_is_still_late(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    fake_write_t w[8];
    const thrum_msg_t *m;

    boot();
    send(p, msg_segment(p, 10000, 3000, 100, 100, 9));
    f.now = 10000 + THRUM_LATE_TOLERANCE_US + 10u;
    thrum_fw_poll(&fw);
    CHECK_EQ(rtp_writes(w, 8), 1);
    CHECK_EQ(w[0].time, 10000u + THRUM_LATE_TOLERANCE_US + 10u + I2C_COST);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[2] == THRUM_ONSET_LATE_TRIMMED);
}

/* Frames that arrive together are handled one by one with a pass before each: a drive within the
 * lead is written at its instant before the frame is (a burst of frames can take longer than the
 * lead to handle on a slow CPU). */
static void test_frames_wait_behind_a_held_drive(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    fake_write_t w[8];

    boot();
    send(p, msg_segment(p, 10000, 3000, 100, 100, 4));
    f.now = 10000 - 1500u;
    send(p, msg_plain(p, THRUM_MSG_PING));
    CHECK_EQ(rtp_writes(w, 8), 1);
    CHECK_EQ(w[0].time, 10000u + I2C_COST);
    CHECK_EQ(f.now, 10000u + I2C_COST); /* the frame was handled after the write */
}

const test_case_t lead_tests[] = {
    {"lead: a frame arriving within the lead is handled after the held write", test_frames_wait_behind_a_held_drive},
    {"lead: a start reached ahead is written at its instant, ONSET on time", test_start_held_to_its_instant},
    {"lead: a ramp's crossing and a take-over are held to their instants", test_crossing_and_take_over_held},
    {"lead: a pass that arrives late still reports late", test_late_pass_is_still_late},
    {NULL, NULL},
};

#else

const test_case_t lead_tests[] = {
    {NULL, NULL},
};

#endif
