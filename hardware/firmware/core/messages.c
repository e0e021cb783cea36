/*
 * Messages (PROTOCOL.md §3). The field layout and lane of every message live in one table below,
 * so decoding, encoding, range checks and the device's command table (commands.c) share it. A host
 * payload is validated whole before anything runs, so a payload that fails anywhere executes
 * nothing.
 */
#include <string.h>

#include "thrum_core.h"
#include "thrum_flash.h"

/* A layout packs the field count into bits 0..3 and field i's THRUM_FIELD_* type into bits
 * 4+2i..5+2i; LAYOUT_ANY_LANE marks host messages allowed in UNSEQ frames. */
#define LAYOUT_COUNT_MASK 0x0Fu
#define LAYOUT_TYPE_SHIFT 4u
#define LAYOUT_ANY_LANE 0x80000000u
/* Bits 24..26: the range rule §3 adds to a host message's fields (RULE_*). Bit 28: a byte string
 * (`u8` length, then the bytes) follows the fixed fields. */
#define LAYOUT_RULE_SHIFT 24u
#if THRUM_FW_FRAME_TIMES
#define LAYOUT_RULE_MASK 15u /* bits 24..27: RULE_INTERVAL_MS, RULE_USB_FRAME and RULE_WAIT too */
#elif THRUM_FW_LIBRARY
#define LAYOUT_RULE_MASK 7u
#else
#define LAYOUT_RULE_MASK 3u /* no RULE_READ_LENGTH: the switch stays a 2-bit one */
#endif
#define LAYOUT_BLOB 0x10000000u
#define RULE_DURATION (1uL << LAYOUT_RULE_SHIFT)   /* field 1 is a duration, 1..1 000 000 */
#define RULE_SLOT (2uL << LAYOUT_RULE_SHIFT)       /* field 0 is a program slot */
#define RULE_ROM_EFFECT (3uL << LAYOUT_RULE_SHIFT) /* field 1 is a ROM effect id, 1..123 */
#define RULE_READ_LENGTH (4uL << LAYOUT_RULE_SHIFT) /* field 1 is a LIBRARY_READ length, 1..32 */
#define RULE_SHAPE (5uL << LAYOUT_RULE_SHIFT)       /* field 0 is a shape id, the data a ramp list (§3.4) */
#define RULE_SHAPE_ID (6uL << LAYOUT_RULE_SHIFT)    /* field 1 is a shape id */
#define RULE_FOLLOW (7uL << LAYOUT_RULE_SHIFT)      /* the data is FOLLOW pairs */
#define RULE_INTERVAL_MS (8uL << LAYOUT_RULE_SHIFT) /* field 0 is a FRAME_TIMES interval, 0..60 000 */
#define RULE_USB_FRAME (9uL << LAYOUT_RULE_SHIFT)   /* field 0 is a USB frame number, 0..2047 */
#define RULE_WAIT (10uL << LAYOUT_RULE_SHIFT)       /* field 1 is a DEPARTURE wait, 0..1 000 000 */
#define RULE_SESSION (11uL << LAYOUT_RULE_SHIFT)    /* field 0 is a session: not 0, its key not THRUM_CRC_INIT */
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

/* Layouts by id: host messages 0x00..0x1F, device messages 0x40..0x4D (0x11.. and 0x48.. only
 * with THRUM_FW_LIBRARY, the build that speaks versions 1 and 2; 0x17..0x1A only with
 * THRUM_FW_STREAM; 0x1D and 0x4B only with THRUM_FW_FRAME_TIMES; 0x4C only with
 * THRUM_FW_DEPARTURES; 0x1E, 0x1F and 0x4D only with THRUM_FW_SESSIONS). LAYOUT_KNOWN marks an
 * assigned id (0x06, 0x07 and 0x44 stay unassigned: the golden vectors use them as unknown). */
