/* First non-zero drive at the ramp's crossing (PROTOCOL.md §4.1, §3.2 ONSET): a segment that
 * ramps up from 0 is first written when its rounded amplitude reaches code 1, that write is its
 * ONSET, the 500 µs cadence counts from it; an all-zero segment keeps the start write. The port is
 * driven by thrum_fw_next_deadline, as a timer-driven port would, so times are exact. */
#include <string.h>

#include "fake_hal.h"
#include "harness.h"


static fake_t f;
static thrum_fw_t fw;
static uint8_t seq;
static size_t mark;

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

static void run_by_deadlines(uint32_t t)
{
    unsigned passes = 0;
    uint8_t has;

    while (thrum_time_before(f.now, t) && passes++ < 100000u) {
        uint32_t next = thrum_fw_next_deadline(&fw, f.now, &has);
        if (!has || !thrum_time_before(next, t)) {
            f.now = t;
        } else if (thrum_time_before(f.now, next)) {
            f.now = next;
        }
        thrum_fw_poll(&fw);
    }
}

static unsigned rtp_writes(fake_write_t *out, unsigned max)
{
    return fake_register_writes(&f, mark, DRV2605L_REG_RTP_INPUT, out, max);
}

static uint8_t ramp_value(uint32_t start, uint32_t duration, uint32_t to, uint32_t t)
{
    return (uint8_t)((2u * to * (t - start) + duration) / (2u * duration));
}

static void test_first_write_at_crossing(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    fake_write_t w[64];
    const thrum_msg_t *m;
    unsigned n;
    unsigned i;

    boot();
    /* 0 -> 200 over 10 ms: code 1 from elapsed ceil(10000 / 400) = 25 */
    send(p, msg_segment(p, 1000, 10000, 0, 200, 5));
    run_by_deadlines(1024);
    CHECK_EQ(rtp_writes(w, 64), 0); /* the output is already 0: no write at the start */
    run_by_deadlines(12000);
    n = rtp_writes(w, 64);
    CHECK(n >= 20u && n <= 64u);
    CHECK_EQ(w[0].value, 1);
    CHECK_EQ(w[0].time, 1025u + I2C_COST);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 5u && m->field[1] == 1025u + I2C_COST && m->field[2] == THRUM_ONSET_ON_TIME);
    /* the cadence counts from the crossing: the next update is due 500 µs after it */
    CHECK_EQ(w[1].time, 1525u + I2C_COST);
    CHECK_EQ(w[1].value, ramp_value(1000, 10000, 200, 1525));
    for (i = 1; i + 1u < n && i < 64u; i++) {
        CHECK(w[i].time - w[i - 1].time >= THRUM_AMPLITUDE_UPDATE_INTERVAL_US);
    }
    CHECK_EQ(w[n - 1].value, 0);
    CHECK_EQ(thrum_fw_stats(&fw)->segments_played, 1);
    CHECK(!f.bad_output);
}

static void test_from_zero_after_drive(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    fake_write_t w[64];
    const thrum_msg_t *m;

    boot();
    /* drive at 100, then a ramp up from 0 with a coarse crossing: 0 -> 2 over 4000 µs, code 1
     * from elapsed ceil(4000 / 4) = 1000 */
    n = msg_segment(p, 1000, 1000, 100, 100, 1);
    n = (uint8_t)(n + msg_segment(p + n, 2000, 4000, 0, 2, 2));
    send(p, n);
    run_by_deadlines(7000);
    CHECK_EQ(rtp_writes(w, 64), 5);
    CHECK_EQ(w[0].value, 100);
    CHECK_EQ(w[1].value, 0); /* the new segment starts at 0: written at its start ... */
    CHECK_EQ(w[1].time, 2000u + I2C_COST);
    CHECK_EQ(w[2].value, 1); /* ... but its drive, and its onset, begin at the crossing */
    CHECK_EQ(w[2].time, 3000u + I2C_COST);
    CHECK_EQ(w[3].value, 2); /* code 2 from elapsed 3000 */
    CHECK_EQ(w[3].time, 5000u + I2C_COST);
    CHECK_EQ(w[4].value, 0); /* its end */
    CHECK_EQ(w[4].time, 6000u + I2C_COST);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 1u && m->field[1] == 1000u + I2C_COST);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 2u && m->field[1] == 3000u + I2C_COST && m->field[2] == THRUM_ONSET_ON_TIME);
    CHECK(!f.bad_output);
}

