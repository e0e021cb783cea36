/* Sessions (PROTOCOL.md §3.8, protocol version 5): CLAIM, the keyed frames, a takeover and what
 * each host can read of it, RELEASE and the watchdog after it. The tests play two hosts on one
 * device: host A and host B, each with its own session and key. */
#include <string.h>

#include "fake_hal.h"
#include "harness.h"

#if THRUM_FW_SESSIONS

#define HOST_UNSEQ (THRUM_CTRL_MARK_HOST | THRUM_CTRL_UNSEQ)
#define SESSION_A 0x11111111u
#define SESSION_B 0x22222222u

static fake_t f;
static thrum_fw_t fw;

/* The fake host reads frames of both sessions (and plain ones): fake_msg_t.keyed says which. */
static void boot(void)
{
    fake_start(&f, &fw, 1000, I2C_COST);
    f.dec.key[0] = thrum_session_key(SESSION_A);
    f.dec.key[1] = thrum_session_key(SESSION_B);
    f.dec.keys = 2;
}

#define KEYED_A 1u
#define KEYED_B 2u

/* A frame in `key` (THRUM_CRC_INIT: plain). */
static void send_keyed(uint16_t key, uint8_t ctrl, uint8_t seq, const uint8_t *p, uint8_t n)
{
    uint8_t frame[THRUM_MAX_FRAME];
    uint8_t len = thrum_frame_encode_keyed(frame, key, ctrl, seq, p, n);

    thrum_fw_receive(&fw, frame, len, f.now);
}

static void claim(uint32_t session)
{
    uint8_t p[8];

    send_keyed(THRUM_CRC_INIT, HOST_UNSEQ, 7, p, msg_any(p, THRUM_MSG_CLAIM, 1, &session));
}

static void segment_in(uint32_t session, uint8_t ctrl, uint8_t seq, uint32_t start, uint32_t event)
{
    uint8_t p[16];

    send_keyed(thrum_session_key(session), ctrl, seq, p, msg_segment(p, start, 20000, 150, 150, event));
}

static void plain_in(uint16_t key, uint8_t ctrl, uint32_t id)
{
    uint8_t p[1];

    send_keyed(key, ctrl, 3, p, msg_plain(p, id));
}

/* The next decoded message with `id` and where it came: its fake_msg_t. */
static const fake_msg_t *next_msg(uint32_t id)
{
    size_t i;

    fake_decode(&f);
    for (i = f.taken; i < f.nmsgs; i++) {
        if (f.msgs[i].msg.id == id) {
            f.taken = i + 1u;
            return &f.msgs[i];
        }
    }
    return NULL;
}

static void test_claim_answers_in_the_key(void)
{
    const fake_msg_t *s;
    const fake_msg_t *ack;

    boot();
    f.now = 5000;
    claim(SESSION_A);
    ack = next_msg(THRUM_MSG_ACK);
    s = next_msg(THRUM_MSG_SESSION);
    CHECK(ack != NULL && ack->keyed == KEYED_A && ack->msg.field[2] == 7u && ack->msg.field[3] == 5000u);
    CHECK(s != NULL && s->keyed == KEYED_A && s->frame == ack->frame);
    CHECK(s != NULL && s->msg.field[0] == SESSION_A && s->msg.field[1] == THRUM_SESSION_CLAIMED && s->msg.field[2] == 5000u);
    /* the holder's frames run */
    segment_in(SESSION_A, HOST_RESYNC, 0, 50000, 1);
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    /* a plain frame runs nothing while A holds the device: its SEGMENT is not queued, its answer
     * is plain, the holder's sequence is untouched */
    send_keyed(THRUM_CRC_INIT, HOST_RESYNC, 9, (const uint8_t *)"\x04\x00\x00\x01\x00\x10\x00\x50\x00", 9);
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    ack = next_msg(THRUM_MSG_ACK);
    ack = next_msg(THRUM_MSG_ACK);
    CHECK(ack != NULL && ack->keyed == 0u && ack->msg.field[0] == 1u && ack->msg.field[2] == 9u);
    /* a plain IDENTIFY is answered plain, with the reply */
    plain_in(THRUM_CRC_INIT, HOST_UNSEQ, THRUM_MSG_IDENTIFY);
    s = next_msg(THRUM_MSG_IDENTIFY_REPLY);
    CHECK(s != NULL && s->keyed == 0u && s->msg.field[0] == THRUM_PROTOCOL_VERSION);
    CHECK_EQ(fake_count(&f, THRUM_MSG_SESSION), 0);
    /* CLAIM again by the holder (its first answer lost): claimed again, nothing stopped */
    claim(SESSION_A);
    s = next_msg(THRUM_MSG_SESSION);
    CHECK(s != NULL && s->keyed == KEYED_A && s->msg.field[1] == THRUM_SESSION_CLAIMED);
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    CHECK(!f.bad_output);
}