#define LAYOUT_KNOWN 0x40000000u
#define SEGMENT_LAYOUT (LAYOUT_KNOWN | RULE_DURATION | 5u | F(0, U32) | F(1, UV) | F(2, U8) | F(3, U8) | F(4, UV))
static const uint32_t h2d_layouts[] THRUM_FLASH = {
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
    LAYOUT_KNOWN | RULE_SLOT | 1u | F(0, U8),                               /* PRELOAD_BEGIN */
    SEGMENT_LAYOUT,                                                         /* PRELOAD_SEGMENT */
    LAYOUT_KNOWN | LAYOUT_ANY_LANE | RULE_SLOT | 3u | F(0, U8) | F(1, U32) | F(2, UV), /* GO */
    LAYOUT_KNOWN | RULE_ROM_EFFECT | 3u | F(0, U32) | F(1, U8) | F(2, UV),            /* ROM_EFFECT */
    LAYOUT_KNOWN | 1u | F(0, U32),                                          /* CUT */
    LAYOUT_KNOWN | 1u | F(0, U8),                                           /* CONFIGURE_SAMPLE_TIME */
#if THRUM_FW_LIBRARY || THRUM_FW_STREAM
#if THRUM_FW_LIBRARY
    LAYOUT_KNOWN | 2u | F(0, U32) | F(1, U32),                              /* LIBRARY_BEGIN */
    LAYOUT_KNOWN | LAYOUT_BLOB | 1u | F(0, U32),                            /* LIBRARY_WRITE */
    LAYOUT_KNOWN,                                                           /* LIBRARY_COMMIT */
    LAYOUT_KNOWN | LAYOUT_ANY_LANE,                                         /* LIBRARY_QUERY */
    LAYOUT_KNOWN | LAYOUT_ANY_LANE | RULE_READ_LENGTH | 2u | F(0, U32) | F(1, U8), /* LIBRARY_READ */
    LAYOUT_KNOWN | LAYOUT_ANY_LANE | 3u | F(0, UV) | F(1, U32) | F(2, UV),  /* PLAY_PRESET */
#else
    0u, 0u, 0u, 0u, 0u, 0u,
#endif
#if THRUM_FW_STREAM
    LAYOUT_KNOWN | LAYOUT_BLOB | RULE_SHAPE | 1u | F(0, U8),                /* SHAPE */
    LAYOUT_KNOWN | RULE_SHAPE_ID | 3u | F(0, UV) | F(1, U8) | F(2, UV),     /* PLAY_SHAPE */
    LAYOUT_KNOWN | LAYOUT_BLOB | RULE_FOLLOW | 2u | F(0, UV) | F(1, UV),     /* FOLLOW */
    LAYOUT_KNOWN | RULE_SHAPE_ID | 2u | F(0, UV) | F(1, U8),                 /* NEXT_SHAPE */
#else
    0u, 0u, 0u, 0u,
#endif
    0u,                                                                     /* 0x1B: reserved (compact stream) */
#if THRUM_FW_LIBRARY
    LAYOUT_KNOWN | 3u | F(0, U8) | F(1, U8) | F(2, U8),                     /* RESTORE_CALIBRATION */
#endif
#if THRUM_FW_FRAME_TIMES
    LAYOUT_KNOWN | LAYOUT_ANY_LANE | RULE_INTERVAL_MS | 1u | F(0, UV),      /* FRAME_TIMES */
#endif
#if THRUM_FW_SESSIONS
    LAYOUT_KNOWN | LAYOUT_ANY_LANE | RULE_SESSION | 1u | F(0, U32),         /* CLAIM */
    LAYOUT_KNOWN | LAYOUT_ANY_LANE,                                         /* RELEASE */
#endif
#endif
};
/* The command table (commands.c) has a row for each of these ids. */
typedef char thrum_h2d_layout_rows_t[sizeof(h2d_layouts) / sizeof(h2d_layouts[0]) == THRUM_H2D_IDS ? 1 : -1];
static const uint32_t d2h_layouts[] THRUM_FLASH = {
    LAYOUT_KNOWN | 5u | F(0, U8) | F(1, U8) | F(2, U8) | F(3, U32) | F(4, UV),          /* ACK */
    LAYOUT_KNOWN | 10u | F(0, UV) | F(1, UV) | F(2, UV) | F(3, UV) | F(4, U32) | F(5, U32) |
        F(6, UV) | F(7, UV) | F(8, UV) | F(9, UV),                                      /* IDENTIFY_REPLY */
    LAYOUT_KNOWN | 3u | F(0, UV) | F(1, U32) | F(2, U8),                                /* ONSET */
    LAYOUT_KNOWN | 2u | F(0, UV) | F(1, UV),                                            /* FAULT */
    0u,
    LAYOUT_KNOWN | 5u | F(0, U8) | F(1, U8) | F(2, U8) | F(3, U8) | F(4, U8),           /* CALIBRATION_RESULT */
    LAYOUT_KNOWN | 2u | F(0, U8) | F(1, U8),                                            /* STATE */
    LAYOUT_KNOWN | 3u | F(0, UV) | F(1, UV) | F(2, U8),                                 /* CAPABILITIES */
#if THRUM_FW_LIBRARY
    LAYOUT_KNOWN | 6u | F(0, U8) | F(1, U8) | F(2, U32) | F(3, U32) | F(4, U32) | F(5, U32), /* LIBRARY */
    LAYOUT_KNOWN | LAYOUT_BLOB | 1u | F(0, U32),                                        /* LIBRARY_DATA */
    LAYOUT_KNOWN | 3u | F(0, U8) | F(1, UV) | F(2, U32),                                /* TRIGGER */
#endif
#if THRUM_FW_FRAME_TIMES
    LAYOUT_KNOWN | RULE_USB_FRAME | 2u | F(0, UV) | F(1, U32),                          /* FRAME_TIME */
#endif
#if THRUM_FW_DEPARTURES
    LAYOUT_KNOWN | RULE_WAIT | 2u | F(0, U32) | F(1, UV),                               /* DEPARTURE */
#endif
#if THRUM_FW_SESSIONS
    LAYOUT_KNOWN | 3u | F(0, U32) | F(1, U8) | F(2, U32),                               /* SESSION */
#endif
};

