/* The scheduler (PROTOCOL.md §4.1, §4.2, §4.4): onsets, interpolation, the update-rate limit,
 * late trimming and dropping, gaps, STOP, the watchdog, and the clock wrap. */
#include <string.h>

#include "fake_hal.h"
#include "harness.h"

#define HOST_UNSEQ (THRUM_CTRL_MARK_HOST | THRUM_CTRL_UNSEQ)

static fake_t f;
static thrum_fw_t fw;
static uint8_t seq;
static size_t mark; /* write index after boot */

static void boot_at(uint32_t t0)
{
    fake_init(&f);
    fake_boot(&f, &fw, t0);
    /* set-up took 250 µs of power-up wait; start the test at t0 regardless */
    f.now = t0;
    f.i2c_cost_us = I2C_COST;
    fake_drop_output(&f);
    seq = 0;
    mark = f.nwrites;
}

static void segment(uint32_t start, uint32_t duration, uint8_t from, uint8_t to, uint32_t event)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n = msg_segment(p, start, duration, from, to, event);

    fake_send_next(&f, &fw, &seq, p, n);
}

static void ping(void)
{
    uint8_t p[1];

    p[0] = THRUM_MSG_PING;
    fake_send(&f, &fw, HOST_UNSEQ, 0, p, 1);
}

/* RTP writes since boot, in order. */
static unsigned rtp_writes(fake_write_t *out, unsigned max)
{
    return fake_register_writes(&f, mark, DRV2605L_REG_RTP_INPUT, out, max);
}

static void test_on_time_onset(void)
{
    fake_write_t w[8];
    const thrum_msg_t *onset;

    boot_at(0);
    segment(10000, 2000, 150, 150, 7);
    fake_run_until(&f, &fw, 9990, 10);
    CHECK_EQ(rtp_writes(w, 8), 0);
    fake_run_until(&f, &fw, 10000, 10);
    CHECK_EQ(rtp_writes(w, 8), 1);
    CHECK_EQ(w[0].value, 150);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL);
    if (onset != NULL) {
        CHECK_EQ(onset->field[0], 7);
        /* the time the write returned, not the time it was decided */
        CHECK_EQ(onset->field[1], 10000u + I2C_COST);
        CHECK_EQ(onset->field[1], w[0].time);
        CHECK_EQ(onset->field[2], THRUM_ONSET_ON_TIME);
    }
    /* a flat segment is written once; at its end the output returns to 0 */
    fake_run_until(&f, &fw, 13000, 10);
    CHECK_EQ(rtp_writes(w, 8), 2);
    CHECK_EQ(w[1].value, 0);
    CHECK(w[1].time >= 12000u && w[1].time <= 12000u + 10u + I2C_COST);
    CHECK_EQ(thrum_fw_stats(&fw)->segments_played, 1);
    CHECK_EQ(thrum_fw_free_slots(&fw), THRUM_FW_QUEUE_SLOTS);
    /* an event-less segment reports nothing */
    segment(20000, 1000, 10, 10, 0);
    fake_run_until(&f, &fw, 22000, 10);
    CHECK_EQ(fake_count(&f, THRUM_MSG_ONSET), 0);
    CHECK(!f.bad_output);
}

static void test_interpolation_and_rate_limit(void)
{
    fake_write_t w[64];
    unsigned n;
    unsigned i;

    boot_at(0);
    f.i2c_cost_us = 0;
    segment(1000, 10000, 0, 200, 0);
    fake_run_until(&f, &fw, 12000, 10);
    n = rtp_writes(w, 64);
    CHECK(n >= 20u && n <= 22u);
    for (i = 0; i + 1u < n && i < 63u; i++) {
        /* never faster than every 500 µs, and every value is the rounded ramp at its time */
        CHECK(w[i + 1].time - w[i].time >= THRUM_AMPLITUDE_UPDATE_INTERVAL_US || w[i + 1].value == 0);
        if (w[i].time < 11000u) {
            uint32_t e = w[i].time - 1000u;
            CHECK_EQ(w[i].value, (2u * 200u * e + 10000u) / 20000u);
            CHECK(i == 0 || w[i].value != w[i - 1].value);
        }
    }
    /* §4.1: a ramp up from 0 is first written where it reaches code 1 (1000 + ceil(10000 / 400)),
     * here at the first 10 µs poll from then on; nothing is written before */
    CHECK(w[0].time >= 1025u && w[0].time < 1035u);
    CHECK_EQ(w[0].value, 1);
    CHECK_EQ(w[n - 1].value, 0); /* and silence after */

    /* a falling ramp rounds the same way */
    boot_at(0);
    f.i2c_cost_us = 0;
    segment(1000, 1000, 255, 0, 0);
    fake_run_until(&f, &fw, 1500, 500);
    n = rtp_writes(w, 64);
    CHECK_EQ(n, 2);
    CHECK_EQ(w[0].value, 255);
    CHECK_EQ(w[1].value, 128); /* 127.5 rounds up, as on a rising ramp */
}

