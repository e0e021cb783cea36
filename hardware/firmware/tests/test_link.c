/* Link behaviour (PROTOCOL.md §2): sequence numbers, duplicates, gaps, RESYNC, the UNSEQ lane,
 * frames that fail to parse, flow control, ACK contents and IDENTIFY_REPLY. */
#include <string.h>

#include "fake_hal.h"
#include "harness.h"
#include "thrum_host_sim.h"

#define HOST_UNSEQ (THRUM_CTRL_MARK_HOST | THRUM_CTRL_UNSEQ)

static fake_t f;
static thrum_fw_t fw;

static void boot(void)
{
    fake_init(&f);
    fake_boot(&f, &fw, 1000);
    fake_drop_output(&f);
}

/* The ACK of the last frame handled. */
static const thrum_msg_t *last_ack(void)
{
    const thrum_msg_t *ack = NULL;
    const thrum_msg_t *m;

    while ((m = fake_next(&f, THRUM_MSG_ACK)) != NULL) {
        ack = m;
    }
    return ack;
}

static void send_segment(uint8_t ctrl, uint8_t seq, uint32_t start, uint32_t event)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n = msg_segment(p, start, 10000, 0, 200, event);

    fake_send(&f, &fw, ctrl, seq, p, n);
}

static void test_identify_unseq(void)
{
    uint8_t p[4];
    uint8_t n;
    const thrum_msg_t *ack;
    const thrum_msg_t *reply;

    boot();
    f.now = 5000;
    n = msg_plain(p, THRUM_MSG_IDENTIFY);
    fake_send(&f, &fw, HOST_UNSEQ, 200, p, n);
    fake_decode(&f);
    CHECK_EQ(f.frames, 1);
    ack = fake_next(&f, 0);
    CHECK(ack != NULL && ack->id == THRUM_MSG_ACK);
    if (ack != NULL) {
        CHECK_EQ(ack->field[0], 0);            /* next_seq unchanged */
        CHECK_EQ(ack->field[1], HOST_UNSEQ);   /* rx_ctrl */
        CHECK_EQ(ack->field[2], 200);          /* rx_seq: the tag is echoed */
        CHECK_EQ(ack->field[3], 5000);         /* rx_time */
        CHECK_EQ(ack->field[4], THRUM_FW_QUEUE_SLOTS);
    }
    reply = fake_next(&f, 0);
    CHECK(reply != NULL && reply->id == THRUM_MSG_IDENTIFY_REPLY);
    if (reply != NULL) {
        CHECK_EQ(reply->field[0], THRUM_FW_LIBRARY ? THRUM_PROTOCOL_VERSION : 0u);
        CHECK_EQ(reply->field[1], 0);
        CHECK_EQ(reply->field[2], 1);
        CHECK_EQ(reply->field[3], 0);
        CHECK_EQ(reply->field[4], THRUM_HOST_SIM_DEVICE_ID);
        CHECK_EQ(reply->field[5], 1000000);
        CHECK_EQ(reply->field[6], THRUM_FW_QUEUE_SLOTS);
        CHECK_EQ(reply->field[7], THRUM_FW_RX_BUFFER);
        CHECK_EQ(reply->field[8], 58);
        CHECK_EQ(reply->field[9], DRV2605L_DEVICE_ID_DRV2605L);
    }
    CHECK(!f.bad_output);
}

static void test_in_sequence_duplicate_gap(void)
{
    const thrum_msg_t *ack;

    boot();
    send_segment(HOST_RESYNC, 5, 100000, 1);
    ack = last_ack();
    CHECK(ack != NULL);
    if (ack != NULL) {
        CHECK_EQ(ack->field[0], 6);
        CHECK_EQ(ack->field[4], THRUM_FW_QUEUE_SLOTS - 1u);
    }
    CHECK_EQ(thrum_fw_queued(&fw), 1);

    /* the same frame again: a duplicate, acknowledged, not executed */
    send_segment(HOST_RESYNC & ~THRUM_CTRL_RESYNC, 5, 100000, 1);
    ack = last_ack();
    CHECK(ack != NULL && ack->field[0] == 6);
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    CHECK_EQ(thrum_fw_stats(&fw)->duplicates, 1);

    /* a gap (7 while 6 is expected): a NAK, not executed */
    send_segment(HOST_SEQ, 7, 120000, 2);
    ack = last_ack();
    CHECK(ack != NULL && ack->field[0] == 6 && ack->field[2] == 7);
    CHECK_EQ(thrum_fw_queued(&fw), 1);

    /* the missing frame, then the retransmitted one */
    send_segment(HOST_SEQ, 6, 110000, 3);
    send_segment(HOST_SEQ, 7, 120000, 2);
    ack = last_ack();
    CHECK(ack != NULL && ack->field[0] == 8);
    CHECK_EQ(thrum_fw_queued(&fw), 3);
    CHECK_EQ(thrum_fw_stats(&fw)->frames_ok, 5);
    CHECK(!f.bad_output);
}

