/* The compact stream (PROTOCOL.md §3.4): SHAPE, PLAY_SHAPE and FOLLOW queue exactly the entries
 * the equivalent SEGMENTs queue (the same driver writes, ONSETs and credits), the cursor moves
 * with the sequenced lane only (CUT sets it, STOP and GO leave it), event deltas count from the
 * last marked entry, and a frame naming an undefined shape or overdrawing the queue runs nothing. */
#include <string.h>

#include "fake_hal.h"
#include "harness.h"

#if THRUM_FW_STREAM

static fake_t f;
static thrum_fw_t fw;
static uint8_t seq;

static void boot(void)
{
    fake_start(&f, &fw, 500, I2C_COST);
    seq = 0;
}

/* Send a sequenced frame; 1 when the device ran it (its ACK's next_seq moved on). *credits gets
 * the ACK's credits when not NULL. */
static int send_frame(const uint8_t *p, uint8_t n, uint32_t *credits)
{
    const thrum_msg_t *ack;
    int executed = fake_send_acked(&f, &fw, &seq, p, n, &ack);

    if (credits != NULL) {
        *credits = ack != NULL ? ack->field[4] : 0xFFFFu;
    }
    return executed;
}

/* uv helper */
static uint8_t put_uv(uint8_t *out, uint32_t v)
{
    return thrum_uvarint_encode(v, out);
}

/* SHAPE `id` from ramps {gap, duration, from, to} (docs/library.md shape encoding). */
static uint8_t msg_shape(uint8_t *out, uint8_t id, const uint32_t (*ramps)[4], uint8_t count)
{
    uint8_t data[THRUM_STREAM_SHAPE_BYTES];
    uint8_t n = 1;
    uint8_t prev_to = 0;
    uint8_t i;
    uint8_t k = 0;

    data[0] = count;
    for (i = 0; i < count; i++) {
        uint32_t head = ramps[i][1] << 2 | (ramps[i][0] != 0u ? 2u : 0u) | (ramps[i][2] != prev_to ? 1u : 0u);
        n = (uint8_t)(n + put_uv(data + n, head));
        if (ramps[i][0] != 0u) {
            n = (uint8_t)(n + put_uv(data + n, ramps[i][0]));
        }
        if (ramps[i][2] != prev_to) {
            data[n++] = (uint8_t)ramps[i][2];
        }
        data[n++] = (uint8_t)ramps[i][3];
        prev_to = (uint8_t)ramps[i][3];
    }
    out[k++] = THRUM_MSG_SHAPE;
    out[k++] = id;
    out[k++] = n;
    memcpy(out + k, data, n);
    return (uint8_t)(k + n);
}

static uint8_t msg_play(uint8_t *out, uint32_t after, uint8_t shape, uint32_t event)
{
    uint32_t fields[3];

    fields[0] = after;
    fields[1] = shape;
    fields[2] = event;
    return msg_any(out, THRUM_MSG_PLAY_SHAPE, 3, fields);
}

/* FOLLOW from pairs {duration, to}; bit i of `marks` flags pair i as marking the next event. */
static uint8_t msg_follow(uint8_t *out, uint32_t gap, uint32_t event, const uint32_t (*pairs)[2], uint8_t count, uint32_t marks)
{
    uint8_t data[THRUM_MAX_PAYLOAD];
    uint8_t n = 0;
    uint8_t k = 1;
    uint8_t i;

    for (i = 0; i < count; i++) {
        n = (uint8_t)(n + put_uv(data + n, pairs[i][0] << 1 | ((marks >> i) & 1u)));
        data[n++] = (uint8_t)pairs[i][1];
    }
    out[0] = THRUM_MSG_FOLLOW;
    k = (uint8_t)(k + put_uv(out + k, gap));
    k = (uint8_t)(k + put_uv(out + k, event));
    out[k++] = n;
    memcpy(out + k, data, n);
    return (uint8_t)(k + n);
}

static uint8_t msg_cut(uint8_t *out, uint32_t at)
{
    return msg_any(out, THRUM_MSG_CUT, 1, &at);
}

