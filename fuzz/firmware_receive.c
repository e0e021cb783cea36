/*
 * libFuzzer target: the firmware's receive path (thrum_fw_receive + thrum_fw_poll) on the fake
 * board of the C tests. The input is a script of steps; each step is one control byte then data:
 *
 *   ctrl & 0x03 == 0: receive the next (ctrl >> 2) + 1 bytes (clamped to what is left)
 *   ctrl & 0x03 == 1: advance the clock by ((ctrl >> 2) + 1) * 97 us, then poll
 *   ctrl & 0x03 == 2: advance the clock by ((ctrl >> 2) + 1) * 65 ms, then poll (watchdog, ends)
 *                     (both first give a USB start-of-frame, as a native-USB port's interrupt
 *                     does, with the frame number unmasked: the core masks it; and an IN
 *                     completion that takes what the core wrote since the last one, 64 bytes
 *                     at most, as the IN-complete interrupt would)
 *   ctrl & 0x03 == 3: receive one well-formed host frame built from the next bytes
 *                     (CTRL = 0xA0 | (ctrl >> 2 & 0x0F), SEQ, LEN ≤ 58, payload), so the
 *                     fuzzer reaches the message parsers without having to guess CRCs; its
 *                     CRC starts (ctrl >> 6): 0 plain, 1 from FUZZ_SESSION_A's key, 2 from
 *                     FUZZ_SESSION_B's, 3 from the key of the session that holds the device
 *                     (sessions, PROTOCOL.md §3.8: a CLAIM in a payload names any session)
 *
 * After every step the invariants of the firmware's state are checked (queue, window, program
 * store and pending-telemetry limits); a violation aborts, which libFuzzer reports as a crash.
 * Built with clang -fsanitize=fuzzer,address,undefined by tools/fuzz.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"
#include "thrum_codec.h"
#include "thrum_fw.h"

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);  \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

#if THRUM_FW_DEPARTURES
/* The IN-complete interrupt: the host takes up to 64 bytes of what the core wrote. */
static void in_done(thrum_fw_t *fw, uint32_t now)
{
    uint16_t left = (uint16_t)(fw->departures.written - fw->departures.taken);

    thrum_fw_usb_in_done(fw, left > 64u ? 64u : left, now);
}
#endif

