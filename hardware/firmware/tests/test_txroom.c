/* A port's transmit ring that fills (HAL serial_room): the core writes whole frames that fit, an
 * ACK-only frame that does not fit is left to the next frame (ACKs are cumulative, the newest
 * clock sample kept), reports wait in the outbox, and nothing is dropped. The ring is the AVR's:
 * 127 usable bytes drained at 115 200 baud (87 µs a byte). The scenario is the one that lost
 * reports on the AVR (docs/avr-simulation.md): 18 transients in 170 ms while the host sends bursts
 * of frames (retransmissions and pings), each drawing an ACK. */
#include <string.h>

#include "fake_hal.h"
#include "harness.h"

#define RING 127u
#define BYTE_US 87u
#define TRANSIENTS 18u
#define FIRST_START 20000u
#define SPACING 9400u

static fake_t f;
static thrum_fw_t fw;

typedef struct outcome {
    unsigned onsets[TRANSIENTS + 1u]; /* ONSETs received per event (repeats dropped) */
    unsigned on_time;                 /* of them with status on time */
    unsigned events_reported;         /* events with exactly one ONSET */
    unsigned host_frames;             /* frames sent after the pattern was queued */
    unsigned device_frames;           /* frames the device sent meanwhile */
    uint8_t last_ctrl;                /* the last host frame: CTRL, SEQ, arrival */
    uint8_t last_seq;
    uint32_t last_time;
} outcome_t;

static void ping(outcome_t *o)
{
    uint8_t p[4];
    uint8_t ctrl = (uint8_t)(THRUM_CTRL_MARK_HOST | THRUM_CTRL_UNSEQ);

    o->last_time = f.now; /* its arrival: handling it takes the clock on */
    fake_send(&f, &fw, ctrl, 9, p, msg_plain(p, THRUM_MSG_PING));
    o->host_frames++;
    o->last_ctrl = ctrl;
    o->last_seq = 9;
}

/* A copy of an already accepted sequenced frame (a go-back-N resend): it draws an ACK. */
static void resend(outcome_t *o, uint8_t seq)
{
    uint8_t p[4];

    o->last_time = f.now;
    fake_send(&f, &fw, HOST_SEQ, seq, p, msg_plain(p, THRUM_MSG_PING));
    o->host_frames++;
    o->last_ctrl = HOST_SEQ;
    o->last_seq = seq;
}

/* Boot, queue the 18 transients (three a frame, `spacing` µs apart, each half as long), then
 * every millisecond a burst of six host frames until the pattern is over, then quiet; `tell_room`: the
 * HAL has serial_room; the line takes `line_byte_us` a byte. */
static void play(outcome_t *o, int tell_room, uint32_t line_byte_us, uint32_t spacing)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t seq = 0;
    unsigned i;
    unsigned frames_before;
    uint32_t t;
    size_t k;

    memset(o, 0, sizeof(*o));
    fake_start(&f, &fw, 1000, I2C_COST);
    for (i = 0; i < TRANSIENTS; i += 3u) {
        uint8_t n = 0;
        unsigned j;
        for (j = i; j < i + 3u && j < TRANSIENTS; j++) {
            n = (uint8_t)(n + msg_segment(p + n, FIRST_START + j * spacing, spacing / 2u, 100, 100, j + 1u));
        }
        fake_send_next(&f, &fw, &seq, p, n);
    }
    fake_drop_output(&f);
    frames_before = f.frames;
    fake_limit_tx(&f, RING, line_byte_us, tell_room);
    for (t = 10000; t < FIRST_START + TRANSIENTS * spacing; t += 1000u) {
        fake_run_until(&f, &fw, t, 50);
        for (i = 0; i < 3u; i++) {
            resend(o, (uint8_t)(seq - 1u - i));
            ping(o);
        }
    }
    fake_run_until(&f, &fw, t + 100000u, 50);
    fake_decode(&f);
    o->device_frames = f.frames - frames_before;
    for (k = f.taken; k < f.nmsgs; k++) {
        const thrum_msg_t *m = &f.msgs[k].msg;
        if (m->id == THRUM_MSG_ONSET && m->field[0] >= 1u && m->field[0] <= TRANSIENTS) {
            o->onsets[m->field[0]]++;
            o->on_time += m->field[2] == THRUM_ONSET_ON_TIME;
        }
    }
    for (i = 1; i <= TRANSIENTS; i++) {
        o->events_reported += o->onsets[i] == 1u;
    }
}

/* The last ACK the device sent. */
static const thrum_msg_t *last_ack(void)
{
    size_t k = f.nmsgs;

    while (k > 0u) {
        k--;
        if (f.msgs[k].msg.id == THRUM_MSG_ACK) {
            return &f.msgs[k].msg;
        }
    }
    return NULL;
}

/* The control: without serial_room the traffic overfills the ring (on a line at half the speed:
 * at full speed the 2 ms drive lead alone drains room for a report) and frames are cut, reports
 * with them, so the scenario is one that tests the fix. */
static void test_without_room_reports_are_lost(void)
{
    outcome_t o;

    play(&o, 0, 2u * BYTE_US, SPACING);
    CHECK(f.tx_dropped > 0u);
    CHECK(f.bad_output);
    CHECK(o.events_reported < TRANSIENTS);
}

