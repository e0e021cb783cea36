/*
 * Ramp lists (PROTOCOL.md §3.4): the wire grammar of SHAPE data and FOLLOW pairs, read one ramp
 * at a time as queue entries. Part of the codec: messages.c checks SHAPE and FOLLOW data with
 * thrum_ramps_valid, the stream (stream.c) and the payload check (commands.c) read the ramps
 * relative to a stream cursor. It calls only the varint codec.
 */
#include "thrum_core.h"

#if THRUM_FW_STREAM

/* Read a varint from the ramp data; 0 when it is truncated or malformed. */
static int take_uv(thrum_ramps_t *r, uint32_t *v)
{
    int n = thrum_uvarint_decode(r->p, (size_t)(r->end - r->p), v);

    if (n < 0) {
        return 0;
    }
    r->p += n;
    return 1;
}

static int take_u8(thrum_ramps_t *r, uint8_t *v)
{
    if (r->p >= r->end) {
        return 0;
    }
    *v = *r->p++;
    return 1;
}

void thrum_ramps_play(thrum_ramps_t *r, const thrum_stream_cursor_t *c, const uint8_t *shape, uint8_t len,
                      uint32_t after, uint32_t event)
{
    r->p = shape + 1;
    r->end = shape + len;
    r->left = len > 0u ? shape[0] : 0u;
    r->follow = 0;
    r->prev_to = 0;
    r->t = c->start + after;
    r->event = event != 0u ? c->event + event : 0u;
    r->last_event = c->event;
    r->bad = len == 0u;
}

void thrum_ramps_follow(thrum_ramps_t *r, const thrum_stream_cursor_t *c, const uint8_t *data, uint8_t len,
                        uint32_t gap, uint32_t event)
{
    r->p = data;
    r->end = data + len;
    r->left = 0xFFu;
    r->follow = 1;
    r->prev_to = gap == 0u ? c->to : 0u;
    r->t = c->end + gap;
    r->event = event != 0u ? c->event + event : 0u;
    r->last_event = c->event;
    r->bad = 0;
}

int thrum_ramps_next(thrum_ramps_t *r, thrum_segment_t *seg)
{
    uint32_t head;
    uint32_t gap = 0;

    if (r->bad || (r->follow ? r->p >= r->end : r->left == 0u)) {
        return 0;
    }
    seg->from = r->prev_to;
    if (r->follow) {
        /* head = duration << 1 | marks the next event (the last one marked + 1) */
        if (!take_uv(r, &head) || !take_u8(r, &seg->to) || ((head & 1u) != 0u && r->event != 0u)) {
            r->bad = 1; /* a flag on a first ramp that `event` marks already: malformed */
            return 0;
        }
        seg->duration = head >> 1;
        if ((head & 1u) != 0u) {
            r->event = r->last_event + 1u;
        }
    } else {
        r->left--;
        /* head = duration << 2 | a gap follows << 1 | a `from` follows (docs/library.md shapes) */
        if (!take_uv(r, &head) || ((head & 2u) != 0u && !take_uv(r, &gap)) ||
            ((head & 1u) != 0u && !take_u8(r, &seg->from)) || !take_u8(r, &seg->to)) {
            r->bad = 1;
            return 0;
        }
        seg->duration = head >> 2;
    }
    if (seg->duration < THRUM_SEGMENT_MIN_DURATION_US || seg->duration > THRUM_SEGMENT_MAX_DURATION_US) {
        r->bad = 1;
        return 0;
    }
    seg->start = r->t + gap;
    seg->event = r->event;
    seg->effect = 0;
    if (r->event != 0u) {
        r->last_event = r->event;
    }
    r->event = 0;
    r->t = seg->start + seg->duration;
    r->prev_to = seg->to;
    return 1;
}

int thrum_ramps_valid(const uint8_t *data, uint8_t len, int is_shape, uint32_t event)
{
    thrum_stream_cursor_t c = {0u, 0u, 0u, 0u};
    thrum_ramps_t r;
    thrum_segment_t seg;
    uint8_t n = 0;

    if (is_shape) {
        if (len < 2u || len > THRUM_STREAM_SHAPE_BYTES || data[0] == 0u) {
            return 0;
        }
        thrum_ramps_play(&r, &c, data, len, 0u, 0u);
    } else {
        if (len == 0u) {
            return 0;
        }
        thrum_ramps_follow(&r, &c, data, len, 0u, event);
    }
    while (thrum_ramps_next(&r, &seg)) {
        n++;
    }
    /* every ramp read whole, and nothing left over */
    return !r.bad && r.p == r.end && n > 0u;
}

#else
typedef int thrum_ramps_unused_t; /* ISO C wants a declaration in every translation unit */
#endif /* THRUM_FW_STREAM */