static void check_invariants(const thrum_fw_t *fw)
{
    const thrum_scheduler_t *s = &fw->sched;
    const thrum_program_store_t *p = &fw->programs;
    unsigned i, total = 0;

    CHECK(s->count <= THRUM_FW_QUEUE_SLOTS);
    CHECK(s->head < THRUM_FW_QUEUE_SLOTS);
    CHECK(s->playing <= 1u);
    CHECK(!s->playing || s->count >= 1u);
    CHECK(thrum_fw_queued(fw) == s->count);
    CHECK((unsigned)thrum_fw_free_slots(fw) + s->count <= THRUM_FW_QUEUE_SLOTS);
    CHECK(fw->decoder.fill <= THRUM_FW_RX_WINDOW);
    CHECK(fw->decoder.delivered <= THRUM_MAX_FRAME);
    CHECK(fw->pending_len <= THRUM_FW_PENDING_MAX);
    CHECK(p->used <= THRUM_FW_PROGRAM_SEGMENTS);
    CHECK(p->loading <= THRUM_PROGRAM_SLOTS);
    for (i = 0; i < THRUM_PROGRAM_SLOTS; i++) {
        if (p->valid & (1u << i)) {
            CHECK((unsigned)p->first[i] + p->count[i] <= p->used);
            total += p->count[i];
        }
    }
    CHECK(total <= p->used);
#if THRUM_FW_FRAME_TIMES
    CHECK(fw->frame_times.sof_frame <= THRUM_USB_FRAME_MASK);
    CHECK(fw->frame_times.interval_ms <= THRUM_FRAME_TIMES_MAX_INTERVAL_MS);
#endif
#if THRUM_FW_SESSIONS
    /* the device's frames start their CRC from the holder's key, the decoder takes the holder's
     * and the taken session's, and no session is both */
    CHECK(fw->link.key == (fw->link.session != THRUM_SESSION_NONE ? thrum_session_key(fw->link.session) : THRUM_CRC_INIT));
    CHECK(fw->link.session == THRUM_SESSION_NONE || (fw->decoder.keys == THRUM_DECODER_KEYS && fw->decoder.key[0] == fw->link.key));
    CHECK(fw->link.session == THRUM_SESSION_NONE || fw->link.key != THRUM_CRC_INIT);
    CHECK(fw->link.previous == THRUM_SESSION_NONE || fw->decoder.key[1] == thrum_session_key(fw->link.previous));
    CHECK(fw->link.claimed == 0u);
#endif
#if THRUM_FW_DEPARTURES
    /* the IN completions never take more than was written; a pending ACK's frame end lies
     * ahead of what they took, within what was written; one is pending or left only while
     * FRAME_TIMES is on */
    CHECK(fw->departures.state <= THRUM_DEPARTURE_LEFT);
    CHECK(fw->departures.fresh <= 1u);
    CHECK((int16_t)(uint16_t)(fw->departures.written - fw->departures.taken) >= 0);
    CHECK(fw->departures.state != THRUM_DEPARTURE_PENDING ||
          ((int16_t)(uint16_t)(fw->departures.end - fw->departures.taken) > 0 &&
           (int16_t)(uint16_t)(fw->departures.written - fw->departures.end) >= 0));
    CHECK(fw->departures.state == THRUM_DEPARTURE_NONE || fw->frame_times.interval_ms != 0u);
#endif
    for (i = 0; i < s->count; i++) {
        const thrum_segment_t *seg = &s->queue[(s->head + i) % THRUM_FW_QUEUE_SLOTS];
        CHECK(seg->effect <= 123u);
        CHECK(seg->effect != 0u || seg->duration <= THRUM_SEGMENT_MAX_DURATION_US);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fake_t f;
    static thrum_fw_t fw;
    size_t at = 0;
    uint32_t out_base; /* output bytes before the fake's log was last emptied */

    fake_init(&f);
    fake_boot(&f, &fw, 1000u);
    out_base = 0;
    check_invariants(&fw);
    while (at < size) {
        uint8_t ctrl = data[at++];
        unsigned arg = (unsigned)(ctrl >> 2);
        switch (ctrl & 0x03u) {
        case 0: {
            size_t n = arg + 1u;
            if (n > size - at) n = size - at;
            thrum_fw_receive(&fw, data + at, n, f.now);
            at += n;
            break;
        }
        case 1:
            f.now += (arg + 1u) * 97u;
#if THRUM_FW_FRAME_TIMES
            thrum_fw_usb_sof(&fw, (uint16_t)(f.now / 1000u), f.now);
#endif
#if THRUM_FW_DEPARTURES
            in_done(&fw, f.now);
#endif
            thrum_fw_poll(&fw);
            break;
        case 2:
            f.now += (arg + 1u) * 65000u;
#if THRUM_FW_FRAME_TIMES
            thrum_fw_usb_sof(&fw, (uint16_t)(f.now / 1000u), f.now);
#endif
#if THRUM_FW_DEPARTURES
            in_done(&fw, f.now);
#endif
            thrum_fw_poll(&fw);
            break;
        default: {
            uint8_t frame[THRUM_MAX_FRAME];
            uint8_t len, seq;
            size_t n;
            if (size - at < 2u) { at = size; break; }
            seq = data[at++];
            len = (uint8_t)(data[at++] % (THRUM_MAX_PAYLOAD + 1u));
            if (len > size - at) len = (uint8_t)(size - at);
#if THRUM_FW_SESSIONS
            {
                static const uint32_t fuzz_session[2] = {0x0000F00Du, 0x5EA5100Du};
                uint8_t which = (uint8_t)(arg >> 4);
                uint16_t key = which == 0u ? (uint16_t)THRUM_CRC_INIT
                               : which < 3u ? thrum_session_key(fuzz_session[which - 1u])
                                            : fw.link.key;
                n = thrum_frame_encode_keyed(frame, key, (uint8_t)(0xA0u | (arg & 0x0Fu)), seq, data + at, len);
            }
#else
            n = thrum_frame_encode(frame, (uint8_t)(0xA0u | (arg & 0x0Fu)), seq, data + at, len);
#endif
            at += len;
            if (n > 0u) thrum_fw_receive(&fw, frame, n, f.now);
            break;
        }
        }
        check_invariants(&fw);
#if THRUM_FW_DEPARTURES
        CHECK(fw.departures.written == (uint16_t)(out_base + f.nserial)); /* every byte counted */
#endif
        /* The fake keeps at most 64 KiB of output; drop what was written so long runs go on. */
        if (f.nserial > FAKE_MAX_SERIAL / 2u) {
            out_base += (uint32_t)f.nserial;
            f.nserial = 0;
            f.decoded_upto = 0;
        }
    }
    return 0;
}