static void test_sequence_wraps_and_resync(void)
{
    const thrum_msg_t *ack;

    boot();
    send_segment(HOST_RESYNC, 255, 100000, 0);
    send_segment(HOST_SEQ, 0, 100100, 0);
    ack = last_ack();
    CHECK(ack != NULL && ack->field[0] == 1);
    CHECK_EQ(thrum_fw_queued(&fw), 2);
    /* a host that restarted resynchronises anywhere */
    send_segment(HOST_RESYNC, 42, 100200, 0);
    ack = last_ack();
    CHECK(ack != NULL && ack->field[0] == 43);
    CHECK_EQ(thrum_fw_queued(&fw), 3);
}

static void test_unseq_lane(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    const thrum_msg_t *ack;

    boot();
    send_segment(HOST_RESYNC, 10, 100000, 0);
    /* a SEGMENT may not travel unsequenced: rejected, next_seq unchanged */
    send_segment(HOST_UNSEQ, 11, 100500, 0);
    ack = last_ack();
    CHECK(ack != NULL && ack->field[0] == 11 && ack->field[1] == HOST_UNSEQ);
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    CHECK_EQ(thrum_fw_stats(&fw)->bad_frames, 1);

    /* PING + STOP unsequenced: runs, whatever its SEQ tag, and leaves next_seq alone */
    n = msg_plain(p, THRUM_MSG_PING);
    n = (uint8_t)(n + msg_plain(p + n, THRUM_MSG_STOP));
    fake_send(&f, &fw, HOST_UNSEQ, 99, p, n);
    ack = last_ack();
    CHECK(ack != NULL && ack->field[0] == 11 && ack->field[2] == 99);
    CHECK_EQ(thrum_fw_queued(&fw), 0);

    /* UNSEQ wins over RESYNC: next_seq still unchanged */
    n = msg_plain(p, THRUM_MSG_PING);
    fake_send(&f, &fw, HOST_UNSEQ | THRUM_CTRL_RESYNC, 77, p, n);
    ack = last_ack();
    CHECK(ack != NULL && ack->field[0] == 11);
}

static void test_unparsable_frame_executes_nothing(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    const thrum_msg_t *ack;

    boot();
    send_segment(HOST_RESYNC, 0, 100000, 0);
    /* STOP, a good SEGMENT, then a truncated one: nothing of it may run */
    n = msg_plain(p, THRUM_MSG_STOP);
    n = (uint8_t)(n + msg_segment(p + n, 200000, 1000, 0, 50, 0));
    n = (uint8_t)(n + msg_segment(p + n, 300000, 1000, 0, 50, 0) - 1u);
    fake_send(&f, &fw, HOST_SEQ, 1, p, n);
    ack = last_ack();
    CHECK(ack != NULL && ack->field[0] == 1 && ack->field[2] == 1);
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    CHECK_EQ(thrum_fw_stats(&fw)->bad_frames, 1);

    /* an unknown id after good messages */
    n = msg_plain(p, THRUM_MSG_STOP);
    p[n++] = 0x06;
    fake_send(&f, &fw, HOST_SEQ, 1, p, n);
    CHECK_EQ(thrum_fw_queued(&fw), 1);

    /* a segment starting before the one queued ahead of it breaks §3.1 */
    send_segment(HOST_SEQ, 1, 99999, 0);
    ack = last_ack();
    CHECK(ack != NULL && ack->field[0] == 1);
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    CHECK_EQ(thrum_fw_stats(&fw)->bad_frames, 3);

    /* corruption that the CRC catches: counted, and no ACK at all */
    {
        uint8_t frame[THRUM_MAX_FRAME];
        uint8_t fl;
        unsigned frames_before;

        n = msg_segment(p, 400000, 1000, 0, 50, 0);
        fl = thrum_frame_encode(frame, HOST_SEQ, 1, p, n);
        frame[6] ^= 0x10;
        fake_decode(&f);
        frames_before = f.frames;
        thrum_fw_receive(&fw, frame, fl, f.now);
        fake_decode(&f);
        CHECK_EQ(f.frames, frames_before);
        CHECK_EQ(thrum_fw_queued(&fw), 1);
        CHECK_EQ(thrum_fw_stats(&fw)->bad_frames, 4);
    }
    CHECK(!f.bad_output);
}