static void test_late_trim_and_tolerance(void)
{
    fake_write_t w[8];
    const thrum_msg_t *onset;

    /* reached 50 µs after start: still on time */
    boot_at(0);
    segment(1000, 1000, 100, 100, 1);
    f.now = 1050;
    thrum_fw_poll(&fw);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL && onset->field[2] == THRUM_ONSET_ON_TIME);

    /* reached 200 µs late: plays trimmed, from the ramp's value at that moment */
    boot_at(0);
    segment(1000, 1000, 0, 100, 2);
    f.now = 1200;
    thrum_fw_poll(&fw);
    CHECK_EQ(rtp_writes(w, 8), 1);
    CHECK_EQ(w[0].value, 20);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL);
    if (onset != NULL) {
        CHECK_EQ(onset->field[0], 2);
        CHECK_EQ(onset->field[1], 1200u + I2C_COST);
        CHECK_EQ(onset->field[2], THRUM_ONSET_LATE_TRIMMED);
    }
    /* ... and still ends at its original end */
    fake_run_until(&f, &fw, 2100, 10);
    CHECK_EQ(rtp_writes(w, 8), 3);
    CHECK_EQ(w[2].value, 0);
    CHECK(w[2].time <= 2000u + 10u + I2C_COST);
    CHECK_EQ(thrum_fw_stats(&fw)->segments_trimmed, 1);

    /* a segment arriving after its start is late too */
    boot_at(5000);
    segment(4000, 3000, 80, 80, 3);
    thrum_fw_poll(&fw);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL && onset->field[2] == THRUM_ONSET_LATE_TRIMMED);
}

/* An event's first entry reached after its end, its drive going on in the next entry (a host
 * or device that ran late just after a start): the chip drives the rest, so the event is
 * reported where that drive began, late — not dropped. A dropped entry followed by silence, or
 * by another event's entry, stays dropped. */
static void test_drop_carries_mark_to_continuation(void)
{
    fake_write_t w[8];
    const thrum_msg_t *onset;

    boot_at(0);
    segment(1000, 100, 200, 200, 9);
    segment(1100, 2000, 200, 200, 0);
    f.now = 1300;
    thrum_fw_poll(&fw);
    CHECK_EQ(rtp_writes(w, 8), 1);
    CHECK_EQ(w[0].value, 200);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL && onset->field[0] == 9 && onset->field[1] == 1300u + I2C_COST &&
          onset->field[2] == THRUM_ONSET_LATE_TRIMMED);
    CHECK(fake_next(&f, THRUM_MSG_ONSET) == NULL);
    CHECK_EQ(thrum_fw_stats(&fw)->segments_dropped, 1);

    /* reached within the tolerance of the continuation's start: still late (the event's first
     * part never drove) */
    boot_at(0);
    segment(1000, 100, 200, 200, 9);
    segment(1100, 2000, 200, 200, 0);
    f.now = 1110;
    thrum_fw_poll(&fw);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL && onset->field[0] == 9 && onset->field[2] == THRUM_ONSET_LATE_TRIMMED);

    /* followed by silence: nothing of the event drove */
    boot_at(0);
    segment(1000, 100, 200, 200, 9);
    segment(1100, 2000, 0, 0, 0);
    f.now = 1300;
    thrum_fw_poll(&fw);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL && onset->field[0] == 9 && onset->field[2] == THRUM_ONSET_DROPPED);
    CHECK(fake_next(&f, THRUM_MSG_ONSET) == NULL);

    /* the next on-time event after a carried one is on time */
    boot_at(0);
    segment(1000, 100, 200, 200, 9);
    segment(1100, 100, 200, 200, 0);
    segment(3000, 100, 50, 50, 10);
    f.now = 1150;
    thrum_fw_poll(&fw);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL && onset->field[0] == 9 && onset->field[2] == THRUM_ONSET_LATE_TRIMMED);
    fake_run_until(&f, &fw, 3000, 10);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL && onset->field[0] == 10 && onset->field[2] == THRUM_ONSET_ON_TIME);
}