static const uint32_t transient[3][4] = {{0, 1430, 0, 255}, {0, 4000, 255, 166}, {0, 5500, 166, 0}};
static const uint32_t continuous[3][2] = {{8000, 200}, {20000, 120}, {9000, 0}};
static const uint32_t after_cut[2][2] = {{3000, 90}, {4000, 0}};

/* What the device did: its RTP writes and ONSETs, and the credits of each ACK. */
typedef struct outcome {
    fake_write_t w[512];
    unsigned nw;
    uint32_t onset[16][3];
    unsigned nonsets;
    uint32_t credits[8];
    unsigned nframes;
} outcome_t;

static void collect(outcome_t *o)
{
    const thrum_msg_t *m;

    fake_run_until(&f, &fw, 240000, 10);
    o->nw = fake_register_writes(&f, 0, DRV2605L_REG_RTP_INPUT, o->w, 512);
    o->nonsets = 0;
    while ((m = fake_next(&f, THRUM_MSG_ONSET)) != NULL && o->nonsets < 16u) {
        o->onset[o->nonsets][0] = m->field[0];
        o->onset[o->nonsets][1] = m->field[1];
        o->onset[o->nonsets][2] = m->field[2];
        o->nonsets++;
    }
}

/* The drive below, sent as SEGMENTs. */
static void play_segments(outcome_t *o)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n = 0;
    uint32_t base[2] = {20000, 170000};
    unsigned k;
    unsigned i;

    boot();
    o->nframes = 0;
    for (k = 0; k < 2u; k++) {
        uint32_t t = base[k];
        n = 0;
        for (i = 0; i < 3u; i++) {
            n = (uint8_t)(n + msg_segment(p + n, t, transient[i][1], (uint8_t)transient[i][2], (uint8_t)transient[i][3],
                                          i == 0u ? k + 1u : 0u));
            t += transient[i][1];
        }
        CHECK(send_frame(p, n, &o->credits[o->nframes++]));
    }
    n = 0;
    {
        uint32_t t = 170000u + 10930u + 10000u;
        uint8_t from = 0;
        for (i = 0; i < 3u; i++) {
            /* the second ramp marks an event of its own (FOLLOW's flag: the next event) */
            n = (uint8_t)(n + msg_segment(p + n, t, continuous[i][0], from, (uint8_t)continuous[i][1], i < 2u ? 3u + i : 0u));
            t += continuous[i][0];
            from = (uint8_t)continuous[i][1];
        }
    }
    CHECK(send_frame(p, n, &o->credits[o->nframes++]));
    fake_run_until(&f, &fw, 195000, 10);
    n = msg_cut(p, 200000);
    n = (uint8_t)(n + msg_segment(p + n, 200000, 3000, 0, 90, 0));
    n = (uint8_t)(n + msg_segment(p + n, 203000, 4000, 90, 0, 0));
    CHECK(send_frame(p, n, &o->credits[o->nframes++]));
    collect(o);
}

/* The same drive in the compact form. */
static void play_compact(outcome_t *o)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;

    boot();
    o->nframes = 0;
    /* after reset the cursor is at 0 with event 0: the first transient is 20000 µs after it */
    n = msg_shape(p, 3, transient, 3);
    n = (uint8_t)(n + msg_play(p + n, 20000, 3, 1));
    CHECK(send_frame(p, n, &o->credits[o->nframes++]));
    /* the cursor is the last ramp's start, 25430; NEXT_SHAPE marks the event after 1 */
    {
        uint32_t fields[2];
        fields[0] = 170000u - 25430u;
        fields[1] = 3;
        CHECK(send_frame(p, msg_any(p, THRUM_MSG_NEXT_SHAPE, 2, fields), &o->credits[o->nframes++]));
    }
    /* 10 ms after the last ramp's end (180930), from 0 since there is a gap; the second ramp's
     * flag marks event 4 */
    CHECK(send_frame(p, msg_follow(p, 10000, 1, continuous, 3, 2u), &o->credits[o->nframes++]));
    fake_run_until(&f, &fw, 195000, 10);
    n = msg_cut(p, 200000);
    n = (uint8_t)(n + msg_follow(p + n, 0, 0, after_cut, 2, 0u)); /* from `at`, from 0 */
    CHECK(send_frame(p, n, &o->credits[o->nframes++]));
    collect(o);
}

