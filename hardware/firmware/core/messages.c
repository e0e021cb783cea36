/*
 * Messages (PROTOCOL.md §3). The field layout of every message lives in one table below, so
 * decoding, encoding and range checks share it; the host payload parser turns a payload into
 * commands before anything runs, so a payload that fails anywhere executes nothing.
 */
#include <string.h>

#include "thrum_core.h"

/* A layout packs the field count into bits 0..3 and field i's THRUM_FIELD_* type into bits
 * 4+2i..5+2i; LAYOUT_ANY_LANE marks host messages allowed in UNSEQ frames. */
#define LAYOUT_COUNT_MASK 0x0Fu
#define LAYOUT_TYPE_SHIFT 4u
#define LAYOUT_ANY_LANE 0x80000000u
#define F(i, t) ((uint32_t)(t) << (LAYOUT_TYPE_SHIFT + 2u * (i)))
#define U8 THRUM_FIELD_U8
#define U32 THRUM_FIELD_U32
#define UV THRUM_FIELD_UV

/* Field indexes the range checks need. */
#define SEGMENT_START 0u
#define SEGMENT_DURATION 1u
#define SEGMENT_FROM 2u
#define SEGMENT_TO 3u
#define SEGMENT_EVENT 4u
#define CONFIGURE_RATED_VOLTAGE 0u
#define CONFIGURE_OD_CLAMP 1u
#define CONFIGURE_DRIVE_TIME 2u
#define CONFIGURE_OL_LRA_PERIOD 3u

static uint32_t layout(uint8_t dir, uint32_t id)
{
    if (dir == THRUM_DIR_H2D) {
        switch (id) {
        case THRUM_MSG_IDENTIFY:
        case THRUM_MSG_PING:
        case THRUM_MSG_STOP:
            return LAYOUT_ANY_LANE | 0u;
        case THRUM_MSG_SEGMENT:
            return 5u | F(0, U32) | F(1, UV) | F(2, U8) | F(3, U8) | F(4, UV);
        case THRUM_MSG_CONFIGURE_DRIVER:
            return 4u | F(0, U8) | F(1, U8) | F(2, U8) | F(3, U8);
        default:
            return 0u;
        }
    }
    switch (id) {
    case THRUM_MSG_ACK:
        return 5u | F(0, U8) | F(1, U8) | F(2, U8) | F(3, U32) | F(4, UV);
    case THRUM_MSG_IDENTIFY_REPLY:
        return 10u | F(0, UV) | F(1, UV) | F(2, UV) | F(3, UV) | F(4, U32) | F(5, U32) | F(6, UV) |
               F(7, UV) | F(8, UV) | F(9, UV);
    case THRUM_MSG_ONSET:
        return 3u | F(0, UV) | F(1, U32) | F(2, U8);
    case THRUM_MSG_FAULT:
        return 2u | F(0, UV) | F(1, UV);
    default:
        return 0u;
    }
}

static int known(uint8_t dir, uint32_t id)
{
    if (dir == THRUM_DIR_H2D) {
        return id >= THRUM_MSG_IDENTIFY && id <= THRUM_MSG_CONFIGURE_DRIVER;
    }
    return id >= THRUM_MSG_ACK && id <= THRUM_MSG_FAULT;
}

int thrum_msg_field_count(uint8_t dir, uint32_t id)
{
    if (!known(dir, id)) {
        return -1;
    }
    return (int)(layout(dir, id) & LAYOUT_COUNT_MASK);
}

uint8_t thrum_msg_field_type(uint8_t dir, uint32_t id, uint8_t index)
{
    uint32_t l = layout(dir, id);

    if (!known(dir, id) || index >= (l & LAYOUT_COUNT_MASK)) {
        return 0;
    }
    return (uint8_t)((l >> (LAYOUT_TYPE_SHIFT + 2u * index)) & 3u);
}

int thrum_msg_is_any_lane(uint32_t id)
{
    return known(THRUM_DIR_H2D, id) && (layout(THRUM_DIR_H2D, id) & LAYOUT_ANY_LANE) != 0u;
}

int thrum_msg_fields_valid(uint8_t dir, const thrum_msg_t *msg)
{
    uint8_t i;
    int count = thrum_msg_field_count(dir, msg->id);

    if (count < 0 || msg->field_count != (uint8_t)count) {
        return 0;
    }
    for (i = 0; i < msg->field_count; i++) {
        if (thrum_msg_field_type(dir, msg->id, i) == THRUM_FIELD_U8 && msg->field[i] > 0xFFu) {
            return 0;
        }
    }
    /* SEGMENT duration is the only field §3 narrows below its type; CONFIGURE_DRIVER values that
     * overflow their register fields are clamped by the driver, not rejected (§3.1). */
    if (dir == THRUM_DIR_H2D && msg->id == THRUM_MSG_SEGMENT) {
        uint32_t duration = msg->field[SEGMENT_DURATION];
        return duration >= THRUM_SEGMENT_MIN_DURATION_US && duration <= THRUM_SEGMENT_MAX_DURATION_US;
    }
    return 1;
}

