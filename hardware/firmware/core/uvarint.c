/* Unsigned LEB128 varints (PROTOCOL.md §3): at most 5 bytes, 32-bit values, minimal encodings only. */
#include "thrum_codec.h"

#define UVARINT_MORE 0x80u
#define UVARINT_GROUP 0x7Fu
/* The fifth byte carries bits 28..31 only. */
#define UVARINT_LAST_GROUP_MAX 0x0Fu

uint8_t thrum_uvarint_size(uint32_t value)
{
    uint8_t n = 1;

    while (value > UVARINT_GROUP) {
        value >>= 7;
        n++;
    }
    return n;
}

uint8_t thrum_uvarint_encode(uint32_t value, uint8_t *out)
{
    uint8_t n = 0;

    while (value > UVARINT_GROUP) {
        out[n++] = (uint8_t)((value & UVARINT_GROUP) | UVARINT_MORE);
        value >>= 7;
    }
    out[n++] = (uint8_t)value;
    return n;
}

int thrum_uvarint_decode(const uint8_t *in, size_t len, uint32_t *value)
{
    uint32_t result = 0;
    uint8_t i;

    for (i = 0; i < THRUM_UVARINT_MAX_BYTES; i++) {
        uint8_t byte;

        if (i >= len) {
            return THRUM_UVARINT_TRUNCATED;
        }
        byte = in[i];
        if (i == THRUM_UVARINT_MAX_BYTES - 1u && byte > UVARINT_LAST_GROUP_MAX) {
            /* a continuation bit here means a sixth byte; higher bits mean a value over 32 bits */
            return THRUM_UVARINT_MALFORMED;
        }
        result |= (uint32_t)(byte & UVARINT_GROUP) << (7u * i);
        if ((byte & UVARINT_MORE) == 0u) {
            /* a zero final group after other groups means the encoding was padded */
            if (i > 0u && byte == 0u) {
                return THRUM_UVARINT_MALFORMED;
            }
            *value = result;
            return (int)i + 1;
        }
    }
    return THRUM_UVARINT_MALFORMED;
}