static void test_all_zero_keeps_start_write(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    fake_write_t w[8];
    const thrum_msg_t *m;

    boot();
    /* flat 0 with an event: the write at its start is its onset, as before */
    send(p, msg_segment(p, 1000, 2000, 0, 0, 3));
    /* 0 -> 1 over 1 µs never leaves 0 inside its window: all zero too */
    send(p, msg_segment(p, 4000, 1, 0, 1, 4));
    run_by_deadlines(6000);
    CHECK_EQ(rtp_writes(w, 8), 2);
    CHECK_EQ(w[0].value, 0);
    CHECK_EQ(w[0].time, 1000u + I2C_COST);
    CHECK_EQ(w[1].value, 0);
    CHECK_EQ(w[1].time, 4000u + I2C_COST);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 3u && m->field[1] == 1000u + I2C_COST && m->field[2] == THRUM_ONSET_ON_TIME);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 4u && m->field[1] == 4000u + I2C_COST && m->field[2] == THRUM_ONSET_ON_TIME);
    CHECK(!f.bad_output);
}

static void test_lateness_counts_from_the_crossing(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    fake_write_t w[8];
    const thrum_msg_t *m;

    /* reached 200 µs after its start but before its crossing (5000): on time */
    boot();
    f.now = 1200;
    send(p, msg_segment(p, 1000, 10000, 0, 1, 1));
    run_by_deadlines(7000);
    CHECK_EQ(rtp_writes(w, 8), 1);
    CHECK_EQ(w[0].time, 6000u + I2C_COST);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[1] == 6000u + I2C_COST && m->field[2] == THRUM_ONSET_ON_TIME);

    /* reached 40 µs after its crossing (1025): within the tolerance */
    boot();
    f.now = 1065;
    send(p, msg_segment(p, 1000, 10000, 0, 200, 2));
    thrum_fw_poll(&fw);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[2] == THRUM_ONSET_ON_TIME);

    /* reached 75 µs after it: late, trimmed, written with the value it has by then */
    boot();
    f.now = 1100;
    send(p, msg_segment(p, 1000, 10000, 0, 200, 3));
    thrum_fw_poll(&fw);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[1] == 1100u + I2C_COST && m->field[2] == THRUM_ONSET_LATE_TRIMMED);
    CHECK_EQ(rtp_writes(w, 8), 1);
    CHECK_EQ(w[0].value, ramp_value(1000, 10000, 200, 1100));
    CHECK_EQ(thrum_fw_stats(&fw)->segments_trimmed, 1);
}

static void test_ended_before_crossing(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    const thrum_msg_t *m;
    uint32_t at = 3000;

    /* taken over by the next segment before it left 0: it never drove, reported dropped */
    boot();
    n = msg_segment(p, 1000, 10000, 0, 1, 1); /* crossing at 6000 */
    n = (uint8_t)(n + msg_segment(p + n, 2000, 1000, 50, 50, 2));
    send(p, n);
    run_by_deadlines(4000);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 1u && m->field[1] == 2000u && m->field[2] == THRUM_ONSET_DROPPED);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 2u && m->field[2] == THRUM_ONSET_ON_TIME);
    CHECK_EQ(thrum_fw_stats(&fw)->segments_dropped, 1);

    /* cut before its crossing: no ONSET (the host re-sends the event with its replacement) */
    boot();
    send(p, msg_segment(p, 1000, 10000, 0, 1, 1));
    run_by_deadlines(2000);
    send(p, msg_any(p, THRUM_MSG_CUT, 1, &at));
    run_by_deadlines(8000);
    CHECK_EQ(fake_count(&f, THRUM_MSG_ONSET), 0);
    CHECK_EQ(fake_writes_to(&f, DRV2605L_REG_RTP_INPUT, mark), 0);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    CHECK(!f.bad_output);
}

static void test_near_crossing_replaces_drive_directly(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    fake_write_t w[64];
    const thrum_msg_t *m;

    boot();
    /* drive at 100, then a steep ramp from 0 (code 1 after 25 µs): no 0 in between, whose 73 µs
     * write would make the ramp's own first write late */
    n = msg_segment(p, 1000, 1000, 100, 100, 1);
    n = (uint8_t)(n + msg_segment(p + n, 2000, 10000, 0, 200, 2));
    send(p, n);
    run_by_deadlines(3000);
    CHECK(rtp_writes(w, 64) >= 3u);
    CHECK_EQ(w[0].value, 100);
    CHECK(w[1].value != 0u);
    CHECK_EQ(w[1].time, 2025u + I2C_COST);
    m = fake_next(&f, THRUM_MSG_ONSET);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 2u && m->field[1] == 2025u + I2C_COST && m->field[2] == THRUM_ONSET_ON_TIME);
    CHECK(!f.bad_output);
}