static void test_drop(void)
{
    fake_write_t w[8];
    const thrum_msg_t *onset;

    boot_at(0);
    segment(1000, 100, 200, 200, 9);
    segment(1100, 100, 200, 200, 10);
    segment(5000, 100, 50, 50, 11);
    f.now = 1300;
    thrum_fw_poll(&fw);
    CHECK_EQ(rtp_writes(w, 8), 0); /* never played outside its window */
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL && onset->field[0] == 9 && onset->field[1] == 1300 && onset->field[2] == THRUM_ONSET_DROPPED);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL && onset->field[0] == 10 && onset->field[2] == THRUM_ONSET_DROPPED);
    CHECK_EQ(thrum_fw_stats(&fw)->segments_dropped, 2);
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    fake_run_until(&f, &fw, 5000, 50);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL && onset->field[0] == 11 && onset->field[2] == THRUM_ONSET_ON_TIME);
}

/* An unmarked entry of an event's drive, reached after its window (a device held up mid-drive) or
 * arriving after it: no ONSET tells of the hole, so FAULT 12 names the entry's start. An unmarked
 * silent entry dropped leaves no hole: nothing is reported. */
static void test_unmarked_drop_is_a_fault(void)
{
    fake_write_t w[8];
    const thrum_msg_t *fault;

    boot_at(0);
    segment(1000, 1000, 200, 200, 5);
    segment(2000, 1000, 200, 200, 0);
    segment(3000, 1000, 150, 150, 0);
    segment(4000, 1000, 0, 0, 0);
    segment(5000, 1000, 0, 0, 0);
    fake_run_until(&f, &fw, 1100, 10);
    CHECK(fake_next(&f, THRUM_MSG_ONSET) != NULL);
    f.now = 3050; /* held up: the entry at 2000 was never reached in its window */
    thrum_fw_poll(&fw);
    CHECK_EQ(rtp_writes(w, 8), 2);
    CHECK(w[1].time >= 3050u && w[1].value == 150);
    fault = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(fault != NULL && fault->field[0] == THRUM_FAULT_DRIVE_DROPPED && fault->field[1] == 2000u);
    CHECK(fake_next(&f, THRUM_MSG_FAULT) == NULL);
    CHECK(fake_next(&f, THRUM_MSG_ONSET) == NULL);
    CHECK_EQ(thrum_fw_stats(&fw)->segments_dropped, 1);
    f.now = 5500; /* the silent entry at 4000 is dropped too: no hole, no fault */
    thrum_fw_poll(&fw);
    CHECK_EQ(thrum_fw_stats(&fw)->segments_dropped, 2);
    CHECK(fake_next(&f, THRUM_MSG_FAULT) == NULL);

    /* arriving after its end: dropped when reached, reported with its start */
    boot_at(20000);
    segment(10000, 1000, 90, 90, 0);
    thrum_fw_poll(&fw);
    CHECK_EQ(rtp_writes(w, 8), 0);
    fault = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(fault != NULL && fault->field[0] == THRUM_FAULT_DRIVE_DROPPED && fault->field[1] == 10000u);
}

static void test_gap_goes_to_zero_and_takeover(void)
{
    fake_write_t w[16];
    unsigned n;

    boot_at(0);
    f.i2c_cost_us = 0;
    segment(1000, 1000, 120, 120, 0);
    segment(3000, 5000, 60, 60, 0);   /* after a 1 ms gap */
    segment(4000, 1000, 255, 255, 0); /* takes over the previous one at its start */
    fake_run_until(&f, &fw, 9000, 10);
    n = rtp_writes(w, 16);
    CHECK_EQ(n, 5);
    CHECK(w[0].time == 1000 && w[0].value == 120);
    CHECK(w[1].time == 2000 && w[1].value == 0);
    CHECK(w[2].time == 3000 && w[2].value == 60);
    CHECK(w[3].time == 4000 && w[3].value == 255);
    CHECK(w[4].time == 5000 && w[4].value == 0);
    CHECK_EQ(thrum_fw_amplitude(&fw), 0);
}