static outcome_t by_segments, by_compact;

static void test_stream_equals_segments(void)
{
    unsigned i;

    play_segments(&by_segments);
    play_compact(&by_compact);
    CHECK(by_segments.nw > 20u);
    CHECK_EQ(by_compact.nw, by_segments.nw);
    for (i = 0; i < by_segments.nw && i < by_compact.nw; i++) {
        CHECK_EQ(by_compact.w[i].time, by_segments.w[i].time);
        CHECK_EQ(by_compact.w[i].value, by_segments.w[i].value);
    }
    CHECK_EQ(by_segments.nonsets, 4);
    CHECK_EQ(by_compact.nonsets, by_segments.nonsets);
    for (i = 0; i < by_segments.nonsets && i < by_compact.nonsets; i++) {
        CHECK_EQ(by_compact.onset[i][0], i + 1u);
        CHECK_EQ(by_compact.onset[i][0], by_segments.onset[i][0]);
        CHECK_EQ(by_compact.onset[i][1], by_segments.onset[i][1]);
        CHECK_EQ(by_compact.onset[i][2], by_segments.onset[i][2]);
    }
    /* one slot per ramp, whatever message queued it */
    CHECK_EQ(by_compact.nframes, 4);
    for (i = 0; i < 4u; i++) {
        CHECK_EQ(by_compact.credits[i], by_segments.credits[i]);
    }
    CHECK_EQ(by_compact.credits[0], THRUM_FW_QUEUE_SLOTS - 3u);
    CHECK(!f.bad_output);
}

static void test_stream_cursor_rules(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    uint32_t fields[3];
    const thrum_stream_cursor_t *c = &fw.stream.cursor;

    boot();
    /* a SEGMENT moves the cursor: start, end, level, event */
    CHECK(send_frame(p, msg_segment(p, 100000, 2000, 0, 180, 7), NULL));
    CHECK_EQ(c->start, 100000);
    CHECK_EQ(c->end, 102000);
    CHECK_EQ(c->to, 180);
    CHECK_EQ(c->event, 7);
    /* FOLLOW with no gap starts at the end, from its level; its event is the last one + n */
    CHECK(send_frame(p, msg_follow(p, 0, 2, after_cut, 1, 0u), NULL));
    CHECK_EQ(fw.sched.queue[1].start, 102000);
    CHECK_EQ(fw.sched.queue[1].from, 180);
    CHECK_EQ(fw.sched.queue[1].event, 9);
    CHECK_EQ(c->event, 9);
    CHECK_EQ(c->start, 102000);
    CHECK_EQ(c->end, 105000);
    /* GO (any lane) queues entries but leaves the cursor */
    n = 0;
    p[n++] = THRUM_MSG_PRELOAD_BEGIN;
    p[n++] = 0;
    n = (uint8_t)(n + msg_segment(p + n, 0, 1000, 50, 50, 1));
    p[2] = THRUM_MSG_PRELOAD_SEGMENT;
    CHECK(send_frame(p, n, NULL));
    fields[0] = 0;
    fields[1] = 300000;
    fields[2] = 100;
    n = msg_any(p, THRUM_MSG_GO, 3, fields);
    fake_send(&f, &fw, HOST_SEQ | THRUM_CTRL_UNSEQ, 0, p, n);
    CHECK_EQ(thrum_fw_queued(&fw), 3);
    CHECK_EQ(c->start, 102000);
    CHECK_EQ(c->event, 9);
    /* so a PLAY_SHAPE that would start before the GO'd entry breaks the order rule: refused */
    n = msg_shape(p, 0, transient, 3);
    n = (uint8_t)(n + msg_play(p + n, 1000, 0, 1));
    CHECK(!send_frame(p, n, NULL));
    CHECK_EQ(thrum_fw_queued(&fw), 3);
    CHECK_EQ(fw.stream.shape_len[0], 0); /* nothing of the refused frame ran */
    /* STOP leaves the cursor; CUT sets it to `at`, level 0 */
    fake_send(&f, &fw, HOST_SEQ | THRUM_CTRL_UNSEQ, 1, (const uint8_t *)"\x03", 1);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    CHECK_EQ(c->start, 102000);
    CHECK(send_frame(p, msg_cut(p, 400000), NULL));
    CHECK_EQ(c->start, 400000);
    CHECK_EQ(c->end, 400000);
    CHECK_EQ(c->to, 0);
    CHECK_EQ(c->event, 9);
    /* a ROM effect moves it to its start, level 0 */
    fields[0] = 450000;
    fields[1] = 47;
    fields[2] = 0;
    CHECK(send_frame(p, msg_any(p, THRUM_MSG_ROM_EFFECT, 3, fields), NULL));
    CHECK_EQ(c->start, 450000);
    CHECK_EQ(c->end, 450000);
    CHECK(!f.bad_output);
}