static void ping(void)
{
    uint8_t p[4];

    fake_send(&f, &fw, (uint8_t)(THRUM_CTRL_MARK_HOST | THRUM_CTRL_UNSEQ), 9, p, msg_plain(p, THRUM_MSG_PING));
}

/* Device frames after `first` that repeated the ONSET of `event`. */
static unsigned repeats_after(uint32_t event, size_t first)
{
    unsigned i, n = 0;

    for (i = 0; i < f.onset_repeats && i < 256u; i++) {
        if (f.repeat[i].event == event && f.repeat[i].frame > first) {
            n++;
        }
    }
    return n;
}

/* The device frame that first carried the ONSET of `event`. */
static size_t first_frame(uint32_t event)
{
    size_t i;

    for (i = 0; i < f.nmsgs; i++) {
        if (f.msgs[i].msg.id == THRUM_MSG_ONSET && f.msgs[i].msg.field[0] == event) {
            return f.msgs[i].frame;
        }
    }
    return (size_t)-1;
}

/* PROTOCOL.md §3.2: each ONSET rides again in the next THRUM_FW_ONSET_REPEATS frames after the one
 * that first carried it, so a lost device frame loses no report, also when onsets come one per
 * frame (the newest three are repeated together); repeats are the same bytes (event, time,
 * status), which is how the host knows them. */
static void test_onsets_are_repeated_in_later_frames(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    unsigned i;
    const thrum_msg_t *m;
    unsigned n;
    uint32_t e;

    boot();
    n = msg_segment(p, 1000, 1000, 100, 100, 1);
    n = (uint8_t)(n + msg_segment(p + n, 3000, 1000, 100, 100, 2));
    n = (uint8_t)(n + msg_segment(p + n, 5000, 1000, 100, 100, 3));
    n = (uint8_t)(n + msg_segment(p + n, 7000, 1000, 100, 100, 4));
    send(p, (uint8_t)n);
    run_by_deadlines(1500);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 1u && m->field[2] == THRUM_ONSET_ON_TIME);
    for (i = 0; i < THRUM_FW_ONSET_REPEATS + 3u; i++) {
        ping();
    }
    fake_decode(&f);
    CHECK_EQ(repeats_after(1, first_frame(1)), THRUM_FW_ONSET_REPEATS); /* then no more */
    CHECK_EQ(fake_count(&f, THRUM_MSG_ONSET), 0u); /* the host-side view holds it once */

    /* three more onsets, one frame each with no host frame between: each still rides in the
     * frames of the next ones and then in the pings' ACKs */
    run_by_deadlines(7500);
    for (i = 0; i < 3u; i++) {
        m = fake_next(&f, THRUM_MSG_ONSET);
        CHECK(m != NULL && m->field[0] == 2u + i);
    }
    for (i = 0; i < THRUM_FW_ONSET_REPEATS + 3u; i++) {
        ping();
    }
    fake_decode(&f);
    for (e = 2; e <= 4u; e++) {
        CHECK(repeats_after(e, first_frame(e)) >= THRUM_FW_ONSET_REPEATS);
    }
    CHECK(!f.bad_output);
}

const test_case_t onset_tests[] = {
    {"onset: each ONSET is repeated in the next 3 frames after its first", test_onsets_are_repeated_in_later_frames},
    {"onset: taking over drive, a crossing < 500 us away is written without a 0 first", test_near_crossing_replaces_drive_directly},
    {"onset: ramp from 0 first written at its crossing; cadence from there", test_first_write_at_crossing},
    {"onset: after drive, 0 at the start is not the onset", test_from_zero_after_drive},
    {"onset: all-zero segments keep the start write as onset", test_all_zero_keeps_start_write},
    {"onset: lateness measured from the crossing", test_lateness_counts_from_the_crossing},
    {"onset: taken over before the crossing = dropped; cut = none", test_ended_before_crossing},
    {NULL, NULL},
};