static uint32_t layout(uint8_t dir, uint32_t id)
{
    if (dir == THRUM_DIR_H2D) {
        return id < sizeof(h2d_layouts) / sizeof(h2d_layouts[0]) ? THRUM_FLASH_U32(&h2d_layouts[id]) : 0u;
    }
    id -= THRUM_MSG_ACK;
    return id < sizeof(d2h_layouts) / sizeof(d2h_layouts[0]) ? THRUM_FLASH_U32(&d2h_layouts[id]) : 0u;
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

int thrum_msg_has_blob(uint8_t dir, uint32_t id)
{
    return known(dir, id) && (layout(dir, id) & LAYOUT_BLOB) != 0u;
}

int thrum_msg_is_any_lane(uint32_t id)
{
    return known(THRUM_DIR_H2D, id) && (layout(THRUM_DIR_H2D, id) & LAYOUT_ANY_LANE) != 0u;
}

/* The range rule of layout `l` (§3 narrows these fields below their type; CONFIGURE_DRIVER values
 * that overflow their register fields are clamped by the driver, not rejected, §3.1). */
static int rule_ok(uint32_t l, const thrum_msg_t *msg)
{
    switch ((uint8_t)(l >> LAYOUT_RULE_SHIFT) & LAYOUT_RULE_MASK) {
    case RULE_DURATION >> LAYOUT_RULE_SHIFT:
        return msg->field[SEGMENT_DURATION] >= THRUM_SEGMENT_MIN_DURATION_US &&
               msg->field[SEGMENT_DURATION] <= THRUM_SEGMENT_MAX_DURATION_US;
    case RULE_SLOT >> LAYOUT_RULE_SHIFT:
        return msg->field[GO_SLOT] < THRUM_PROGRAM_SLOTS;
    case RULE_ROM_EFFECT >> LAYOUT_RULE_SHIFT:
        return msg->field[ROM_EFFECT] >= THRUM_ROM_EFFECT_MIN && msg->field[ROM_EFFECT] <= THRUM_ROM_EFFECT_MAX;
#if THRUM_FW_LIBRARY
    case RULE_READ_LENGTH >> LAYOUT_RULE_SHIFT:
        return msg->field[1] >= 1u && msg->field[1] <= THRUM_LIBRARY_READ_MAX;
#endif
#if THRUM_FW_STREAM
    case RULE_SHAPE >> LAYOUT_RULE_SHIFT:
        return msg->field[0] < THRUM_STREAM_SHAPES && msg->blob != NULL &&
               thrum_ramps_valid(msg->blob, msg->blob_len, 1, 0u);
    case RULE_SHAPE_ID >> LAYOUT_RULE_SHIFT:
        return msg->field[1] < THRUM_STREAM_SHAPES;
    case RULE_FOLLOW >> LAYOUT_RULE_SHIFT:
        return msg->blob != NULL && thrum_ramps_valid(msg->blob, msg->blob_len, 0, msg->field[1]);
#endif
#if THRUM_FW_FRAME_TIMES
    case RULE_INTERVAL_MS >> LAYOUT_RULE_SHIFT:
        return msg->field[0] <= THRUM_FRAME_TIMES_MAX_INTERVAL_MS;
    case RULE_USB_FRAME >> LAYOUT_RULE_SHIFT:
        return msg->field[0] <= THRUM_USB_FRAME_MASK;
#endif
#if THRUM_FW_DEPARTURES
    case RULE_WAIT >> LAYOUT_RULE_SHIFT:
        return msg->field[1] <= THRUM_DEPARTURE_MAX_WAIT_US;
#endif
#if THRUM_FW_SESSIONS
    case RULE_SESSION >> LAYOUT_RULE_SHIFT:
        return msg->field[0] != THRUM_SESSION_NONE && thrum_session_key(msg->field[0]) != THRUM_CRC_INIT;
#endif
    default:
        return 1;
    }
}

int thrum_msg_fields_valid(uint8_t dir, const thrum_msg_t *msg)
{
    uint32_t l = layout(dir, msg->id);
    uint32_t types = l >> LAYOUT_TYPE_SHIFT;
    uint8_t i;

    if ((l & LAYOUT_KNOWN) == 0u || msg->field_count != (uint8_t)(l & LAYOUT_COUNT_MASK)) {
        return 0;
    }
    for (i = 0; i < msg->field_count; i++, types >>= 2) {
        if ((types & 3u) == THRUM_FIELD_U8 && msg->field[i] > 0xFFu) {
            return 0;
        }
    }
    return rule_ok(l, msg);
}

int thrum_msg_decode(uint8_t dir, const uint8_t *in, size_t len, thrum_msg_t *msg)
{
    size_t pos;
    int n;
    uint8_t i;
    uint32_t l;

    n = thrum_uvarint_decode(in, len, &msg->id);
    if (n < 0) {
        return -1;
    }
    pos = (size_t)n;
    l = layout(dir, msg->id);
    if ((l & LAYOUT_KNOWN) == 0u) {
        return -1;
    }
    msg->field_count = (uint8_t)(l & LAYOUT_COUNT_MASK);
    for (i = 0; i < msg->field_count; i++) {
        uint8_t type;

        l >>= (i == 0u) ? LAYOUT_TYPE_SHIFT : 2u;
        type = (uint8_t)(l & 3u);
        if (type == THRUM_FIELD_UV) {
            n = thrum_uvarint_decode(in + pos, len - pos, &msg->field[i]);
            if (n < 0) {
                return -1;
            }
            pos += (size_t)n;
            continue;
        }
        if (type == THRUM_FIELD_U8) {
            if (pos + 1u > len) {
                return -1;
            }
            msg->field[i] = in[pos];
            pos += 1u;
            continue;
        }
        if (pos + 4u > len) {
            return -1;
        }
        msg->field[i] = (uint32_t)in[pos] | ((uint32_t)in[pos + 1u] << 8) |
                        ((uint32_t)in[pos + 2u] << 16) | ((uint32_t)in[pos + 3u] << 24);
        pos += 4u;
    }
#if THRUM_FW_LIBRARY
    msg->blob = NULL;
    msg->blob_len = 0;
    if ((layout(dir, msg->id) & LAYOUT_BLOB) != 0u) {
        if (pos + 1u > len || pos + 1u + in[pos] > len) {
            return -1;
        }
        msg->blob_len = in[pos];
        msg->blob = in + pos + 1u;
        pos += 1u + (size_t)msg->blob_len;
    }
#endif
    /* decoded u8 fields cannot exceed 255: only the range rule is left to check */
    if (!rule_ok(layout(dir, msg->id), msg)) {
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
#if THRUM_FW_LIBRARY
    if (thrum_msg_has_blob(dir, msg->id)) {
        if ((uint16_t)pos + 1u + msg->blob_len > cap || (msg->blob_len > 0u && msg->blob == NULL)) {
            return 0;
        }
        out[pos] = msg->blob_len;
        if (msg->blob_len > 0u) {
            memcpy(out + pos + 1u, msg->blob, msg->blob_len);
        }
        pos = (uint8_t)(pos + 1u + msg->blob_len);
    }
#endif
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

int thrum_host_payload_validate(const uint8_t *payload, uint8_t len, uint8_t *sequenced)
{
    uint8_t pos = 0;
    uint8_t with_fields = 0;
    thrum_msg_t msg;

    *sequenced = 0;
    while (pos < len) {
        int n = thrum_msg_decode(THRUM_DIR_H2D, payload + pos, (size_t)(len - pos), &msg);
        if (n < 0) {
            return -1;
        }
        pos = (uint8_t)(pos + n);
        if (!thrum_msg_is_any_lane(msg.id)) {
            *sequenced = 1;
        }
        if (msg.field_count > 0u && ++with_fields > THRUM_MAX_FIELD_MESSAGES) {
            return -1; /* more messages with fields than §3 allows in one payload */
        }
    }
    return 0;
}