static void test_takeover(void)
{
    const fake_msg_t *taken;
    const fake_msg_t *claimed;
    size_t i;
    unsigned onsets_b = 0;

    boot();
    claim(SESSION_A);
    segment_in(SESSION_A, HOST_RESYNC, 0, 20000, 1);
    segment_in(SESSION_A, HOST_SEQ, 1, 60000, 2);
    segment_in(SESSION_A, HOST_SEQ, 2, 100000, 3);
    fake_run_until(&f, &fw, 30000, 500);
    CHECK_EQ(thrum_fw_amplitude(&fw), 150); /* A's event 1 plays */
    /* B claims with the ACK's next_seq A would use next, as a second host does */
    f.now = 30000;
    claim(SESSION_B);
    CHECK_EQ(thrum_fw_queued(&fw), 0);   /* A's drive stopped */
    CHECK_EQ(thrum_fw_amplitude(&fw), 0);
    claimed = next_msg(THRUM_MSG_SESSION); /* A's own claim */
    CHECK(claimed != NULL && claimed->keyed == KEYED_A && claimed->msg.field[1] == THRUM_SESSION_CLAIMED);
    taken = next_msg(THRUM_MSG_SESSION);
    claimed = next_msg(THRUM_MSG_SESSION);
    CHECK(taken != NULL && taken->keyed == KEYED_A && taken->msg.field[0] == SESSION_A &&
          taken->msg.field[1] == THRUM_SESSION_TAKEN && taken->msg.field[2] == 30000u);
    CHECK(claimed != NULL && claimed->keyed == KEYED_B && claimed->msg.field[1] == THRUM_SESSION_CLAIMED);
    /* the takeover comes first in the byte stream */
    CHECK(taken != NULL && claimed != NULL && taken->frame < claimed->frame);
    /* B resynchronises to the sequence number A would send next, and plays its own event 1 and 2 */
    segment_in(SESSION_B, HOST_RESYNC, 3, 40000, 1);
    /* A's next frame has the same SEQ: it runs nothing (no duplicate for B either), and A is told again */
    segment_in(SESSION_A, HOST_SEQ, 3, 45000, 4);
    segment_in(SESSION_B, HOST_SEQ, 4, 80000, 2);
    CHECK_EQ(thrum_fw_queued(&fw), 2);
    taken = next_msg(THRUM_MSG_SESSION);
    CHECK(taken != NULL && taken->keyed == KEYED_A && taken->msg.field[1] == THRUM_SESSION_TAKEN && taken->msg.field[2] == 30000u);
    fake_run_until(&f, &fw, 200000, 500);
    /* every ONSET after the takeover is B's, in B's frames; A's frames carry none of them */
    fake_decode(&f);
    for (i = 0; i < f.nmsgs; i++) {
        const fake_msg_t *m = &f.msgs[i];

        if (m->msg.id != THRUM_MSG_ONSET || m->frame <= claimed->frame) {
            continue;
        }
        CHECK_EQ(m->keyed, KEYED_B);
        CHECK(m->msg.field[1] >= 40000u && m->msg.field[1] < 40000u + 1000u + 40000u * (m->msg.field[0] - 1u));
        onsets_b++;
    }
    CHECK_EQ(onsets_b, 2);
    CHECK(!f.bad_output);
}