static void test_stream_refusals(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    unsigned i;
    uint32_t credits = 0;
    const thrum_msg_t *m;

    boot();
    /* a FOLLOW whose first ramp is marked twice (its `event` and its flag) does not parse */
    CHECK(!send_frame(p, msg_follow(p, 0, 1, after_cut, 1, 1u), NULL));
    CHECK(send_frame(p, msg_follow(p, 0, 0, after_cut, 1, 1u), NULL));
    CHECK_EQ(fw.sched.queue[0].event, 1);
    fake_send(&f, &fw, HOST_SEQ | THRUM_CTRL_UNSEQ, 9, (const uint8_t *)"\x03", 1);
    /* a shape never defined: the frame runs nothing and is not acknowledged as run */
    CHECK(!send_frame(p, msg_play(p, 5000, 9, 1), NULL));
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    /* defined earlier in the same payload: fine, and a redefinition replaces it */
    n = msg_shape(p, 9, transient, 1);
    n = (uint8_t)(n + msg_play(p + n, 5000, 9, 0));
    n = (uint8_t)(n + msg_shape(p + n, 9, transient, 3));
    n = (uint8_t)(n + msg_play(p + n, 5000, 9, 0));
    CHECK(send_frame(p, n, &credits));
    CHECK_EQ(thrum_fw_queued(&fw), 4);
    CHECK_EQ(credits, THRUM_FW_QUEUE_SLOTS - 4u);
    CHECK_EQ(fw.sched.queue[1].start, 10000);
    CHECK_EQ(fw.sched.queue[3].start, 10000u + 1430u + 4000u);
    /* fill the queue to two free slots: a three-ramp PLAY_SHAPE overdraws it (FAULT 6) */
    for (i = 0; thrum_fw_queued(&fw) < THRUM_FW_QUEUE_SLOTS - 2u; i++) {
        CHECK(send_frame(p, msg_segment(p, 50000u + 1000u * i, 500, 10, 10, 0), NULL));
    }
    CHECK(!send_frame(p, msg_play(p, 1000, 9, 0), &credits));
    CHECK_EQ(credits, 2);
    CHECK_EQ(thrum_fw_queued(&fw), THRUM_FW_QUEUE_SLOTS - 2u);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_FLOW_CONTROL);
    /* a CUT ahead of it in the payload frees the slots it needs */
    n = msg_cut(p, 60000);
    n = (uint8_t)(n + msg_play(p + n, 0, 9, 0));
    CHECK(send_frame(p, n, NULL));
    CHECK_EQ(fw.sched.queue[(fw.sched.head + fw.sched.count - 3u) % THRUM_FW_QUEUE_SLOTS].start, 60000);
    CHECK(!f.bad_output);
}

const test_case_t stream_tests[] = {
    {"stream: compact messages play exactly as the SEGMENTs they stand for", test_stream_equals_segments},
    {"stream: the cursor moves with the sequenced lane only; CUT sets it", test_stream_cursor_rules},
    {"stream: undefined shape and overdrawn queue refuse the frame", test_stream_refusals},
    {NULL, NULL},
};

#else
const test_case_t stream_tests[] = {
    {NULL, NULL},
};
#endif
