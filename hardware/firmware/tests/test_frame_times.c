/* USB start-of-frame times (PROTOCOL.md §3.6, protocol version 3): thrum_fw_usb_sof, FRAME_TIMES'
 * interval and FRAME_TIME in the device frames. */
#include <string.h>

#include "fake_hal.h"
#include "harness.h"

#define HOST_UNSEQ (THRUM_CTRL_MARK_HOST | THRUM_CTRL_UNSEQ)

static fake_t f;
static thrum_fw_t fw;

static void boot(void)
{
    fake_start(&f, &fw, 1000, I2C_COST);
}

/* An any-lane frame of FRAME_TIMES(`interval_ms`), then PING when `ping`. */
static void frame_times(uint32_t interval_ms, int ping)
{
    uint8_t p[16];
    uint8_t n = msg_any(p, THRUM_MSG_FRAME_TIMES, 1, &interval_ms);

    if (ping) {
        n = (uint8_t)(n + msg_plain(p + n, THRUM_MSG_PING));
    }
    fake_send(&f, &fw, HOST_UNSEQ, 0, p, n);
}

static void ping(void)
{
    uint8_t p[1];

    fake_send(&f, &fw, HOST_UNSEQ, 0, p, msg_plain(p, THRUM_MSG_PING));
}

/* The FRAME_TIMEs the device sent since the output was last dropped: how many, and the last one
 * in `*last` (when there is one); then the output is dropped. Each must come right behind an ACK. */
static unsigned take_frame_times(thrum_msg_t *last)
{
    unsigned count = 0;
    size_t i;

    fake_decode(&f);
    CHECK(!f.bad_output);
    for (i = f.taken; i < f.nmsgs; i++) {
        if (f.msgs[i].msg.id == THRUM_MSG_FRAME_TIME) {
            CHECK(i > 0 && f.msgs[i].index == 1 && f.msgs[i - 1].msg.id == THRUM_MSG_ACK);
            count++;
            if (last != NULL) {
                *last = f.msgs[i].msg;
            }
        }
    }
    fake_drop_output(&f);
    return count;
}

/* 3, or 4 where the ACK departures of version 4 are built too (test_departures.c). */
static void test_identify_reports_version_3(void)
{
    uint8_t p[1];
    const thrum_msg_t *reply;

    boot();
    fake_send(&f, &fw, HOST_UNSEQ, 0, p, msg_plain(p, THRUM_MSG_IDENTIFY));
    fake_decode(&f);
    reply = fake_next(&f, THRUM_MSG_IDENTIFY_REPLY);
    CHECK(reply != NULL && reply->field[0] == (THRUM_FW_SESSIONS ? 5u : THRUM_FW_DEPARTURES ? 4u : 3u));
    CHECK(THRUM_PROTOCOL_VERSION >= 3u);
}

static void test_reported_then_paced_by_interval(void)
{
    thrum_msg_t m;

    boot();
    thrum_fw_usb_sof(&fw, 1234, 4321);
    f.now = 5000;
    frame_times(100, 1);
    CHECK_EQ(take_frame_times(&m), 1u);
    CHECK_EQ(m.field_count, 2u);
    CHECK_EQ(m.field[0], 1234u);
    CHECK_EQ(m.field[1], 4321u);

    /* 50 ms later, newer SOFs: too soon */
    thrum_fw_usb_sof(&fw, 1283, 54010);
    f.now = 55000;
    ping();
    CHECK_EQ(take_frame_times(NULL), 0u);
    /* 1 µs short of 100 ms after the last one went out: still too soon */
    thrum_fw_usb_sof(&fw, 1333, 104010);
    f.now = 104999;
    ping();
    CHECK_EQ(take_frame_times(NULL), 0u);
    /* 100 ms: the newest SOF */
    thrum_fw_usb_sof(&fw, 1334, 105010);
    f.now = 105000;
    ping();
    CHECK_EQ(take_frame_times(&m), 1u);
    CHECK_EQ(m.field[0], 1334u);
    CHECK_EQ(m.field[1], 105010u);
    /* the next one counts from that one */
    thrum_fw_usb_sof(&fw, 1400, 171000);
    f.now = 171000;
    ping();
    CHECK_EQ(take_frame_times(NULL), 0u);
    f.now = 205000;
    ping();
    CHECK_EQ(take_frame_times(&m), 1u);
    CHECK_EQ(m.field[0], 1400u);
    CHECK_EQ(m.field[1], 171000u);
}

static void test_interval_zero_sends_none(void)
{
    boot();
    thrum_fw_usb_sof(&fw, 7, 900);
    frame_times(0, 1);
    CHECK_EQ(take_frame_times(NULL), 0u);
    f.now += 500000;
    thrum_fw_usb_sof(&fw, 8, f.now - 10u);
    ping();
    CHECK_EQ(take_frame_times(NULL), 0u);

    /* on, then off again */
    frame_times(10, 0);
    CHECK_EQ(take_frame_times(NULL), 1u);
    frame_times(0, 0);
    f.now += 500000;
    thrum_fw_usb_sof(&fw, 9, f.now - 10u);
    ping();
    CHECK_EQ(take_frame_times(NULL), 0u);
}