/* Two sessions whose keys clash: the second's CLAIM is refused, the holder keeps the device. */
static void test_claim_with_the_holders_key_is_refused(void)
{
    uint32_t clash = SESSION_A + 1u;
    uint16_t key = thrum_session_key(SESSION_A);
    const fake_msg_t *s;

    while (thrum_session_key(clash) != key) {
        clash++;
    }
    boot();
    claim(SESSION_A);
    segment_in(SESSION_A, HOST_RESYNC, 0, 50000, 1);
    claim(clash);
    next_msg(THRUM_MSG_SESSION); /* A's claimed */
    s = next_msg(THRUM_MSG_SESSION);
    CHECK(s != NULL && s->keyed == 0u && s->msg.field[0] == clash && s->msg.field[1] == THRUM_SESSION_REFUSED);
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    CHECK_EQ(fw.link.session, SESSION_A);
}

static void test_claim_fields(void)
{
    uint8_t p[8] = {THRUM_MSG_CLAIM, 0, 0, 0, 0};
    uint32_t plain_key = 1;

    /* a session whose key is the plain CRC start could not be told from plain frames */
    while (thrum_session_key(plain_key) != THRUM_CRC_INIT) {
        plain_key++;
    }
    CHECK(!thrum_payload_valid(THRUM_DIR_H2D, p, 5));
    p[1] = (uint8_t)plain_key;
    p[2] = (uint8_t)(plain_key >> 8);
    p[3] = (uint8_t)(plain_key >> 16);
    p[4] = (uint8_t)(plain_key >> 24);
    CHECK(!thrum_payload_valid(THRUM_DIR_H2D, p, 5));
    CHECK(thrum_msg_is_any_lane(THRUM_MSG_CLAIM));
    CHECK(thrum_msg_is_any_lane(THRUM_MSG_RELEASE));
}

static void test_release_then_no_watchdog_fault(void)
{
    const fake_msg_t *ack;

    boot();
    claim(SESSION_A);
    segment_in(SESSION_A, HOST_RESYNC, 0, 20000, 1);
    fake_run_until(&f, &fw, 100000, 1000);
    plain_in(thrum_session_key(SESSION_A), HOST_UNSEQ, THRUM_MSG_RELEASE);
    next_msg(THRUM_MSG_SESSION);
    fake_drop_output(&f);
    fake_run_until(&f, &fw, 100100, 100);
    CHECK_EQ(fw.link.session, THRUM_SESSION_NONE);
    /* 3 s of silence: nothing stopped, nothing reported */
    fake_run_until(&f, &fw, 3200000, 10000);
    CHECK_EQ(fake_count(&f, THRUM_MSG_FAULT), 0);
    /* the device is free: a plain frame runs again, as for a host of version 4 */
    plain_in(THRUM_CRC_INIT, HOST_UNSEQ, THRUM_MSG_PING);
    ack = next_msg(THRUM_MSG_ACK);
    CHECK(ack != NULL && ack->keyed == 0u);

    /* a release with drive still queued: the watchdog still stops it, silently */
    boot();
    claim(SESSION_A);
    segment_in(SESSION_A, HOST_RESYNC, 0, 2000000, 1);
    plain_in(thrum_session_key(SESSION_A), HOST_UNSEQ, THRUM_MSG_RELEASE);
    fake_drop_output(&f);
    fake_run_until(&f, &fw, 1500000, 10000);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    CHECK_EQ(fake_count(&f, THRUM_MSG_FAULT), 0);
    CHECK(!f.bad_output);
}

static void test_release_is_the_holders(void)
{
    boot();
    claim(SESSION_A);
    claim(SESSION_B);
    /* A's RELEASE after the takeover releases nothing */
    plain_in(thrum_session_key(SESSION_A), HOST_UNSEQ, THRUM_MSG_RELEASE);
    CHECK_EQ(fw.link.session, SESSION_B);
    /* nor does a plain one */
    plain_in(THRUM_CRC_INIT, HOST_UNSEQ, THRUM_MSG_RELEASE);
    CHECK_EQ(fw.link.session, SESSION_B);
    plain_in(thrum_session_key(SESSION_B), HOST_UNSEQ, THRUM_MSG_RELEASE);
    CHECK_EQ(fw.link.session, THRUM_SESSION_NONE);
}

