/*
 * Finding frames in a byte stream (PROTOCOL.md §1.3).
 *
 * The window holds at most one frame's worth of unconsumed bytes. A rejected candidate costs only
 * its first byte, so a real frame starting inside it is still found on the next pass.
 */
#include <string.h>

#include "thrum_codec.h"

#define OFFSET_LEN 1u
#define OFFSET_CTRL 2u
#define OFFSET_SEQ 3u
#define OFFSET_PAYLOAD 4u
#define HEADER_BYTES 4u

void thrum_frame_decoder_init(thrum_frame_decoder_t *dec, uint8_t expected_mark)
{
    memset(dec, 0, sizeof(*dec));
    dec->expected_mark = (uint8_t)(expected_mark & THRUM_CTRL_MARK_MASK);
}

static void consume(thrum_frame_decoder_t *dec, uint8_t n)
{
    dec->fill = (uint8_t)(dec->fill - n);
    memmove(dec->window, dec->window + n, dec->fill);
}

static void discard(thrum_frame_decoder_t *dec, uint8_t n)
{
    dec->discarded_bytes += n;
    consume(dec, n);
}

/* CTRL bits that must be 0: RESYNC and UNSEQ exist only on host frames (§1.1). */
static uint8_t reserved_bits(const thrum_frame_decoder_t *dec)
{
    return dec->expected_mark == THRUM_CTRL_MARK_HOST
               ? (uint8_t)THRUM_CTRL_RESERVED_MASK
               : (uint8_t)(THRUM_CTRL_RESERVED_MASK | THRUM_CTRL_RESYNC | THRUM_CTRL_UNSEQ);
}

/* Hunt through the window; 1 when a valid frame sits at its start. */
static int find_frame(thrum_frame_decoder_t *dec)
{
    for (;;) {
        uint8_t skip = 0;
        uint8_t len;
        uint8_t ctrl;
        uint16_t crc;
        uint16_t sent;

        while (skip < dec->fill && dec->window[skip] != THRUM_SYNC) {
            skip++;
        }
        if (skip > 0u) {
            discard(dec, skip);
        }
        if (dec->fill < 2u) {
            return 0;
        }
        len = dec->window[OFFSET_LEN];
        if (len > THRUM_MAX_PAYLOAD) {
            discard(dec, 1);
            continue;
        }
        if (dec->fill < HEADER_BYTES) {
            return 0;
        }
        ctrl = dec->window[OFFSET_CTRL];
        if ((ctrl & THRUM_CTRL_MARK_MASK) != dec->expected_mark || (ctrl & reserved_bits(dec)) != 0u) {
            discard(dec, 1);
            continue;
        }
        if (dec->fill < (uint8_t)(len + THRUM_FRAME_OVERHEAD)) {
            return 0;
        }
        crc = thrum_crc16(dec->window + OFFSET_LEN, (size_t)len + 3u);
        sent = (uint16_t)(dec->window[OFFSET_PAYLOAD + len] | (dec->window[OFFSET_PAYLOAD + len + 1u] << 8));
        if (crc == sent) {
#if THRUM_FW_SESSIONS
            dec->keyed = 0;
#endif
            return 1;
        }
#if THRUM_FW_SESSIONS
        /* a session's frame: its CRC starts from the session's key (§3.8). Two different starts
         * never give the same CRC over the same bytes, so an intact frame matches one key only. */
        for (dec->keyed = 1; dec->keyed <= dec->keys; dec->keyed++) {
            if (thrum_crc16_from(dec->key[dec->keyed - 1u], dec->window + OFFSET_LEN, (size_t)len + 3u) == sent) {
                return 1;
            }
        }
#endif
        dec->bad_crc++;
        discard(dec, 1);
    }
}

size_t thrum_frame_decoder_feed(thrum_frame_decoder_t *dec, const uint8_t *data, size_t len,
                                thrum_frame_t *frame, int *found)
{
    size_t taken = 0;

    *found = 0;
    if (dec->delivered > 0u) {
        consume(dec, dec->delivered);
        dec->delivered = 0;
    }
    for (;;) {
        size_t room = sizeof(dec->window) - dec->fill;
        size_t n = len - taken;

        if (n > room) {
            n = room;
        }
        if (n > 0u) {
            memcpy(dec->window + dec->fill, data + taken, n);
            dec->fill = (uint8_t)(dec->fill + n);
            taken += n;
        }
        if (find_frame(dec)) {
            frame->len = dec->window[OFFSET_LEN];
            frame->ctrl = dec->window[OFFSET_CTRL];
            frame->seq = dec->window[OFFSET_SEQ];
            frame->payload = dec->window + OFFSET_PAYLOAD;
#if THRUM_FW_SESSIONS
            frame->keyed = dec->keyed;
#endif
            dec->delivered = (uint8_t)(frame->len + THRUM_FRAME_OVERHEAD);
            *found = 1;
            return taken;
        }
        /* No frame yet: the window is short of a whole frame, so there is room for more input. */
        if (taken == len) {
            return taken;
        }
    }
}