static void test_flow_control_violation(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    uint8_t seq = 0;
    unsigned i;
    const thrum_msg_t *m;
    const thrum_msg_t *ack;

    boot();
    f.now = 0;
    /* fill every slot, five 10-byte segments per frame */
    for (i = 0; i < THRUM_FW_QUEUE_SLOTS;) {
        unsigned k;
        n = 0;
        for (k = 0; k < 5u && i < THRUM_FW_QUEUE_SLOTS; k++, i++) {
            n = (uint8_t)(n + msg_segment(p + n, 100000u + i * 1000u, 1000, 10, 10, 0));
        }
        fake_send_next(&f, &fw, &seq, p, n);
    }
    CHECK_EQ(thrum_fw_free_slots(&fw), 0);
    fake_drop_output(&f);
    /* one more: rejected, FAULT 6 with the SEQ, next_seq not advanced */
    n = msg_segment(p, 200000, 1000, 10, 10, 0);
    fake_send(&f, &fw, HOST_SEQ, seq, p, n);
    ack = fake_next(&f, 0);
    CHECK(ack != NULL && ack->id == THRUM_MSG_ACK && ack->field[0] == seq && ack->field[4] == 0);
    m = fake_next(&f, 0);
    CHECK(m != NULL && m->id == THRUM_MSG_FAULT && m->field[0] == THRUM_FAULT_FLOW_CONTROL && m->field[1] == seq);
    CHECK_EQ(thrum_fw_stats(&fw)->flow_violations, 1);
    CHECK_EQ(thrum_fw_queued(&fw), THRUM_FW_QUEUE_SLOTS);

    /* once the first segment has ended, its slot is free and the retransmission goes in */
    fake_run_until(&f, &fw, 101000, 100);
    CHECK_EQ(thrum_fw_free_slots(&fw), 1);
    fake_send(&f, &fw, HOST_SEQ, seq, p, n);
    ack = last_ack();
    CHECK(ack != NULL && ack->field[0] == (uint8_t)(seq + 1u) && ack->field[4] == 0);

    /* STOP in the same frame frees the queue first, so this is not a violation */
    n = msg_plain(p, THRUM_MSG_STOP);
    n = (uint8_t)(n + msg_segment(p + n, 300000, 1000, 10, 10, 0));
    fake_send(&f, &fw, HOST_SEQ, (uint8_t)(seq + 1u), p, n);
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    CHECK_EQ(thrum_fw_stats(&fw)->flow_violations, 1);
    CHECK(!f.bad_output);
}

static void test_ack_before_any_frame_and_clock_sample(void)
{
    const thrum_msg_t *m;

    /* no driver: the boot FAULT goes out in a frame whose ACK names no host frame yet */
    fake_init(&f);
    f.present = 0;
    fake_boot(&f, &fw, 777);
    thrum_fw_poll(&fw);
    m = fake_next(&f, 0);
    CHECK(m != NULL && m->id == THRUM_MSG_ACK);
    if (m != NULL) {
        CHECK_EQ(m->field[0], 0);
        CHECK_EQ(m->field[1], 0);
        CHECK_EQ(m->field[2], 0);
        CHECK_EQ(m->field[3], 0);
    }
    m = fake_next(&f, 0);
    CHECK(m != NULL && m->id == THRUM_MSG_FAULT && m->field[0] == THRUM_FAULT_NO_DRIVER);
    CHECK(!f.bad_output);

    /* rx_time is the time passed with the bytes, even if they are handled later */
    boot();
    f.now = 123456;
    {
        uint8_t p[1];
        uint8_t frame[THRUM_MAX_FRAME];
        uint8_t fl;

        p[0] = THRUM_MSG_PING;
        fl = thrum_frame_encode(frame, HOST_UNSEQ, 3, p, 1);
        thrum_fw_receive(&fw, frame, 4, 123000);
        thrum_fw_receive(&fw, frame + 4, (size_t)fl - 4u, 123400);
    }
    m = last_ack();
    CHECK(m != NULL && m->field[3] == 123400);
}