static void test_no_sof_sends_none(void)
{
    thrum_msg_t m;

    boot();
    frame_times(100, 1); /* a board that never calls thrum_fw_usb_sof */
    CHECK_EQ(take_frame_times(NULL), 0u);
    f.now += 1000000;
    ping();
    CHECK_EQ(take_frame_times(NULL), 0u);

    /* one SOF: reported once, not again until another SOF comes */
    thrum_fw_usb_sof(&fw, 42, f.now);
    ping();
    CHECK_EQ(take_frame_times(&m), 1u);
    CHECK_EQ(m.field[0], 42u);
    f.now += 300000;
    ping();
    CHECK_EQ(take_frame_times(NULL), 0u);
    thrum_fw_usb_sof(&fw, 43, f.now);
    ping();
    CHECK_EQ(take_frame_times(&m), 1u);
    CHECK_EQ(m.field[0], 43u);
}

static void test_reset_turns_off(void)
{
    boot();
    frame_times(100, 0);
    thrum_fw_usb_sof(&fw, 5, f.now);
    ping();
    CHECK_EQ(take_frame_times(NULL), 1u);
    fake_boot(&f, &fw, f.now + 1000u); /* device reset */
    fake_drop_output(&f);
    f.now += 200000;
    thrum_fw_usb_sof(&fw, 6, f.now);
    ping();
    CHECK_EQ(take_frame_times(NULL), 0u);
}

static void test_frame_number_masked(void)
{
    thrum_msg_t m;

    boot();
    frame_times(1, 0);
    thrum_fw_usb_sof(&fw, 2048u + 5u, 0xFFFFFFFFu);
    ping();
    CHECK_EQ(take_frame_times(&m), 1u);
    CHECK_EQ(m.field[0], 5u);
    CHECK_EQ(m.field[1], 0xFFFFFFFFu);
    f.now += 1000;
    thrum_fw_usb_sof(&fw, 0xFFFFu, 7);
    ping();
    CHECK_EQ(take_frame_times(&m), 1u);
    CHECK_EQ(m.field[0], 2047u);
}

/* A frame whose reports leave no room for it: FRAME_TIME waits for the next frame. */
static void test_waits_when_it_does_not_fit(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    uint8_t i;
    thrum_msg_t m;
    const thrum_msg_t *reply;
    unsigned frames;

    boot();
    frame_times(100, 0);
    CHECK_EQ(take_frame_times(NULL), 0u);
    frames = f.frames;
    thrum_fw_usb_sof(&fw, 300, 2500);
    /* IDENTIFY and eight GOs of empty slots: IDENTIFY_REPLY, CAPABILITIES and eight FAULT 8 */
    n = msg_plain(p, THRUM_MSG_IDENTIFY);
    for (i = 0; i < 8u; i++) {
        uint32_t go[3] = {i & 3u, 1000000u, 0u};
        n = (uint8_t)(n + msg_any(p + n, THRUM_MSG_GO, 3, go));
    }
    fake_send(&f, &fw, HOST_UNSEQ, 0, p, n);
    fake_decode(&f);
    CHECK_EQ(f.frames - frames, 1u); /* the reports fit beside the reply ... */
    CHECK_EQ(fake_count(&f, THRUM_MSG_FAULT), 8u);
    reply = fake_next(&f, THRUM_MSG_IDENTIFY_REPLY);
    CHECK(reply != NULL);
    CHECK_EQ(take_frame_times(NULL), 0u); /* ... and left no room for FRAME_TIME */
    f.now += 1000;
    ping();
    CHECK_EQ(take_frame_times(&m), 1u);
    CHECK_EQ(m.field[0], 300u);
    CHECK_EQ(m.field[1], 2500u);
}

/* A frame the port has no room for is not sent: the SOF goes with the frame that is. */
static void test_kept_when_frame_waits_for_room(void)
{
    thrum_msg_t m;
    unsigned frames;

    boot();
    frame_times(100, 0);
    fake_drop_output(&f);
    frames = f.frames;
    fake_limit_tx(&f, 64, 100, 1);
    f.tx_queued = 60; /* 4 bytes free, one more every 100 µs */
    thrum_fw_usb_sof(&fw, 77, f.now);
    ping();
    fake_decode(&f);
    CHECK_EQ(f.frames - frames, 0u);
    CHECK_EQ(take_frame_times(NULL), 0u);
    f.now += 3000; /* room for the owed ACK and FRAME_TIME */
    thrum_fw_poll(&fw);
    CHECK_EQ(take_frame_times(&m), 1u);
    CHECK_EQ(m.field[0], 77u);
    CHECK_EQ(f.tx_dropped, 0u);
}

const test_case_t frame_times_tests[] = {
    {"frame times: IDENTIFY_REPLY reports version 3 (4 with departures)", test_identify_reports_version_3},
    {"frame times: the newest SOF, then one per interval", test_reported_then_paced_by_interval},
    {"frame times: interval 0 sends none", test_interval_zero_sends_none},
    {"frame times: no SOF, none", test_no_sof_sends_none},
    {"frame times: reset turns them off", test_reset_turns_off},
    {"frame times: frame numbers masked to 11 bits", test_frame_number_masked},
    {"frame times: waits for a frame with room", test_waits_when_it_does_not_fit},
    {"frame times: kept while the port has no room", test_kept_when_frame_waits_for_room},
    {NULL, NULL},
};
