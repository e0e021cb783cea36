/* ACK departures (PROTOCOL.md §3.7, protocol version 4): thrum_fw_usb_in_done, the byte counts,
 * the one pending fresh ACK and DEPARTURE in the device frames. The tests play the port: they hand
 * the core's output to the "host" with thrum_fw_usb_in_done, up to a byte count of their choice. */
#include <string.h>

#include "fake_hal.h"
#include "harness.h"

#define HOST_UNSEQ (THRUM_CTRL_MARK_HOST | THRUM_CTRL_UNSEQ)

static fake_t f;
static thrum_fw_t fw;
static uint32_t out_base; /* output bytes written before f.serial was last emptied */
static uint32_t given;    /* output bytes handed to the host so far (thrum_fw_usb_in_done) */

static void boot(void)
{
    fake_start(&f, &fw, 1000, I2C_COST);
    out_base = 0;
    given = 0;
}

/* The device's output so far, in bytes since boot. */
static uint32_t out_total(void)
{
    return out_base + (uint32_t)f.nserial;
}

/* The host's IN transfer took the output up to byte `upto` (counted since boot) and completed at
 * device time `time`. */
static void take_up_to(uint32_t upto, uint32_t time)
{
    thrum_fw_usb_in_done(&fw, (uint16_t)(upto - given), time);
    given = upto;
}

/* An any-lane frame of FRAME_TIMES(`interval_ms`). */
static void frame_times(uint32_t interval_ms)
{
    uint8_t p[8];

    fake_send(&f, &fw, HOST_UNSEQ, 0, p, msg_any(p, THRUM_MSG_FRAME_TIMES, 1, &interval_ms));
}

static void ping(void)
{
    uint8_t p[1];

    fake_send(&f, &fw, HOST_UNSEQ, 0, p, msg_plain(p, THRUM_MSG_PING));
}

/* The DEPARTUREs the device sent since the output was last dropped: how many, and the last one in
 * `*last` (when there is one); then the output is dropped. Each must come right behind the ACK, or
 * right behind a FRAME_TIME that is right behind it. */
static unsigned take_departures(thrum_msg_t *last)
{
    unsigned count = 0;
    size_t i;

    fake_decode(&f);
    CHECK(!f.bad_output);
    for (i = f.taken; i < f.nmsgs; i++) {
        if (f.msgs[i].msg.id == THRUM_MSG_DEPARTURE) {
            CHECK(i > 0 && f.msgs[i - 1].frame == f.msgs[i].frame);
            CHECK((f.msgs[i].index == 1 && f.msgs[i - 1].msg.id == THRUM_MSG_ACK) ||
                  (f.msgs[i].index == 2 && f.msgs[i - 1].msg.id == THRUM_MSG_FRAME_TIME));
            count++;
            if (last != NULL) {
                *last = f.msgs[i].msg;
            }
        }
    }
    fake_drop_output(&f);
    return count;
}

/* Empty the fake's output log (it holds 64 KiB and 2048 messages) for long runs. */
static void forget_output(void)
{
    fake_drop_output(&f);
    out_base += (uint32_t)f.nserial;
    f.nserial = 0;
    f.decoded_upto = 0;
    f.nmsgs = 0;
    f.taken = 0;
}

static void test_identify_reports_version_4(void)
{
    uint8_t p[1];
    const thrum_msg_t *reply;

    boot();
    fake_send(&f, &fw, HOST_UNSEQ, 0, p, msg_plain(p, THRUM_MSG_IDENTIFY));
    fake_decode(&f);
    reply = fake_next(&f, THRUM_MSG_IDENTIFY_REPLY);
    CHECK(reply != NULL && reply->field[0] == (THRUM_FW_SESSIONS ? 5u : 4u));
    CHECK_EQ(THRUM_PROTOCOL_VERSION, 5u);
}