static void test_many_plain_messages_and_device_counter(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    unsigned i;
    unsigned frames;

    boot();
    /* 58 one-byte messages in one payload */
    for (i = 0; i < THRUM_MAX_PAYLOAD; i++) {
        p[i] = (uint8_t)(i % 3u == 0u ? THRUM_MSG_IDENTIFY : i % 3u == 1u ? THRUM_MSG_PING : THRUM_MSG_STOP);
    }
    fake_send(&f, &fw, HOST_UNSEQ, 1, p, THRUM_MAX_PAYLOAD);
    CHECK_EQ(fake_count(&f, THRUM_MSG_IDENTIFY_REPLY), 1);
    CHECK_EQ(thrum_fw_stats(&fw)->bad_frames, 0);
    /* device frames count up */
    fake_decode(&f);
    frames = f.frames;
    {
        size_t at = f.nserial;
        fake_send(&f, &fw, HOST_UNSEQ, 2, p + 1, 1);
        fake_decode(&f);
        CHECK_EQ(f.frames, frames + 1u);
        CHECK_EQ(f.serial[at + 3u], (uint8_t)frames); /* SEQ of a device frame = frames sent before */
    }
    CHECK(!f.bad_output);
}

static uint32_t rng_state;

static uint32_t rng(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

/* Random traffic: valid frames of random messages (some well-formed, some not), random CTRL
 * flags and SEQ, garbage between them, time advancing with polls. The device must never crash
 * (ASan/UBSan watch), its output must always decode, and once the host falls silent it must end
 * at amplitude 0. */
static void test_random_traffic(void)
{
    unsigned round;

    boot();
    rng_state = 99;
    f.i2c_cost_us = 73;
    for (round = 0; round < 3000u; round++) {
        uint8_t p[THRUM_MAX_PAYLOAD];
        uint8_t n = 0;
        uint8_t frame[THRUM_MAX_FRAME];
        uint8_t fl;
        uint8_t ctrl = (uint8_t)(THRUM_CTRL_MARK_HOST | (rng() % 4u));

        while (n < 40u) {
            uint32_t kind = rng() % 8u;
            if (kind < 3u) {
                n = (uint8_t)(n + msg_plain(p + n, THRUM_MSG_IDENTIFY + rng() % 3u));
            } else if (kind < 6u) {
                n = (uint8_t)(n + msg_segment(p + n, f.now + rng() % 20000u, 1u + rng() % 5000u,
                                              (uint8_t)rng(), (uint8_t)rng(), rng() % 3u));
            } else if (kind == 6u) {
                n = (uint8_t)(n + msg_configure(p + n, (uint8_t)rng(), (uint8_t)rng(), (uint8_t)rng(), (uint8_t)rng()));
            } else {
                p[n++] = (uint8_t)rng(); /* probably breaks the payload */
            }
            if (rng() % 3u == 0u) {
                break;
            }
        }
        fl = thrum_frame_encode(frame, ctrl, (uint8_t)(rng() % 8u), p, n);
        if (rng() % 10u == 0u) {
            frame[rng() % fl] ^= (uint8_t)(1u << (rng() % 8u)); /* corruption */
        }
        if (rng() % 5u == 0u) {
            uint8_t junk[16];
            unsigned k;
            for (k = 0; k < sizeof(junk); k++) {
                junk[k] = (uint8_t)(rng() % 3u == 0u ? THRUM_SYNC : rng());
            }
            thrum_fw_receive(&fw, junk, rng() % sizeof(junk), f.now);
        }
        thrum_fw_receive(&fw, frame, fl, f.now);
        f.now += rng() % 3000u;
        thrum_fw_poll(&fw);
        if (f.nserial > FAKE_MAX_SERIAL / 2u) {
            fake_decode(&f);
            f.nserial = 0;
            f.decoded_upto = 0;
        }
    }
    fake_run_until(&f, &fw, f.now + 3000000u, 1000);
    fake_decode(&f);
    CHECK(!f.bad_output);
    CHECK_EQ(thrum_fw_amplitude(&fw), 0);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 0);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    CHECK(thrum_fw_stats(&fw)->frames_ok > 100u);
    CHECK(thrum_fw_stats(&fw)->segments_played + thrum_fw_stats(&fw)->segments_trimmed > 10u);
}

const test_case_t link_tests[] = {
    {"link: IDENTIFY unsequenced gets ACK + IDENTIFY_REPLY", test_identify_unseq},
    {"link: in sequence, duplicate, gap, retransmission", test_in_sequence_duplicate_gap},
    {"link: sequence wraps 255 -> 0, RESYNC anywhere", test_sequence_wraps_and_resync},
    {"link: UNSEQ lane runs only any-lane messages", test_unseq_lane},
    {"link: a frame that fails to parse executes nothing", test_unparsable_frame_executes_nothing},
    {"link: flow-control violation, FAULT 6, recovery", test_flow_control_violation},
    {"link: ACK before any frame; rx_time of the last byte", test_ack_before_any_frame_and_clock_sample},
    {"link: 58 plain messages; device frame counter", test_many_plain_messages_and_device_counter},
    {"link: random traffic never breaks the device", test_random_traffic},
    {NULL, NULL},
};
