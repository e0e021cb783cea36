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
#define ROM_START 0u
#define ROM_EFFECT 1u
#define ROM_EVENT 2u
#define GO_SLOT 0u
#define GO_START 1u
#define GO_EVENT_BASE 2u

/* Layouts by id: host messages 0x00..0x0F, device messages 0x40..0x47. LAYOUT_KNOWN marks an
 * assigned id (0x06, 0x07 and 0x44 stay unassigned: the golden vectors use them as unknown). */
#define LAYOUT_KNOWN 0x40000000u
#define SEGMENT_LAYOUT (LAYOUT_KNOWN | 5u | F(0, U32) | F(1, UV) | F(2, U8) | F(3, U8) | F(4, UV))
static const uint32_t h2d_layouts[] = {
    0u,
    LAYOUT_KNOWN | LAYOUT_ANY_LANE,                                         /* IDENTIFY */
    LAYOUT_KNOWN | LAYOUT_ANY_LANE,                                         /* PING */
    LAYOUT_KNOWN | LAYOUT_ANY_LANE,                                         /* STOP */
    SEGMENT_LAYOUT,                                                         /* SEGMENT */
    LAYOUT_KNOWN | 4u | F(0, U8) | F(1, U8) | F(2, U8) | F(3, U8),          /* CONFIGURE_DRIVER */
    0u,
    0u,
    LAYOUT_KNOWN,                                                           /* CALIBRATE */
    LAYOUT_KNOWN | LAYOUT_ANY_LANE | 1u | F(0, UV),                         /* WAKE */
    LAYOUT_KNOWN | LAYOUT_ANY_LANE,                                         /* STANDBY */
    LAYOUT_KNOWN | 1u | F(0, U8),                                           /* PRELOAD_BEGIN */
    SEGMENT_LAYOUT,                                                         /* PRELOAD_SEGMENT */
    LAYOUT_KNOWN | LAYOUT_ANY_LANE | 3u | F(0, U8) | F(1, U32) | F(2, UV),  /* GO */
    LAYOUT_KNOWN | 3u | F(0, U32) | F(1, U8) | F(2, UV),                    /* ROM_EFFECT */
    LAYOUT_KNOWN | 1u | F(0, U32),                                          /* CUT */
};
static const uint32_t d2h_layouts[] = {
    LAYOUT_KNOWN | 5u | F(0, U8) | F(1, U8) | F(2, U8) | F(3, U32) | F(4, UV),          /* ACK */
    LAYOUT_KNOWN | 10u | F(0, UV) | F(1, UV) | F(2, UV) | F(3, UV) | F(4, U32) | F(5, U32) |
        F(6, UV) | F(7, UV) | F(8, UV) | F(9, UV),                                      /* IDENTIFY_REPLY */
    LAYOUT_KNOWN | 3u | F(0, UV) | F(1, U32) | F(2, U8),                                /* ONSET */
    LAYOUT_KNOWN | 2u | F(0, UV) | F(1, UV),                                            /* FAULT */
    0u,
    LAYOUT_KNOWN | 5u | F(0, U8) | F(1, U8) | F(2, U8) | F(3, U8) | F(4, U8),           /* CALIBRATION_RESULT */
    LAYOUT_KNOWN | 2u | F(0, U8) | F(1, U8),                                            /* STATE */
    LAYOUT_KNOWN | 2u | F(0, UV) | F(1, UV),                                            /* CAPABILITIES */
};

static uint32_t layout(uint8_t dir, uint32_t id)
{
    if (dir == THRUM_DIR_H2D) {
        return id < sizeof(h2d_layouts) / sizeof(h2d_layouts[0]) ? h2d_layouts[id] : 0u;
    }
    id -= THRUM_MSG_ACK;
    return id < sizeof(d2h_layouts) / sizeof(d2h_layouts[0]) ? d2h_layouts[id] : 0u;
}