static void test_fresh_ack_reported_when_taken(void)
{
    thrum_msg_t m;
    uint32_t end;

    boot();
    f.now = 5000;
    frame_times(100); /* its own ACK is the first fresh one while they are on */
    end = out_total();
    CHECK(end > 0u);
    CHECK_EQ(take_departures(NULL), 0u);

    /* the IN transfers take all but the frame's last byte, then that byte */
    take_up_to(end - 1u, 5300);
    take_up_to(end, 5750);
    CHECK_EQ(take_departures(NULL), 0u); /* no frame for it alone */
    f.now = 9000;
    thrum_fw_poll(&fw);
    CHECK_EQ(take_departures(NULL), 0u);

    ping(); /* the next frame the device sends anyway */
    CHECK_EQ(take_departures(&m), 1u);
    CHECK_EQ(m.field_count, 2u);
    CHECK_EQ(m.field[0], 5000u); /* the rx_time of the ACK that left */
    CHECK_EQ(m.field[1], 750u);  /* it left 750 µs after that */
}

static void test_not_enough_bytes_reports_none(void)
{
    thrum_msg_t m;
    uint32_t end;
    uint32_t rx;

    boot();
    frame_times(100);
    end = out_total();
    take_up_to(end - 1u, f.now + 200u); /* the frame's last byte is still in the device */
    f.now += 1000;
    ping();
    CHECK_EQ(take_departures(NULL), 0u);

    /* the ping's ACK is pending now: taking every byte reports it, not the older one */
    rx = f.now;
    end = out_total();
    take_up_to(end, rx + 80u);
    f.now += 1000;
    ping();
    CHECK_EQ(take_departures(&m), 1u);
    CHECK_EQ(m.field[0], rx);
    CHECK_EQ(m.field[1], 80u);
}

static void test_off_while_interval_zero(void)
{
    boot();
    ping(); /* FRAME_TIMES 0 after reset */
    take_up_to(out_total(), f.now + 100u);
    f.now += 1000;
    ping();
    CHECK_EQ(take_departures(NULL), 0u);
    take_up_to(out_total(), f.now + 100u);
    f.now += 1000;
    ping();
    CHECK_EQ(take_departures(NULL), 0u);

    /* on, then off before the departure is reported: it is not */
    frame_times(10);
    take_up_to(out_total(), f.now + 100u);
    f.now += 1000;
    frame_times(0);
    CHECK_EQ(take_departures(NULL), 0u);
    take_up_to(out_total(), f.now + 100u);
    f.now += 1000;
    ping();
    CHECK_EQ(take_departures(NULL), 0u);
    /* on again: only ACKs sent since count */
    f.now += 1000;
    frame_times(10);
    CHECK_EQ(take_departures(NULL), 0u);
    take_up_to(out_total(), f.now + 40u);
    f.now += 1000;
    ping();
    CHECK_EQ(take_departures(NULL), 1u);
}

/* The ACK an unsolicited frame (reports sent by thrum_fw_poll) repeats is not fresh: its departure
 * is later than the first copy's and is never reported. */
static void test_repeated_ack_never_reported(void)
{
    uint8_t p[32];
    uint8_t n;
    uint8_t seq = 0;
    thrum_msg_t m;
    uint32_t rx;
    unsigned frames;

    boot();
    frame_times(100);
    CHECK_EQ(take_departures(NULL), 0u);
    f.now = 2000;
    rx = f.now;
    /* two marked segments: their ONSETs go out later in frames of the device's own */
    n = msg_segment(p, 10000, 1000, 0, 200, 1);
    n = (uint8_t)(n + msg_segment(p + n, 20000, 1000, 0, 200, 2));
    fake_send_next(&f, &fw, &seq, p, n);
    take_up_to(out_total(), rx + 300u); /* the SEGMENT frame's ACK left */
    CHECK_EQ(take_departures(NULL), 0u);

    frames = f.frames;
    fake_run_until(&f, &fw, 12000, 100); /* the first ONSET's frame carries the departure */
    fake_decode(&f);
    CHECK_EQ(f.frames - frames, 1u);
    CHECK_EQ(fake_count(&f, THRUM_MSG_ONSET), 1u);
    CHECK_EQ(take_departures(&m), 1u);
    CHECK_EQ(m.field[0], rx);
    CHECK_EQ(m.field[1], 300u);

    /* that frame repeated the ACK: taking it reports nothing, in the next frame or later */
    take_up_to(out_total(), f.now + 100u);
    frames = f.frames;
    fake_run_until(&f, &fw, 22000, 100);
    fake_decode(&f);
    CHECK_EQ(f.frames - frames, 1u);
    CHECK_EQ(fake_count(&f, THRUM_MSG_ONSET), 1u);
    CHECK_EQ(take_departures(NULL), 0u);
    take_up_to(out_total(), f.now + 100u);
    f.now += 1000;
    ping();
    CHECK_EQ(take_departures(NULL), 0u);
}

