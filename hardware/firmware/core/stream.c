/*
 * The compact stream (PROTOCOL.md §3.4, protocol version 2): SHAPE defines a short ramp list in a
 * RAM table once per connection, PLAY_SHAPE queues it relative to the stream cursor, and FOLLOW
 * queues ramps that continue from where the last one ended. The host decides every ramp; the
 * device only expands these messages into the same queue entries SEGMENT would have queued, so
 * credits, CUT and STOP keep their meaning (one slot per ramp).
 *
 * The cursor is moved by every entry the sequenced lane queues (SEGMENT, ROM_EFFECT, the ramps
 * of PLAY_SHAPE and FOLLOW) and by CUT; any-lane messages (STOP, GO, PLAY_PRESET) and trigger
 * inputs leave it alone, so the host can mirror it exactly from what it framed.
 */
#include <string.h>

#include "thrum_core.h"

#if THRUM_FW_STREAM

void thrum_stream_init(thrum_fw_t *fw)
{
    memset(&fw->stream, 0, sizeof(fw->stream));
}

void thrum_stream_moved(thrum_stream_cursor_t *c, const thrum_segment_t *seg)
{
    c->start = seg->start;
    c->end = seg->effect != 0u ? seg->start : seg->start + seg->duration;
    c->to = seg->effect != 0u ? 0u : seg->to;
    if (seg->event != 0u) {
        c->event = seg->event;
    }
}

void thrum_stream_cut(thrum_stream_cursor_t *c, uint32_t at)
{
    c->start = at;
    c->end = at;
    c->to = 0;
}

void thrum_stream_define(thrum_fw_t *fw, uint8_t shape, const uint8_t *data, uint8_t len)
{
    memcpy(fw->stream.shape[shape], data, len);
    fw->stream.shape_len[shape] = len;
}

/* Queue every ramp `r` reads, moving the cursor with each. */
static void queue_ramps(thrum_fw_t *fw, thrum_ramps_t *r)
{
    thrum_segment_t seg;

    while (thrum_ramps_next(r, &seg)) {
        thrum_scheduler_enqueue(fw, &seg);
        thrum_stream_moved(&fw->stream.cursor, &seg);
    }
}

void thrum_stream_play(thrum_fw_t *fw, uint8_t shape, uint32_t after, uint32_t event)
{
    thrum_ramps_t r;

    if (fw->stream.shape_len[shape] == 0u) {
        return; /* thrum_commands_check refuses the frame first */
    }
    thrum_ramps_play(&r, &fw->stream.cursor, fw->stream.shape[shape], fw->stream.shape_len[shape], after, event);
    queue_ramps(fw, &r);
}

void thrum_stream_follow(thrum_fw_t *fw, uint32_t gap, uint32_t event, const uint8_t *data, uint8_t len)
{
    thrum_ramps_t r;

    thrum_ramps_follow(&r, &fw->stream.cursor, data, len, gap, event);
    queue_ramps(fw, &r);
}

#else
typedef int thrum_stream_unused_t; /* ISO C wants a declaration in every translation unit */
#endif /* THRUM_FW_STREAM */