int thrum_msg_decode(uint8_t dir, const uint8_t *in, size_t len, thrum_msg_t *msg)
{
    size_t pos;
    int n;
    uint8_t i;
    int count;

    n = thrum_uvarint_decode(in, len, &msg->id);
    if (n < 0) {
        return -1;
    }
    pos = (size_t)n;
    count = thrum_msg_field_count(dir, msg->id);
    if (count < 0) {
        return -1;
    }
    msg->field_count = (uint8_t)count;
    for (i = 0; i < msg->field_count; i++) {
        switch (thrum_msg_field_type(dir, msg->id, i)) {
        case THRUM_FIELD_U8:
            if (pos + 1u > len) {
                return -1;
            }
            msg->field[i] = in[pos];
            pos += 1u;
            break;
        case THRUM_FIELD_U32:
            if (pos + 4u > len) {
                return -1;
            }
            msg->field[i] = (uint32_t)in[pos] | ((uint32_t)in[pos + 1u] << 8) |
                            ((uint32_t)in[pos + 2u] << 16) | ((uint32_t)in[pos + 3u] << 24);
            pos += 4u;
            break;
        default:
            n = thrum_uvarint_decode(in + pos, len - pos, &msg->field[i]);
            if (n < 0) {
                return -1;
            }
            pos += (size_t)n;
            break;
        }
    }
    if (!thrum_msg_fields_valid(dir, msg)) {
        return -1;
    }
    return (int)pos;
}

uint8_t thrum_msg_encode(uint8_t dir, const thrum_msg_t *msg, uint8_t *out, uint8_t cap)
{
    uint8_t tmp[THRUM_UVARINT_MAX_BYTES];
    uint8_t pos;
    uint8_t i;

    if (!thrum_msg_fields_valid(dir, msg)) {
        return 0;
    }
    pos = thrum_uvarint_encode(msg->id, tmp);
    if (pos > cap) {
        return 0;
    }
    memcpy(out, tmp, pos);
    for (i = 0; i < msg->field_count; i++) {
        uint32_t v = msg->field[i];
        uint8_t n;

        switch (thrum_msg_field_type(dir, msg->id, i)) {
        case THRUM_FIELD_U8:
            tmp[0] = (uint8_t)v;
            n = 1;
            break;
        case THRUM_FIELD_U32:
            tmp[0] = (uint8_t)v;
            tmp[1] = (uint8_t)(v >> 8);
            tmp[2] = (uint8_t)(v >> 16);
            tmp[3] = (uint8_t)(v >> 24);
            n = 4;
            break;
        default:
            n = thrum_uvarint_encode(v, tmp);
            break;
        }
        if ((uint16_t)pos + n > cap) {
            return 0;
        }
        memcpy(out + pos, tmp, n);
        pos = (uint8_t)(pos + n);
    }
    return pos;
}

int thrum_payload_valid(uint8_t dir, const uint8_t *payload, size_t len)
{
    size_t pos = 0;
    thrum_msg_t msg;

    while (pos < len) {
        int n = thrum_msg_decode(dir, payload + pos, len - pos, &msg);
        if (n < 0) {
            return 0;
        }
        pos += (size_t)n;
    }
    return 1;
}

int thrum_host_payload_parse(const uint8_t *payload, uint8_t len, thrum_host_payload_t *out)
{
    size_t pos = 0;
    thrum_msg_t msg;
    thrum_command_t *cmd;

    out->count = 0;
    out->sequenced = 0;
    cmd = &out->cmd[0];
    memset(cmd, 0, sizeof(*cmd));
    while (pos < len) {
        int n = thrum_msg_decode(THRUM_DIR_H2D, payload + pos, len - pos, &msg);
        if (n < 0) {
            return -1;
        }
        pos += (size_t)n;
        switch (msg.id) {
        case THRUM_MSG_IDENTIFY:
            cmd->plain |= THRUM_PLAIN_IDENTIFY;
            break;
        case THRUM_MSG_PING:
            cmd->plain |= THRUM_PLAIN_PING;
            break;
        case THRUM_MSG_STOP:
            cmd->plain |= THRUM_PLAIN_STOP;
            break;
        case THRUM_MSG_SEGMENT:
            cmd->id = THRUM_MSG_SEGMENT;
            cmd->arg.segment.start = msg.field[SEGMENT_START];
            cmd->arg.segment.duration = msg.field[SEGMENT_DURATION];
            cmd->arg.segment.from = (uint8_t)msg.field[SEGMENT_FROM];
            cmd->arg.segment.to = (uint8_t)msg.field[SEGMENT_TO];
            cmd->arg.segment.event = msg.field[SEGMENT_EVENT];
            break;
        default: /* THRUM_MSG_CONFIGURE_DRIVER: decode accepted no other id */
            cmd->id = THRUM_MSG_CONFIGURE_DRIVER;
            cmd->arg.driver.rated_voltage = (uint8_t)msg.field[CONFIGURE_RATED_VOLTAGE];
            cmd->arg.driver.od_clamp = (uint8_t)msg.field[CONFIGURE_OD_CLAMP];
            cmd->arg.driver.drive_time = (uint8_t)msg.field[CONFIGURE_DRIVE_TIME];
            cmd->arg.driver.ol_lra_period = (uint8_t)msg.field[CONFIGURE_OL_LRA_PERIOD];
            break;
        }
        if (cmd->id != 0u) {
            out->sequenced = 1;
            out->count++;
            if (out->count >= THRUM_FW_MAX_COMMANDS) {
                /* cannot happen within 58 bytes; refuse rather than overrun */
                return pos < len ? -1 : 0;
            }
            cmd = &out->cmd[out->count];
            memset(cmd, 0, sizeof(*cmd));
        }
    }
    if (cmd->plain != 0u) {
        out->count++;
    }
    return 0;
}