static void test_newer_fresh_ack_replaces_pending(void)
{
    thrum_msg_t m;
    uint32_t first_end;
    uint32_t rx;

    boot();
    frame_times(100);
    first_end = out_total();
    f.now += 500;
    rx = f.now;
    ping(); /* sent before the first one left: it replaces it */
    take_up_to(first_end, rx + 100u); /* the first ACK's frame leaves: not reported */
    f.now += 1000;
    CHECK_EQ(take_departures(NULL), 0u);
    take_up_to(out_total(), rx + 400u); /* the ping's frame leaves */
    ping();
    CHECK_EQ(take_departures(&m), 1u);
    CHECK_EQ(m.field[0], rx);
    CHECK_EQ(m.field[1], 400u);
}

/* Host frames that arrive in one piece share their rx_time: the DEPARTURE names the first ACK the
 * device sent with it (the host matches it to the first ACK it received with it), and only once. */
static void test_frames_together_report_the_first_ack(void)
{
    uint8_t p[1];
    uint8_t frames[2 * (THRUM_FRAME_OVERHEAD + 1u)];
    uint8_t n;
    uint32_t first_end;
    thrum_msg_t m;
    uint32_t rx;

    boot();
    frame_times(100);
    CHECK_EQ(take_departures(NULL), 0u);
    take_up_to(out_total(), f.now + 10u);
    f.now += 1000;
    rx = f.now;
    msg_plain(p, THRUM_MSG_PING);
    n = thrum_frame_encode(frames, HOST_UNSEQ, 1, p, 1);
    n = (uint8_t)(n + thrum_frame_encode(frames + n, HOST_UNSEQ, 2, p, 1));
    thrum_fw_receive(&fw, frames, n, rx); /* two ACKs with rx_time rx */
    fake_decode(&f);
    CHECK_EQ(fake_count(&f, THRUM_MSG_ACK), 2u);
    /* the first ACK's frame (with the FRAME_TIMES ACK's departure) ends LEN + 6 bytes on */
    first_end = given + f.serial[given - out_base + 1u] + THRUM_FRAME_OVERHEAD;
    CHECK_EQ(take_departures(NULL), 1u);
    take_up_to(first_end, rx + 100u);
    f.now += 1000;
    ping();
    CHECK_EQ(take_departures(&m), 1u);
    CHECK_EQ(m.field[0], rx);
    CHECK_EQ(m.field[1], 100u);
    take_up_to(out_total(), f.now + 10u); /* the second one's frame: not reported */
    f.now += 1000;
    rx = f.now - 1000u;
    ping();
    CHECK_EQ(take_departures(&m), 1u); /* the ping's, sent after them */
    CHECK_EQ(m.field[0], rx);
}

static void test_sent_once(void)
{
    unsigned i;

    boot();
    frame_times(100);
    take_up_to(out_total(), f.now + 10u);
    f.now += 1000;
    ping();
    CHECK_EQ(take_departures(NULL), 1u);
    /* nothing more is taken: the pings that follow report nothing */
    for (i = 0; i < 5u; i++) {
        f.now += 1000;
        ping();
        CHECK_EQ(take_departures(NULL), 0u);
    }
}

/* More than 64 KiB of output: both 16-bit counts wrap, the departures stay right. Each ping's
 * ACK leaves before the next ping, whose frame reports it. */
static void test_counts_wrap(void)
{
    thrum_msg_t m;
    uint32_t rx = 0;
    unsigned i;
    unsigned reported = 0;
    unsigned straddled = 0; /* frames that began before a wrap of the counts and ended after it */
    int wrong = 0;

    boot();
    frame_times(100);
    for (i = 0; out_total() < 70000u; i++) {
        uint32_t wait = 1u + i % 1000u;
        /* the frame's first byte, then the rest: across the wrap, the first part has a count
         * above the frame's end as unsigned numbers, and must not count as its departure */
        straddled += (given >> 16) != ((out_total() - 1u) >> 16);
        take_up_to(given + 1u, rx + wait - 1u);
        take_up_to(out_total(), rx + wait);
        f.now += 1000;
        rx = f.now;
        ping();
        if (take_departures(&m) == 1u) {
            reported++;
            wrong |= m.field[0] != rx - 1000u || m.field[1] != wait;
        }
        forget_output();
    }
    CHECK_EQ(reported, i - 1u); /* all but the first ping (FRAME_TIMES' ACK has rx_time 0 there) */
    CHECK(!wrong);
    CHECK_EQ(straddled, 1u);
    CHECK_EQ(fw.departures.written, (uint16_t)out_total()); /* every byte went through the count */
    CHECK_EQ(fw.departures.taken, (uint16_t)given);
}