/* A plain host played (no session); then A claims: the ONSETs of before are not repeated in A's
 * key (A numbers its events from 1 too), and A's RELEASE leaves none of A's to repeat plain. */
static void test_no_onset_repeated_across_sessions(void)
{
    size_t i;
    unsigned plain_before = 0;

    boot();
    send_keyed(THRUM_CRC_INIT, HOST_RESYNC, 0, (const uint8_t *)"\x04\x20\x4e\x00\x00\xa0\x9c\x01\x96\x96\x01", 11);
    fake_run_until(&f, &fw, 30000, 500); /* event 1 at 20 ms: its ONSET goes out and is being repeated */
    fake_decode(&f);
    for (i = 0; i < f.nmsgs; i++) {
        plain_before += f.msgs[i].msg.id == THRUM_MSG_ONSET && f.msgs[i].keyed == 0u;
    }
    CHECK_EQ(plain_before, 1);
    f.onset_repeats = 0;
    claim(SESSION_A);
    plain_in(thrum_session_key(SESSION_A), HOST_UNSEQ, THRUM_MSG_PING);
    plain_in(thrum_session_key(SESSION_A), HOST_UNSEQ, THRUM_MSG_PING);
    fake_decode(&f);
    CHECK_EQ(f.onset_repeats, 0); /* the plain host's ONSET never comes again, in A's key */
    /* A plays and releases: a plain ping after it gets no repeat of A's ONSET */
    segment_in(SESSION_A, HOST_RESYNC, 1, 40000, 1);
    fake_run_until(&f, &fw, 50000, 500);
    plain_in(thrum_session_key(SESSION_A), HOST_UNSEQ, THRUM_MSG_RELEASE);
    fake_decode(&f);
    fake_drop_output(&f);
    f.onset_repeats = 0;
    plain_in(THRUM_CRC_INIT, HOST_UNSEQ, THRUM_MSG_PING);
    plain_in(THRUM_CRC_INIT, HOST_UNSEQ, THRUM_MSG_PING);
    CHECK_EQ(fake_count(&f, THRUM_MSG_ONSET), 0);
    CHECK_EQ(f.onset_repeats, 0);
    CHECK(!f.bad_output);
}

/* A holder that falls silent: the watchdog stops its drive, says so in its key, and its session
 * lapses, so a host that does not claim (version 4) can use the device again; the holder, back,
 * claims again (no takeover: nobody held it). */
static void test_a_silent_holders_session_lapses(void)
{
    const fake_msg_t *m;
    uint8_t p[16];

    boot();
    claim(SESSION_A);
    segment_in(SESSION_A, HOST_RESYNC, 0, 500000, 1);
    segment_in(SESSION_A, HOST_SEQ, 1, 1500000, 2);
    fake_drop_output(&f);
    fake_run_until(&f, &fw, 1200000, 1000);
    m = next_msg(THRUM_MSG_FAULT);
    CHECK(m != NULL && m->keyed == KEYED_A && m->msg.field[0] == THRUM_FAULT_WATCHDOG_STOP);
    CHECK_EQ(fw.link.session, THRUM_SESSION_NONE);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    /* a plain host plays */
    send_keyed(THRUM_CRC_INIT, HOST_RESYNC, 5, p, msg_segment(p, 1300000, 10000, 150, 150, 0));
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    /* A's frame now runs nothing and draws no answer; its CLAIM takes the free device back */
    fake_drop_output(&f);
    segment_in(SESSION_A, HOST_SEQ, 2, 1400000, 3);
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    CHECK_EQ(fake_count(&f, 0), 0);
    claim(SESSION_A);
    CHECK_EQ(fake_count(&f, THRUM_MSG_SESSION), 1);
    m = next_msg(THRUM_MSG_SESSION);
    CHECK(m != NULL && m->keyed == KEYED_A && m->msg.field[1] == THRUM_SESSION_CLAIMED);
    CHECK_EQ(thrum_fw_queued(&fw), 1); /* no takeover: nothing stopped */
    CHECK(!f.bad_output);
}

