/* CRC-16/MCRF4XX (PROTOCOL.md §1.2), bit by bit: no table, so it costs no RAM on small MCUs. */
#include "thrum_codec.h"

uint16_t thrum_crc16_update(uint16_t crc, uint8_t byte)
{
    uint8_t bit;

    crc ^= byte;
    for (bit = 0; bit < 8u; bit++) {
        crc = (crc & 1u) ? (uint16_t)((crc >> 1) ^ THRUM_CRC_POLY_REFLECTED) : (uint16_t)(crc >> 1);
    }
    return crc;
}

uint16_t thrum_crc16(const uint8_t *data, size_t len)
{
    uint16_t crc = THRUM_CRC_INIT;
    size_t i;

    for (i = 0; i < len; i++) {
        crc = thrum_crc16_update(crc, data[i]);
    }
    return crc;
}

#if THRUM_FW_SESSIONS
uint16_t thrum_crc16_from(uint16_t crc, const uint8_t *data, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        crc = thrum_crc16_update(crc, data[i]);
    }
    return crc;
}

uint16_t thrum_session_key(uint32_t session)
{
    uint8_t b[4];

    b[0] = (uint8_t)session;
    b[1] = (uint8_t)(session >> 8);
    b[2] = (uint8_t)(session >> 16);
    b[3] = (uint8_t)(session >> 24);
    return thrum_crc16(b, sizeof(b));
}
#endif
