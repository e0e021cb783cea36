/* Building frames (PROTOCOL.md §1): header, payload, CRC over LEN..PAYLOAD, low byte first. */
#include <string.h>

#include "thrum_codec.h"

uint8_t thrum_frame_seal(uint8_t *frame, uint8_t ctrl, uint8_t seq, uint8_t len)
{
    uint16_t crc;

    if (len > THRUM_MAX_PAYLOAD) {
        return 0;
    }
    frame[0] = THRUM_SYNC;
    frame[1] = len;
    frame[2] = ctrl;
    frame[3] = seq;
    crc = thrum_crc16(frame + 1, (size_t)len + 3u);
    frame[4u + len] = (uint8_t)(crc & 0xFFu);
    frame[5u + len] = (uint8_t)(crc >> 8);
    return (uint8_t)(len + THRUM_FRAME_OVERHEAD);
}

uint8_t thrum_frame_encode(uint8_t *out, uint8_t ctrl, uint8_t seq, const uint8_t *payload,
                           uint8_t len)
{
    if (len > THRUM_MAX_PAYLOAD) {
        return 0;
    }
    if (len > 0u) {
        memmove(out + 4, payload, len);
    }
    return thrum_frame_seal(out, ctrl, seq, len);
}

#if THRUM_FW_SESSIONS
uint8_t thrum_frame_encode_keyed(uint8_t *out, uint16_t key, uint8_t ctrl, uint8_t seq, const uint8_t *payload,
                                 uint8_t len)
{
    uint8_t n = thrum_frame_encode(out, ctrl, seq, payload, len);
    uint16_t crc;

    if (n == 0u) {
        return 0;
    }
    crc = thrum_crc16_from(key, out + 1, (size_t)len + 3u); /* the session's CRC start (§3.8) */
    out[4u + len] = (uint8_t)(crc & 0xFFu);
    out[5u + len] = (uint8_t)(crc >> 8);
    return n;
}
#endif