/* A frame of a session that ended — released, or lapsed with the watchdog — is intact: it is
 * counted as stale, not as a CRC failure (nor are its bytes discarded), runs nothing and draws no
 * answer. A frame of a session never claimed is still a CRC failure. */
static void test_a_frame_of_an_ended_session_is_stale_not_corrupt(void)
{
    const thrum_fw_stats_t *stats;
    uint8_t p[16];

    boot();
    stats = thrum_fw_stats(&fw);
    claim(SESSION_A);
    segment_in(SESSION_A, HOST_RESYNC, 0, 20000, 1);
    fake_run_until(&f, &fw, 100000, 1000);
    plain_in(thrum_session_key(SESSION_A), HOST_UNSEQ, THRUM_MSG_RELEASE);
    CHECK_EQ(fw.link.session, THRUM_SESSION_NONE);
    fake_drop_output(&f);
    /* A's ping and a retransmitted segment, after its RELEASE */
    plain_in(thrum_session_key(SESSION_A), HOST_UNSEQ, THRUM_MSG_PING);
    segment_in(SESSION_A, HOST_SEQ, 1, 300000, 2);
    CHECK_EQ(stats->stale_frames, 2);
    CHECK_EQ(stats->bad_frames, 0);
    CHECK_EQ(stats->discarded_bytes, 0);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    CHECK_EQ(fake_count(&f, 0), 0);
    /* a session nobody claimed: corrupt, as before */
    plain_in(thrum_session_key(SESSION_B), HOST_UNSEQ, THRUM_MSG_PING);
    CHECK_EQ(stats->bad_frames, 1);
    CHECK_EQ(stats->stale_frames, 2);

    /* A claims again and falls silent: its session lapses; its frame after that is stale too */
    claim(SESSION_A);
    CHECK_EQ(fw.link.session, SESSION_A);
    segment_in(SESSION_A, HOST_SEQ, 1, 400000, 2);
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    fake_run_until(&f, &fw, 1600000, 1000);
    CHECK_EQ(fw.link.session, THRUM_SESSION_NONE);
    fake_drop_output(&f);
    segment_in(SESSION_A, HOST_SEQ, 2, 1700000, 3);
    CHECK_EQ(stats->stale_frames, 3);
    CHECK_EQ(stats->bad_frames, 1);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    CHECK_EQ(fake_count(&f, 0), 0);
    /* the device is free: a plain host plays, and A's plain CLAIM takes it back */
    send_keyed(THRUM_CRC_INIT, HOST_RESYNC, 5, p, msg_segment(p, 1800000, 10000, 150, 150, 0));
    CHECK_EQ(thrum_fw_queued(&fw), 1);
    claim(SESSION_A);
    CHECK_EQ(fw.link.session, SESSION_A);
    CHECK(!f.bad_output);
}

const test_case_t session_tests[] = {
    {"sessions: a frame of an ended session is stale, not a CRC failure", test_a_frame_of_an_ended_session_is_stale_not_corrupt},
    {"sessions: a silent holder's session lapses with the watchdog", test_a_silent_holders_session_lapses},
    {"sessions: no ONSET is repeated across a claim or a release", test_no_onset_repeated_across_sessions},
    {"sessions: CLAIM answered in the session's key; plain frames run nothing", test_claim_answers_in_the_key},
    {"sessions: takeover: old drive stopped, old host told first, never sees the new ONSETs", test_takeover},
    {"sessions: a CLAIM with the holder's key is refused", test_claim_with_the_holders_key_is_refused},
    {"sessions: CLAIM of 0 or of a plain key does not parse", test_claim_fields},
    {"sessions: RELEASE, then no watchdog FAULT 5", test_release_then_no_watchdog_fault},
    {"sessions: only the holder releases", test_release_is_the_holders},
    {NULL, NULL},
};
#else
/* Built without sessions (THRUM_FW_SESSIONS 0, as the AVR images are): nothing to test here. */
const test_case_t session_tests[] = {{NULL, NULL}};
#endif