static void test_full_ring_loses_no_report(void)
{
    outcome_t o;
    const thrum_msg_t *ack;
    unsigned i;

    play(&o, 1, BYTE_US, SPACING);
    CHECK_EQ(f.tx_dropped, 0u);
    CHECK(!f.bad_output); /* every frame whole: no CRC failure, no stray byte */
    for (i = 1; i <= TRANSIENTS; i++) {
        CHECK_EQ(o.onsets[i], 1u);
    }
    CHECK_EQ(o.on_time, TRANSIENTS); /* no report waited for room at the drive's expense */
    /* ACKs coalesced: far fewer device frames than host frames that drew an ACK */
    CHECK(o.device_frames < o.host_frames);
    CHECK(o.device_frames >= 1u);
    /* the last ACK is the newest: next sequence number, and the last host frame's clock sample */
    ack = last_ack();
    CHECK(ack != NULL);
    if (ack != NULL) {
        CHECK_EQ(ack->field[0], 6u); /* next_seq: six pattern frames accepted */
        CHECK_EQ(ack->field[1], o.last_ctrl);
        CHECK_EQ(ack->field[2], o.last_seq);
        CHECK_EQ(ack->field[3], o.last_time);
    }

    /* the control's scenario, with serial_room */
    play(&o, 1, 2u * BYTE_US, SPACING);
    CHECK_EQ(f.tx_dropped, 0u);
    CHECK(!f.bad_output);
    CHECK_EQ(o.events_reported, TRANSIENTS);
}

/* A line at half the speed and a transient every millisecond: more reports than the line
 * carries, so the outbox fills while the ring is full and the report that finds it full waits
 * for room (the forced flush, the clock running on) rather than being dropped. */
static void test_slow_line_holds_reports_until_room(void)
{
    outcome_t o;
    unsigned i;

    play(&o, 1, 2u * BYTE_US, 1000u);
    CHECK(f.tx_spin_max > 100u); /* it waited: 100 µs and more polling the room */
    CHECK(f.tx_spin_max < THRUM_FW_TX_WAIT_US); /* and the room came before the wait gave up */
    CHECK_EQ(f.tx_dropped, 0u);
    CHECK(!f.bad_output);
    for (i = 1; i <= TRANSIENTS; i++) {
        CHECK_EQ(o.onsets[i], 1u);
    }
}

/* IDENTIFY while the ring is full: the reply cannot be left to a later frame, so the core waits
 * until the ring has room for it (no longer than it takes to drain) and sends it whole. */
static void test_identify_waits_for_room(void)
{
    uint8_t p[4];
    unsigned i;
    uint32_t before;
    const thrum_msg_t *m;

    fake_start(&f, &fw, 1000, I2C_COST);
    fake_limit_tx(&f, RING, BYTE_US, 1);
    for (i = 0; i < 12u; i++) {
        fake_send(&f, &fw, (uint8_t)(THRUM_CTRL_MARK_HOST | THRUM_CTRL_UNSEQ), 9, p, msg_plain(p, THRUM_MSG_PING));
    }
    CHECK(f.tx_queued + 16u > RING); /* no room left for another ACK frame */
    before = f.now;
    fake_send(&f, &fw, (uint8_t)(THRUM_CTRL_MARK_HOST | THRUM_CTRL_UNSEQ), 10, p, msg_plain(p, THRUM_MSG_IDENTIFY));
    CHECK(f.now - before < THRUM_FW_TX_WAIT_US);
    CHECK(f.tx_spin_max > BYTE_US); /* it did wait for the line */
    CHECK_EQ(f.tx_dropped, 0u);
    m = fake_next(&f, THRUM_MSG_IDENTIFY_REPLY);
    CHECK(m != NULL);
    CHECK(!f.bad_output);
}

/* Without serial_room (the virtual device) every host frame still gets its own ACK frame at once. */
static void test_no_room_hook_keeps_one_ack_per_frame(void)
{
    uint8_t p[4];
    unsigned i;
    unsigned frames;

    fake_start(&f, &fw, 1000, I2C_COST);
    fake_decode(&f);
    frames = f.frames;
    for (i = 0; i < 20u; i++) {
        fake_send(&f, &fw, (uint8_t)(THRUM_CTRL_MARK_HOST | THRUM_CTRL_UNSEQ), (uint8_t)i, p, msg_plain(p, THRUM_MSG_PING));
    }
    fake_decode(&f);
    CHECK_EQ(f.frames - frames, 20u);
    CHECK_EQ(f.tx_room_calls, 0u);
}

const test_case_t txroom_tests[] = {
    {"tx room: without serial_room the dense scenario loses reports (control)", test_without_room_reports_are_lost},
    {"tx room: a full ring loses no ONSET, ACKs coalesce, the last ACK is the newest", test_full_ring_loses_no_report},
    {"tx room: a slow line fills the outbox: reports wait for room, none dropped", test_slow_line_holds_reports_until_room},
    {"tx room: IDENTIFY_REPLY waits for room and goes whole", test_identify_waits_for_room},
    {"tx room: no serial_room: one ACK frame per host frame, as before", test_no_room_hook_keeps_one_ack_per_frame},
    {NULL, NULL},
};