static void test_stop(void)
{
    fake_write_t w[8];
    uint8_t p[1];

    boot_at(0);
    segment(1000, 100000, 200, 200, 1);
    segment(200000, 1000, 200, 200, 2);
    fake_run_until(&f, &fw, 5000, 100);
    fake_drop_output(&f);
    p[0] = THRUM_MSG_STOP;
    fake_send(&f, &fw, HOST_UNSEQ, 0, p, 1);
    /* 0 at once, in the receive call, before any poll */
    CHECK_EQ(rtp_writes(w, 8), 2);
    CHECK_EQ(w[1].value, 0);
    CHECK_EQ(w[1].time, 5000u + I2C_COST);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    CHECK_EQ(thrum_fw_free_slots(&fw), THRUM_FW_QUEUE_SLOTS);
    /* the discarded event never reports an onset */
    fake_run_until(&f, &fw, 300000, 1000);
    CHECK_EQ(fake_count(&f, THRUM_MSG_ONSET), 0);
    CHECK_EQ(rtp_writes(w, 8), 2);
}

static void test_watchdog(void)
{
    fake_write_t w[8];
    const thrum_msg_t *m;

    boot_at(0);
    segment(1000, 1000000, 90, 90, 0);
    segment(1001000, 1000000, 90, 90, 0);
    fake_run_until(&f, &fw, 500000, 1000);
    ping(); /* feeds the watchdog */
    fake_run_until(&f, &fw, 1499000, 1000);
    CHECK_EQ(thrum_fw_stats(&fw)->watchdog_stops, 0);
    CHECK_EQ(rtp_writes(w, 8), 2); /* each segment's start */
    CHECK_EQ(thrum_fw_amplitude(&fw), 90);
    /* 1 s after the ping: output to 0 and FAULT 5, once */
    fake_run_until(&f, &fw, 1500000, 1000);
    CHECK_EQ(thrum_fw_stats(&fw)->watchdog_stops, 1);
    CHECK_EQ(rtp_writes(w, 8), 3);
    CHECK_EQ(w[2].value, 0);
    CHECK(w[2].time <= 1500000u + I2C_COST);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_WATCHDOG_STOP);
    fake_run_until(&f, &fw, 4000000, 10000);
    CHECK_EQ(fake_count(&f, THRUM_MSG_FAULT), 0);
    CHECK_EQ(thrum_fw_stats(&fw)->watchdog_stops, 1);
    /* a new frame re-arms it */
    ping();
    fake_run_until(&f, &fw, 5000100, 10000);
    CHECK_EQ(thrum_fw_stats(&fw)->watchdog_stops, 2);

    /* before any host frame the watchdog is not armed */
    boot_at(0);
    fake_run_until(&f, &fw, 3000000, 10000);
    CHECK_EQ(thrum_fw_stats(&fw)->watchdog_stops, 0);
}

static void test_clock_wrap(void)
{
    fake_write_t w[64];
    unsigned n;
    const thrum_msg_t *onset;

    boot_at(0xFFFFF000u);
    f.i2c_cost_us = 0;
    /* a ramp across the 2^32 wrap, and one after it */
    segment(0xFFFFFC00u, 2048, 0, 255, 1);
    segment(0x00000800u, 1000, 40, 40, 2);
    fake_run_until(&f, &fw, 0x00001000u, 16);
    n = rtp_writes(w, 64);
    CHECK(n >= 5u);
    /* the ramp's first non-zero code comes at 0xFFFFFC00 + ceil(2048 / 510) = 0xFFFFFC05, written
     * at the next 16 µs poll (with the value the ramp has by then); that write is the onset (§4.1) */
    CHECK(w[0].value >= 1u && w[0].time - 0xFFFFFC05u < 16u);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL && onset->field[1] == w[0].time && onset->field[2] == THRUM_ONSET_ON_TIME);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL && onset->field[1] == 0x800u && onset->field[2] == THRUM_ONSET_ON_TIME);
    /* ramp, 0 in the gap at 0x400, 40, 0 at the end */
    CHECK(w[n - 3].value == 0 && w[n - 2].value == 40 && w[n - 1].value == 0);
    {
        unsigned i;
        for (i = 1; i + 3u < n; i++) {
            CHECK(w[i].value > w[i - 1].value); /* rising across the wrap */
        }
    }
}

