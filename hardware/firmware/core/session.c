/*
 * Sessions (PROTOCOL.md §3.8): one host holds the device at a time. A host claims it with a
 * session number; from then on its frames and the device's start their CRC from the session's
 * key, so frames of another host (a plain frame, or a frame of a session taken over) can neither
 * run as the holder's nor be read as the holder's by another host. A CLAIM of another session
 * takes the device over: the old session's drive stops, and its host is told (SESSION taken) in
 * a frame of its own key before the device writes anything for the new one.
 *
 * This module screens each valid host frame before the link (link.c) handles it: it answers the
 * frames that are not the holder's itself and lets the holder's through.
 */
#include "thrum_core.h"

#if THRUM_FW_SESSIONS

/* The decoder's keys: the holder's, then the key of the session taken last. Where there is none
 * it holds THRUM_CRC_INIT: a plain frame matches the plain start first, so that key never does.
 * When the holder's session ends, its key stays the first (thrum_session_end). */
static void set_keys(thrum_fw_t *fw)
{
    thrum_link_t *link = &fw->link;

    link->key = link->session != THRUM_SESSION_NONE ? thrum_session_key(link->session) : (uint16_t)THRUM_CRC_INIT;
    fw->decoder.key[0] = link->key;
    fw->decoder.key[1] = link->previous != THRUM_SESSION_NONE ? thrum_session_key(link->previous) : (uint16_t)THRUM_CRC_INIT;
    fw->decoder.keys = THRUM_DECODER_KEYS;
}

/* The ONSETs being repeated belong to the session (or the plain host) that made them. */
static void forget_onsets(thrum_fw_t *fw)
{
#if THRUM_FW_ONSET_REPEATS > 0
    fw->echo_len = 0;
    fw->echo_left = 0;
#else
    (void)fw;
#endif
}

/* What a validated payload asks of the session: the session its last CLAIM names (0: none), and
 * whether it carries anything but IDENTIFY and PING (or a CLAIM). */
static uint32_t claim_in(const uint8_t *payload, uint8_t len, uint8_t *others, uint8_t *identify)
{
    uint8_t pos = 0;
    uint32_t claim = THRUM_SESSION_NONE;
    thrum_msg_t m;

    *others = 0;
    *identify = 0;
    while (pos < len) {
        int n = thrum_msg_decode(THRUM_DIR_H2D, payload + pos, (size_t)(len - pos), &m);

        if (n < 0) {
            break; /* validated before: cannot happen */
        }
        pos = (uint8_t)(pos + n);
        if (m.id == THRUM_MSG_CLAIM) {
            claim = m.field[0];
        } else if (m.id == THRUM_MSG_IDENTIFY) {
            *identify = 1;
        } else if (m.id != THRUM_MSG_PING) {
            *others = 1;
        }
    }
    return claim;
}

/* Another host's CLAIM at device time `at`: the holder's drive stops (no ONSET for what it
 * discards), and its reports still waiting leave with SESSION taken in a frame of its key, before
 * anything of the new session. Nothing of the old session is repeated to the new one. */
static void take_over(thrum_fw_t *fw, uint32_t at)
{
    thrum_link_t *link = &fw->link;
    uint8_t m[THRUM_SESSION_MSG_LEN];

    thrum_scheduler_stop(fw);
    thrum_telemetry_append(fw, m, thrum_telemetry_session_msg(m, link->session, THRUM_SESSION_TAKEN, at));
    thrum_telemetry_flush_now(fw);
    thrum_telemetry_forget(fw);
    link->previous = link->session;
    link->taken_at = at;
}

int thrum_session_screen(thrum_fw_t *fw, const thrum_frame_t *frame, uint32_t rx_time)
{
    thrum_link_t *link = &fw->link;
    uint8_t m[THRUM_SESSION_MSG_LEN];
    uint8_t sequenced;
    uint8_t others;
    uint8_t identify;
    uint32_t claim;

    link->claimed = 0;
    if (frame->keyed == 1u && link->session == THRUM_SESSION_NONE) {
        /* a frame of the session that ended (released, or lapsed with the watchdog), still in
         * flight or from a host that does not know yet: intact, so not counted as corrupt; it
         * runs nothing and draws no answer (its host claims again) */
        THRUM_COUNT(fw->stats.stale_frames);
        return 1;
    }
    if (frame->keyed == 2u) {
        /* a frame of the session taken last: nothing of it runs; its host learns why, again */
        thrum_telemetry_answer(fw, fw->decoder.key[1], frame, rx_time, 0,
                               m, thrum_telemetry_session_msg(m, link->previous, THRUM_SESSION_TAKEN, link->taken_at));
        return 1;
    }
    if (thrum_host_payload_validate(frame->payload, frame->len, &sequenced) != 0) {
        if (frame->keyed == 0u && link->session != THRUM_SESSION_NONE) {
            THRUM_COUNT(fw->parse_failures);
            thrum_telemetry_answer(fw, THRUM_CRC_INIT, frame, rx_time, 0, NULL, 0);
            return 1;
        }
        return 0; /* the link counts it and answers it */
    }
    claim = claim_in(frame->payload, frame->len, &others, &identify);
    if (claim == THRUM_SESSION_NONE) {
        if (frame->keyed != 0u || link->session == THRUM_SESSION_NONE) {
            return 0; /* the holder's frame, or a plain frame while no session holds the device */
        }
        /* a plain frame while a session holds the device: IDENTIFY and PING are answered in a
         * plain frame (the holder's state untouched); anything else runs nothing */
        if (others || (frame->ctrl & THRUM_CTRL_UNSEQ) == 0u) {
            THRUM_COUNT(fw->parse_failures);
            identify = 0;
        }
        thrum_telemetry_answer(fw, THRUM_CRC_INIT, frame, rx_time, identify, NULL, 0);
        return 1;
    }
    if (link->session != THRUM_SESSION_NONE && claim != link->session) {
        if (thrum_session_key(claim) == link->key) {
            /* two sessions with one key could not be told apart: the host picks another */
            thrum_telemetry_answer(fw, THRUM_CRC_INIT, frame, rx_time, 0,
                                   m, thrum_telemetry_session_msg(m, claim, THRUM_SESSION_REFUSED, rx_time));
            return 1;
        }
        take_over(fw, rx_time);
    } else if (link->session == THRUM_SESSION_NONE) {
        /* from no session: what was waiting leaves plain, and no ONSET of before is repeated in
         * the new session's key (its host numbers its events from 1 too) */
        thrum_telemetry_flush_now(fw);
        forget_onsets(fw);
    }
    link->session = claim;
    link->released = 0;
    link->claimed = 1; /* the frame's ACK, in the new key, carries SESSION claimed */
    set_keys(fw);
    return 0;
}

void thrum_session_end(thrum_fw_t *fw)
{
    thrum_telemetry_flush_now(fw); /* the session's reports leave in its key, */
    forget_onsets(fw);             /* and none of them is repeated in a plain frame */
    fw->link.session = THRUM_SESSION_NONE;
    /* plain frames from now on; the decoder keeps the ended session's key (key[0]), so that its
     * frames still coming are told apart as stale, not counted as CRC failures */
    fw->link.key = THRUM_CRC_INIT;
}

#endif