/* Both due: ACK, FRAME_TIME, DEPARTURE. */
static void test_behind_frame_time(void)
{
    thrum_msg_t m;

    boot();
    f.now = 3000;
    frame_times(100);
    CHECK_EQ(take_departures(NULL), 0u);
    take_up_to(out_total(), 3100);
    thrum_fw_usb_sof(&fw, 17, 3500);
    f.now = 4000;
    ping();
    fake_decode(&f);
    CHECK_EQ(fake_count(&f, THRUM_MSG_FRAME_TIME), 1u);
    CHECK_EQ(take_departures(&m), 1u); /* and at index 2, behind the FRAME_TIME */
    CHECK_EQ(m.field[0], 3000u);
    CHECK_EQ(m.field[1], 100u);
}

/* A frame whose reports leave no room for it: DEPARTURE waits for the next frame. The ACK of the
 * frame that had no room is not reported then (the one that waits keeps its place). */
static void test_waits_when_it_does_not_fit(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    uint8_t i;
    thrum_msg_t m;
    uint32_t rx;

    boot();
    f.now = 2000;
    frame_times(100);
    take_up_to(out_total(), 2600);
    f.now = 3000;
    /* IDENTIFY and eight GOs of empty slots: IDENTIFY_REPLY, CAPABILITIES and eight FAULT 8 */
    n = msg_plain(p, THRUM_MSG_IDENTIFY);
    for (i = 0; i < 8u; i++) {
        uint32_t go[3] = {i & 3u, 1000000u, 0u};
        n = (uint8_t)(n + msg_any(p + n, THRUM_MSG_GO, 3, go));
    }
    fake_send(&f, &fw, HOST_UNSEQ, 0, p, n);
    fake_decode(&f);
    CHECK_EQ(fake_count(&f, THRUM_MSG_FAULT), 8u);
    CHECK_EQ(take_departures(NULL), 0u);
    take_up_to(out_total(), 3200);
    f.now = 4000;
    rx = f.now;
    ping();
    CHECK_EQ(take_departures(&m), 1u);
    CHECK_EQ(m.field[0], 2000u);
    CHECK_EQ(m.field[1], 600u);
    /* the ping's ACK is the pending one now */
    take_up_to(out_total(), rx + 50u);
    f.now = 5000;
    ping();
    CHECK_EQ(take_departures(&m), 1u);
    CHECK_EQ(m.field[0], rx);
    CHECK_EQ(m.field[1], 50u);
}

/* An ACK the port had no room for goes in a later frame: that frame carries it first, so it is
 * the fresh one, and its departure counts from that frame's bytes. */
static void test_owed_ack_is_fresh_when_it_goes(void)
{
    thrum_msg_t m;
    uint32_t rx;
    uint32_t left;

    boot();
    frame_times(100);
    take_up_to(out_total(), f.now + 10u);
    fake_drop_output(&f);
    fake_limit_tx(&f, 64, 100, 1);
    f.tx_queued = 60; /* 4 bytes free, one more every 100 µs */
    f.now += 1000;
    rx = f.now;
    ping();
    CHECK_EQ(take_departures(NULL), 0u); /* not sent: the ACK is owed */
    f.now += 3000;
    thrum_fw_poll(&fw); /* room: the owed ACK goes, with the FRAME_TIMES ACK's departure */
    CHECK_EQ(take_departures(&m), 1u);
    CHECK_EQ(m.field[1], 10u);
    left = f.now + 20u;
    take_up_to(out_total(), left);
    f.now += 3000;
    ping();
    CHECK_EQ(take_departures(&m), 1u);
    CHECK_EQ(m.field[0], rx);
    CHECK_EQ(m.field[1], left - rx);
    CHECK_EQ(f.tx_dropped, 0u);
}