static void test_telemetry_overflow_splits_frames(void)
{
    unsigned i;
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;

    boot_at(0);
    /* 28 segments (12 bytes each, 4 per frame) with large event ids, all dropped at once: every
     * ONSET must arrive */
    for (i = 0; i < 28u; i += 4u) {
        unsigned k;
        n = 0;
        for (k = 0; k < 4u; k++) {
            n = (uint8_t)(n + msg_segment(p + n, 1000u + (i + k) * 10u, 5, 0, 0, 0x0FFFFFFFu - i - k));
        }
        fake_send_next(&f, &fw, &seq, p, n);
    }
    f.now = 100000;
    thrum_fw_poll(&fw);
    CHECK_EQ(fake_count(&f, THRUM_MSG_ONSET), 28);
    CHECK(!f.bad_output);
}

/* An interpolation update due just before the next segment's start is left out: begun, its I2C
 * write would still hold the bus at the takeover and the marked onset would start late (the
 * late_trimmed passes of a long loop, whose update grid drifts across the next pass's start). */
static void test_update_left_out_before_a_takeover(void)
{
    fake_write_t w[16];
    unsigned n;
    const thrum_msg_t *onset;

    boot_at(0);
    /* a falling ramp from 1000: written at 1000 (returns 1073), next update due at the first
     * 10 µs poll from 1500 on, 1503; the marked segment starts 7 µs after that */
    segment(1000, 2000, 200, 0, 0);
    segment(1510, 2000, 150, 150, 9);
    fake_run_until(&f, &fw, 2000, 10);
    n = rtp_writes(w, 16);
    CHECK(n >= 2u);
    CHECK_EQ(w[0].time, 1000u + I2C_COST);
    CHECK_EQ(w[1].value, 150);
    CHECK(w[1].time <= 1510u + 10u + I2C_COST);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL && onset->field[0] == 9u && onset->field[2] == THRUM_ONSET_ON_TIME);
    /* an update with room before the next start is still written */
    boot_at(0);
    segment(1000, 2000, 200, 0, 0);
    segment(1700, 2000, 150, 150, 10);
    fake_run_until(&f, &fw, 2000, 10);
    n = rtp_writes(w, 16);
    CHECK(n >= 3u);
    CHECK_EQ(w[1].time, 1503u + I2C_COST);
    onset = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(onset != NULL && onset->field[0] == 10u && onset->field[2] == THRUM_ONSET_ON_TIME);
}

const test_case_t scheduler_tests[] = {
    {"scheduler: no interpolation update just before a takeover", test_update_left_out_before_a_takeover},
    {"scheduler: on-time onset at the write's return", test_on_time_onset},
    {"scheduler: interpolation, 500 us limit, only on change", test_interpolation_and_rate_limit},
    {"scheduler: late segments trimmed, 50 us tolerance", test_late_trim_and_tolerance},
    {"scheduler: segments past their end dropped", test_drop},
    {"scheduler: a dropped first entry's mark goes on with the event's drive", test_drop_carries_mark_to_continuation},
    {"scheduler: an unmarked entry dropped mid-drive is FAULT 12 with its start", test_unmarked_drop_is_a_fault},
    {"scheduler: gap writes 0; later segment takes over", test_gap_goes_to_zero_and_takeover},
    {"scheduler: STOP silences at once, no onsets", test_stop},
    {"scheduler: watchdog stops after 1 s of silence, once", test_watchdog},
    {"scheduler: segments across the 2^32 us wrap", test_clock_wrap},
    {"scheduler: many onsets split over several frames", test_telemetry_overflow_splits_frames},
    {NULL, NULL},
};