static int known(uint8_t dir, uint32_t id)
{
    return (layout(dir, id) & LAYOUT_KNOWN) != 0u;
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
    /* Fields §3 narrows below their type; CONFIGURE_DRIVER values that overflow their register
     * fields are clamped by the driver, not rejected (§3.1). */
    if (dir != THRUM_DIR_H2D) {
        return 1;
    }
    switch (msg->id) {
    case THRUM_MSG_SEGMENT:
    case THRUM_MSG_PRELOAD_SEGMENT:
        return msg->field[SEGMENT_DURATION] >= THRUM_SEGMENT_MIN_DURATION_US &&
               msg->field[SEGMENT_DURATION] <= THRUM_SEGMENT_MAX_DURATION_US;
    case THRUM_MSG_PRELOAD_BEGIN:
    case THRUM_MSG_GO: /* the slot is field 0 of both */
        return msg->field[GO_SLOT] < THRUM_PROGRAM_SLOTS;
    case THRUM_MSG_ROM_EFFECT:
        return msg->field[ROM_EFFECT] >= THRUM_ROM_EFFECT_MIN && msg->field[ROM_EFFECT] <= THRUM_ROM_EFFECT_MAX;
    default:
        return 1;
    }
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

/* The flag a field-less host message sets (thrum_core.h THRUM_PLAIN_*). */
static uint8_t plain_flag(uint32_t id)
{
    switch (id) {
    case THRUM_MSG_IDENTIFY: return THRUM_PLAIN_IDENTIFY;
    case THRUM_MSG_PING: return THRUM_PLAIN_PING;
    case THRUM_MSG_STOP: return THRUM_PLAIN_STOP;
    case THRUM_MSG_STANDBY: return THRUM_PLAIN_STANDBY;
    default: return THRUM_PLAIN_CALIBRATE; /* the only other message without fields */
    }
}

int thrum_host_payload_parse(const uint8_t *payload, uint8_t len, thrum_host_payload_t *out)
{
    size_t pos = 0;
    thrum_msg_t msg;
    thrum_command_t *cmd;
    thrum_segment_t *seg;

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
        if (!thrum_msg_is_any_lane(msg.id)) {
            out->sequenced = 1;
        }
        if (msg.field_count == 0u) {
            cmd->plain |= plain_flag(msg.id);
            continue;
        }
        /* the entry was zeroed: only the fields a message has are set */
        cmd->id = (uint8_t)msg.id;
        seg = &cmd->arg.segment;
        switch (msg.id) {
        case THRUM_MSG_SEGMENT:
        case THRUM_MSG_PRELOAD_SEGMENT:
            seg->start = msg.field[SEGMENT_START];
            seg->duration = msg.field[SEGMENT_DURATION];
            seg->from = (uint8_t)msg.field[SEGMENT_FROM];
            seg->to = (uint8_t)msg.field[SEGMENT_TO];
            seg->event = msg.field[SEGMENT_EVENT];
            break;
        case THRUM_MSG_ROM_EFFECT:
            seg->start = msg.field[ROM_START];
            seg->duration = THRUM_ROM_LATE_WINDOW_US;
            seg->event = msg.field[ROM_EVENT];
            seg->effect = (uint8_t)msg.field[ROM_EFFECT];
            break;
        case THRUM_MSG_GO:
            cmd->arg.go.slot = (uint8_t)msg.field[GO_SLOT];
            cmd->arg.go.start = msg.field[GO_START];
            cmd->arg.go.event_base = msg.field[GO_EVENT_BASE];
            break;
        case THRUM_MSG_WAKE:
            cmd->arg.idle_timeout_ms = msg.field[0];
            break;
        case THRUM_MSG_CUT:
            cmd->arg.at = msg.field[0];
            break;
        case THRUM_MSG_PRELOAD_BEGIN:
            cmd->arg.slot = (uint8_t)msg.field[0];
            break;
        default: /* THRUM_MSG_CONFIGURE_DRIVER: decode accepted no other id with fields */
            cmd->arg.driver.rated_voltage = (uint8_t)msg.field[CONFIGURE_RATED_VOLTAGE];
            cmd->arg.driver.od_clamp = (uint8_t)msg.field[CONFIGURE_OD_CLAMP];
            cmd->arg.driver.drive_time = (uint8_t)msg.field[CONFIGURE_DRIVE_TIME];
            cmd->arg.driver.ol_lra_period = (uint8_t)msg.field[CONFIGURE_OL_LRA_PERIOD];
            break;
        }
        out->count++;
        if (out->count > THRUM_MAX_FIELD_MESSAGES) {
            return -1; /* more messages with fields than §3 allows in one payload */
        }
        cmd = &out->cmd[out->count];
        memset(cmd, 0, sizeof(*cmd));
    }
    if (cmd->plain != 0u) {
        out->count++;
    }
    return 0;
}