/* wait is 0..1 000 000: an ACK that left later than that is not reported. */
static void test_wait_range(void)
{
    thrum_msg_t m;
    uint32_t rx;

    boot();
    f.now = 0xFFFFFF00u; /* rx_time + wait wraps */
    rx = f.now;
    frame_times(100);
    take_up_to(out_total(), rx + THRUM_DEPARTURE_MAX_WAIT_US);
    f.now += 1000;
    ping();
    CHECK_EQ(take_departures(&m), 1u);
    CHECK_EQ(m.field[0], rx);
    CHECK_EQ(m.field[1], THRUM_DEPARTURE_MAX_WAIT_US);

    rx = f.now;
    take_up_to(out_total(), rx + THRUM_DEPARTURE_MAX_WAIT_US + 1u);
    f.now += 1000;
    ping();
    CHECK_EQ(take_departures(NULL), 0u);
    /* a port time before rx_time: not reported either */
    take_up_to(out_total(), f.now - 1000u - 1u);
    f.now += 1000;
    ping();
    CHECK_EQ(take_departures(NULL), 0u);
    /* wait 0 */
    take_up_to(out_total(), f.now);
    rx = f.now;
    f.now += 1000;
    ping();
    CHECK_EQ(take_departures(&m), 1u);
    CHECK_EQ(m.field[0], rx);
    CHECK_EQ(m.field[1], 0u);
}

/* A board without native USB never calls thrum_fw_usb_in_done: no DEPARTURE. */
static void test_no_in_completions_none(void)
{
    unsigned i;

    boot();
    frame_times(100);
    for (i = 0; i < 10u; i++) {
        f.now += 1000;
        ping();
        CHECK_EQ(take_departures(NULL), 0u);
    }
}

static void test_reset_clears(void)
{
    boot();
    frame_times(100);
    take_up_to(out_total() - 1u, f.now + 10u);
    fake_boot(&f, &fw, f.now + 1000u); /* device reset: the port's USB restarts too */
    fake_drop_output(&f);
    CHECK_EQ(fw.departures.written, 0u);
    CHECK_EQ(fw.departures.taken, 0u);
    CHECK_EQ(fw.departures.state, THRUM_DEPARTURE_NONE);
    CHECK_EQ(fw.departures.fresh, 0u);
    out_base = (uint32_t)-(uint32_t)f.nserial; /* count from the reset */
    given = 0;
    take_up_to(1, f.now + 20u); /* the byte the old pending ACK waited for: nothing */
    f.now += 200000;
    ping(); /* FRAME_TIMES is off again */
    take_up_to(out_total(), f.now + 20u);
    f.now += 1000;
    ping();
    CHECK_EQ(take_departures(NULL), 0u);
}

const test_case_t departure_tests[] = {
    {"departures: IDENTIFY_REPLY reports version 4", test_identify_reports_version_4},
    {"departures: a fresh ACK's departure, once its frame is taken", test_fresh_ack_reported_when_taken},
    {"departures: none while the frame's last byte is in the device", test_not_enough_bytes_reports_none},
    {"departures: off while FRAME_TIMES' interval is 0", test_off_while_interval_zero},
    {"departures: an ACK repeated in an unsolicited frame is never reported", test_repeated_ack_never_reported},
    {"departures: a newer fresh ACK replaces the pending one", test_newer_fresh_ack_replaces_pending},
    {"departures: frames that arrived together: the first ACK's", test_frames_together_report_the_first_ack},
    {"departures: sent once", test_sent_once},
    {"departures: the 16-bit byte counts wrap", test_counts_wrap},
    {"departures: behind the FRAME_TIME when both go", test_behind_frame_time},
    {"departures: waits for a frame with room", test_waits_when_it_does_not_fit},
    {"departures: an owed ACK is fresh when it goes", test_owed_ack_is_fresh_when_it_goes},
    {"departures: wait 0 .. 1 000 000, else not reported", test_wait_range},
    {"departures: no IN completions, none", test_no_in_completions_none},
    {"departures: reset clears the counts and the pending ACK", test_reset_clears},
    {NULL, NULL},
};
