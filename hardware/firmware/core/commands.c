/*
 * The commands: what each host message does (PROTOCOL.md §3, §4), in one descriptor table by
 * message id. A row names the message's handler, which execute() runs, and what the message
 * does to the queue, which thrum_commands_check() simulates before anything runs; the id's field
 * layout and lane come from the codec's layout table (messages.c). Adding a message is one row
 * there and one row here.
 *
 * Layer: above the modules the handlers call (scheduler, stream, program, library, power, setup,
 * calibration), below the link (link.c), which runs a frame's payload through both.
 */
#include "thrum_core.h"
#include "thrum_flash.h"

typedef void (*command_handler_t)(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time);

/* What a message does to the queue (thrum_commands_check). */
enum {
    QUEUE_NONE,  /* nothing */
    QUEUE_CLEAR, /* STOP, STANDBY: every slot free */
    QUEUE_CUT,   /* CUT: the entries at or after `at` go, the cursor moves there */
    QUEUE_ENTRY, /* SEGMENT, ROM_EFFECT: one entry at field 0 */
    QUEUE_SHAPE, /* SHAPE: a shape a later PLAY_SHAPE of the payload may name */
    QUEUE_RAMPS  /* PLAY_SHAPE, NEXT_SHAPE, FOLLOW: one entry per ramp */
};

/** One row per host message id. */
typedef struct command {
    command_handler_t run; /**< NULL: nothing beyond the ACK every frame gets (PING), or unassigned */
    uint8_t queue;         /**< QUEUE_* */
} command_t;

static void on_identify(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)m;
    (void)rx_time;
    fw->link.identify = 1; /* the reply rides in the frame that carries the ACK */
}

static void on_stop(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)m;
    (void)rx_time;
    thrum_scheduler_stop(fw);
}

static void on_standby(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    on_stop(fw, m, rx_time);
    thrum_power_standby(fw, THRUM_CAUSE_HOST);
}

static void on_calibrate(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)m;
    (void)rx_time;
    thrum_calibration_request(fw, THRUM_CAUSE_HOST);
}

/* SEGMENT and PRELOAD_SEGMENT share their layout (start or offset first). */
static void segment_of(const thrum_msg_t *m, thrum_segment_t *seg)
{
    seg->start = m->field[THRUM_F_SEGMENT_START];
    seg->duration = m->field[THRUM_F_SEGMENT_DURATION];
    seg->from = (uint8_t)m->field[THRUM_F_SEGMENT_FROM];
    seg->to = (uint8_t)m->field[THRUM_F_SEGMENT_TO];
    seg->event = m->field[THRUM_F_SEGMENT_EVENT];
    seg->effect = 0;
}

static void on_segment(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    thrum_segment_t seg;

    (void)rx_time;
    segment_of(m, &seg);
    thrum_scheduler_enqueue(fw, &seg);
#if THRUM_FW_STREAM
    thrum_stream_moved(&fw->stream.cursor, &seg);
#endif
}

static void on_rom_effect(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    thrum_segment_t seg;

    (void)rx_time;
    seg.start = m->field[THRUM_F_ROM_START];
    seg.duration = THRUM_ROM_LATE_WINDOW_US;
    seg.event = m->field[THRUM_F_ROM_EVENT];
    seg.from = 0;
    seg.to = 0;
    seg.effect = (uint8_t)m->field[THRUM_F_ROM_EFFECT];
    thrum_scheduler_enqueue(fw, &seg);
#if THRUM_FW_STREAM
    thrum_stream_moved(&fw->stream.cursor, &seg);
#endif
}

static void on_configure_driver(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    drv2605l_config_t *config = &fw->driver_config; /* SAMPLE_TIME stays as last set */

    (void)rx_time;
    config->rated_voltage = (uint8_t)m->field[0];
    config->od_clamp = (uint8_t)m->field[1];
    config->drive_time = (uint8_t)m->field[2];
    config->ol_lra_period = (uint8_t)m->field[3];
    thrum_setup_configure(fw, config);
}

static void on_wake(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    thrum_power_wake(fw, m->field[0], rx_time);
}

static void on_preload_begin(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)rx_time;
    thrum_program_begin(fw, (uint8_t)m->field[0]);
}

static void on_preload_segment(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    thrum_segment_t seg;

    (void)rx_time;
    segment_of(m, &seg);
    thrum_program_append(fw, &seg);
}

static void on_go(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    thrum_go_t go;

    (void)rx_time;
    go.slot = (uint8_t)m->field[THRUM_F_GO_SLOT];
    go.start = m->field[THRUM_F_GO_START];
    go.event_base = m->field[THRUM_F_GO_EVENT_BASE];
    thrum_program_go(fw, &go);
}

static void on_cut(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)rx_time;
    thrum_scheduler_cut(fw, m->field[THRUM_F_CUT_AT]);
#if THRUM_FW_STREAM
    thrum_stream_cut(&fw->stream.cursor, m->field[THRUM_F_CUT_AT]);
#endif
}

static void on_sample_time(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)rx_time;
    fw->driver_config.sample_time = (uint8_t)m->field[0]; /* written by the next set-up */
}

#if THRUM_FW_LIBRARY
static void on_library_begin(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)rx_time;
    thrum_library_begin(fw, m->field[THRUM_F_LIBRARY_SIZE], m->field[THRUM_F_LIBRARY_CRC]);
}

static void on_library_write(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)rx_time;
    thrum_library_write(fw, m->field[THRUM_F_LIBRARY_OFFSET], m->blob, m->blob_len);
}

static void on_library_commit(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)m;
    (void)rx_time;
    thrum_library_commit(fw);
}

static void on_library_query(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)m;
    (void)rx_time;
    thrum_library_query(fw);
}

static void on_library_read(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)rx_time;
    thrum_library_read(fw, m->field[THRUM_F_LIBRARY_OFFSET], (uint8_t)m->field[THRUM_F_LIBRARY_LENGTH]);
}

static void on_play_preset(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)rx_time;
    thrum_library_play(fw, m->field[THRUM_F_PLAY_ID], m->field[THRUM_F_PLAY_START], m->field[THRUM_F_PLAY_EVENT_BASE]);
}

static void on_restore_calibration(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    drv2605l_calibration_t words;

    (void)rx_time;
    words.failed = 0;
    words.a_cal_comp = (uint8_t)m->field[THRUM_F_RESTORE_A_CAL_COMP];
    words.a_cal_bemf = (uint8_t)m->field[THRUM_F_RESTORE_A_CAL_BEMF];
    words.bemf_gain = (uint8_t)m->field[THRUM_F_RESTORE_BEMF_GAIN];
    thrum_calibration_restore(fw, &words);
}
#endif

#if THRUM_FW_STREAM
static void on_shape(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)rx_time;
    thrum_stream_define(fw, (uint8_t)m->field[THRUM_F_SHAPE_ID], m->blob, m->blob_len);
}

static void on_play_shape(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)rx_time;
    thrum_stream_play(fw, (uint8_t)m->field[THRUM_F_PLAY_SHAPE_ID], m->field[THRUM_F_PLAY_SHAPE_AFTER],
                      m->field[THRUM_F_PLAY_SHAPE_EVENT]);
}

static void on_next_shape(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)rx_time;
    thrum_stream_play(fw, (uint8_t)m->field[THRUM_F_PLAY_SHAPE_ID], m->field[THRUM_F_PLAY_SHAPE_AFTER], 1u);
}

static void on_follow(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)rx_time;
    thrum_stream_follow(fw, m->field[THRUM_F_FOLLOW_GAP], m->field[THRUM_F_FOLLOW_EVENT], m->blob, m->blob_len);
}
#endif

#if THRUM_FW_FRAME_TIMES
/* FRAME_TIMES (§3.6): the next device frame may carry the newest SOF at once, then one every
 * interval at most. */
static void on_frame_times(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)rx_time;
    fw->frame_times.interval_ms = (uint16_t)m->field[THRUM_F_FRAME_TIMES_INTERVAL];
    fw->frame_times.sent = 0;
#if THRUM_FW_DEPARTURES
    if (fw->frame_times.interval_ms == 0u) {
        fw->departures.state = THRUM_DEPARTURE_NONE; /* off: an awaited departure is not reported (§3.7) */
    }
#endif
}
#endif

#if THRUM_FW_SESSIONS
/* RELEASE (§3.8): the session ends once this frame's ACK has left in its key; the watchdog then
 * stops silently until a session plays again. */
static void on_release(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time)
{
    (void)m;
    (void)rx_time;
    fw->link.released = 1;
}
#endif

/* By host message id (the rows follow the layout table's ids and its build options). */
static const command_t commands[] THRUM_FLASH = {
    {NULL, QUEUE_NONE},                   /* 0x00 unassigned */
    {on_identify, QUEUE_NONE},            /* 0x01 IDENTIFY */
    {NULL, QUEUE_NONE},                   /* 0x02 PING */
    {on_stop, QUEUE_CLEAR},               /* 0x03 STOP */
    {on_segment, QUEUE_ENTRY},            /* 0x04 SEGMENT */
    {on_configure_driver, QUEUE_NONE},    /* 0x05 CONFIGURE_DRIVER */
    {NULL, QUEUE_NONE},                   /* 0x06 unassigned */
    {NULL, QUEUE_NONE},                   /* 0x07 unassigned */
    {on_calibrate, QUEUE_NONE},           /* 0x08 CALIBRATE */
    {on_wake, QUEUE_NONE},                /* 0x09 WAKE */
    {on_standby, QUEUE_CLEAR},            /* 0x0A STANDBY */
    {on_preload_begin, QUEUE_NONE},       /* 0x0B PRELOAD_BEGIN */
    {on_preload_segment, QUEUE_NONE},     /* 0x0C PRELOAD_SEGMENT */
    {on_go, QUEUE_NONE},                  /* 0x0D GO: any lane, checked when it runs */
    {on_rom_effect, QUEUE_ENTRY},         /* 0x0E ROM_EFFECT */
    {on_cut, QUEUE_CUT},                  /* 0x0F CUT */
    {on_sample_time, QUEUE_NONE},         /* 0x10 CONFIGURE_SAMPLE_TIME */
#if THRUM_FW_LIBRARY || THRUM_FW_STREAM
#if THRUM_FW_LIBRARY
    {on_library_begin, QUEUE_NONE},       /* 0x11 LIBRARY_BEGIN */
    {on_library_write, QUEUE_NONE},       /* 0x12 LIBRARY_WRITE */
    {on_library_commit, QUEUE_NONE},      /* 0x13 LIBRARY_COMMIT */
    {on_library_query, QUEUE_NONE},       /* 0x14 LIBRARY_QUERY */
    {on_library_read, QUEUE_NONE},        /* 0x15 LIBRARY_READ */
    {on_play_preset, QUEUE_NONE},         /* 0x16 PLAY_PRESET: any lane, checked when it runs */
#else
    {NULL, QUEUE_NONE}, {NULL, QUEUE_NONE}, {NULL, QUEUE_NONE},
    {NULL, QUEUE_NONE}, {NULL, QUEUE_NONE}, {NULL, QUEUE_NONE},
#endif
#if THRUM_FW_STREAM
    {on_shape, QUEUE_SHAPE},              /* 0x17 SHAPE */
    {on_play_shape, QUEUE_RAMPS},         /* 0x18 PLAY_SHAPE */
    {on_follow, QUEUE_RAMPS},             /* 0x19 FOLLOW */
    {on_next_shape, QUEUE_RAMPS},         /* 0x1A NEXT_SHAPE */
#else
    {NULL, QUEUE_NONE}, {NULL, QUEUE_NONE}, {NULL, QUEUE_NONE}, {NULL, QUEUE_NONE},
#endif
    {NULL, QUEUE_NONE},                   /* 0x1B reserved (compact stream) */
#if THRUM_FW_LIBRARY
    {on_restore_calibration, QUEUE_NONE}, /* 0x1C RESTORE_CALIBRATION */
#endif
#if THRUM_FW_FRAME_TIMES
    {on_frame_times, QUEUE_NONE},         /* 0x1D FRAME_TIMES */
#endif
#if THRUM_FW_SESSIONS
    {NULL, QUEUE_NONE},                   /* 0x1E CLAIM: thrum_session_screen ran it */
    {on_release, QUEUE_NONE},             /* 0x1F RELEASE */
#endif
#endif
};
/* A message the codec decodes has a row: thrum_msg_decode knows the ids below THRUM_H2D_IDS only. */
typedef char thrum_command_rows_t[sizeof(commands) / sizeof(commands[0]) == THRUM_H2D_IDS ? 1 : -1];

/* ---- the check: the payload against the queue, before anything runs ----------------------------
 * Walk the payload as executing it would, each message by its row's QUEUE_*: STOP and STANDBY
 * free every slot, CUT removes the entries that start at or after its `at` (freeing their slots),
 * each SEGMENT and ROM_EFFECT (and each ramp of PLAY_SHAPE, NEXT_SHAPE and FOLLOW) takes one slot
 * and must not start before the entry queued ahead of it. The simulated queue is the first
 * `queued` real entries followed by the payload's own entries still standing (their starts in
 * `added`, a stack: CUT removes from the end). A CUT whose `at` has passed also ends the playing
 * entry; that slot is not counted here (the check does not depend on the clock).
 */

#if THRUM_FW_STREAM
/* Entries a payload may add that the check remembers: beyond the free slots the frame is refused
 * anyway (its last start is then kept current, for the order rule). */
#define ADDED_MAX (THRUM_FW_QUEUE_SLOTS + 1u)
#else
#define ADDED_MAX THRUM_MAX_FIELD_MESSAGES /* one entry per message with fields at most */
#endif

/* The check's model of the queue: the first `queued` real entries, then the `n_added` starts in
 * `added`; `free_slots` left. */
typedef struct check_queue {
    uint8_t n_added;
    uint8_t queued;
    uint8_t free_slots;
} check_queue_t;

#if THRUM_FW_STREAM
/* The check's model of the stream (§3.4). */
typedef struct check_stream {
    thrum_stream_cursor_t cursor;
    /* SHAPEs earlier in the payload (PLAY_SHAPE may name one): id, data in the payload */
    uint8_t def_id[THRUM_MAX_FIELD_MESSAGES];
    uint8_t def_len[THRUM_MAX_FIELD_MESSAGES];
    const uint8_t *def_data[THRUM_MAX_FIELD_MESSAGES];
    uint8_t n_def;
} check_stream_t;
#endif

/* Start of the simulated queue's last entry; 0 when it is empty. */
static int sim_tail(const thrum_scheduler_t *s, const check_queue_t *q, const uint32_t *added, uint32_t *start)
{
    if (q->n_added > 0u) {
        *start = added[q->n_added - 1u];
        return 1;
    }
    if (q->queued > 0u) {
        *start = s->queue[THRUM_QUEUE_INDEX(s->head, q->queued - 1u)].start;
        return 1;
    }
    return 0;
}

/* One entry starting at `start`: 1 when it is out of order (§3.1), else 0 and *result = 2 when
 * no slot is left. */
static int check_entry(const thrum_scheduler_t *s, check_queue_t *q, uint32_t *added, uint32_t start, int *result)
{
    uint32_t last;

    if (sim_tail(s, q, added, &last) && thrum_time_before(start, last)) {
        return 1;
    }
    if (q->free_slots == 0u) {
        *result = 2;
    } else {
        q->free_slots--;
    }
    if (q->n_added < ADDED_MAX) {
        added[q->n_added++] = start;
    }
#if THRUM_FW_STREAM
    else {
        added[ADDED_MAX - 1u] = start;
    }
#endif
    return 0;
}

#if THRUM_FW_STREAM
/* The ramps of PLAY_SHAPE, NEXT_SHAPE (the same fields but the event) or FOLLOW `m`, checked as
 * entries; 1 when one is out of order or the shape is not defined. */
static int check_ramps(const thrum_fw_t *fw, check_queue_t *q, uint32_t *added, check_stream_t *c,
                       const thrum_msg_t *m, int *result)
{
    thrum_ramps_t r;
    thrum_segment_t seg;

    if (m->id == THRUM_MSG_FOLLOW) {
        thrum_ramps_follow(&r, &c->cursor, m->blob, m->blob_len, m->field[THRUM_F_FOLLOW_GAP], 0u);
    } else {
        uint8_t id = (uint8_t)m->field[THRUM_F_PLAY_SHAPE_ID];
        const uint8_t *data = fw->stream.shape[id];
        uint8_t len = fw->stream.shape_len[id];
        uint8_t i;

        for (i = 0; i < c->n_def; i++) {
            if (c->def_id[i] == id) {
                data = c->def_data[i];
                len = c->def_len[i];
            }
        }
        if (len == 0u) {
            return 1; /* no such shape: a rule of §3.4 */
        }
        thrum_ramps_play(&r, &c->cursor, data, len, m->field[THRUM_F_PLAY_SHAPE_AFTER], 0u);
    }
    while (thrum_ramps_next(&r, &seg)) {
        if (check_entry(&fw->sched, q, added, seg.start, result)) {
            return 1;
        }
        thrum_stream_moved(&c->cursor, &seg);
    }
    return 0;
}
#endif

/* Out of line: its model of the queue is off the stack again before the handlers run (on the
 * AVR, 50 B less stack bound and 20 B less flash than inlined into the link). */
THRUM_NOINLINE int thrum_commands_check(const thrum_fw_t *fw, const uint8_t *payload, uint8_t len)
{
    const thrum_scheduler_t *s = &fw->sched;
    check_queue_t q;
    uint32_t added[ADDED_MAX];
#if THRUM_FW_STREAM
    check_stream_t c;
#endif
    uint8_t pos = 0;
    int result = 0;
    thrum_msg_t m;

    q.n_added = 0;
    q.queued = s->count;
    q.free_slots = (uint8_t)(THRUM_FW_QUEUE_SLOTS - s->count);
#if THRUM_FW_STREAM
    c.cursor = fw->stream.cursor;
    c.n_def = 0;
#endif
    while (pos < len) {
        uint32_t last;
        int n = thrum_msg_decode(THRUM_DIR_H2D, payload + pos, (size_t)(len - pos), &m);

        if (n < 0) {
            return 1; /* validated before: cannot happen */
        }
        pos = (uint8_t)(pos + n);
        switch (THRUM_FLASH_U8(&commands[m.id].queue)) {
        case QUEUE_CLEAR:
            q.free_slots = THRUM_FW_QUEUE_SLOTS;
            q.queued = 0;
            q.n_added = 0;
            break;
        case QUEUE_CUT:
            while (sim_tail(s, &q, added, &last) && !thrum_time_before(last, m.field[THRUM_F_CUT_AT])) {
                if (q.n_added > 0u) {
                    q.n_added--;
                } else {
                    q.queued--;
                }
                q.free_slots++;
            }
#if THRUM_FW_STREAM
            thrum_stream_cut(&c.cursor, m.field[THRUM_F_CUT_AT]);
#endif
            break;
        case QUEUE_ENTRY:
            /* the start is field 0 of SEGMENT and ROM_EFFECT */
            if (check_entry(s, &q, added, m.field[0], &result)) {
                return 1; /* ordering is checked first: it rejects the frame for good */
            }
#if THRUM_FW_STREAM
            {
                thrum_segment_t seg;

                seg.start = m.field[0];
                seg.duration = m.id == THRUM_MSG_SEGMENT ? m.field[THRUM_F_SEGMENT_DURATION] : 0u;
                seg.to = m.id == THRUM_MSG_SEGMENT ? (uint8_t)m.field[THRUM_F_SEGMENT_TO] : 0u;
                seg.effect = m.id == THRUM_MSG_SEGMENT ? 0u : 1u;
                seg.event = 0;
                thrum_stream_moved(&c.cursor, &seg);
            }
#endif
            break;
#if THRUM_FW_STREAM
        case QUEUE_SHAPE:
            if (c.n_def < THRUM_MAX_FIELD_MESSAGES) {
                c.def_id[c.n_def] = (uint8_t)m.field[THRUM_F_SHAPE_ID];
                c.def_len[c.n_def] = m.blob_len;
                c.def_data[c.n_def++] = m.blob;
            }
            break;
        case QUEUE_RAMPS:
            if (check_ramps(fw, &q, added, &c, &m, &result)) {
                return 1;
            }
            break;
#endif
        default:
            break;
        }
    }
    return result;
}

/* ---- execution --------------------------------------------------------------------------------- */

/* Run the messages of a payload that passed every check, in order, each through its handler. */
THRUM_NOINLINE void thrum_commands_execute(thrum_fw_t *fw, const uint8_t *payload, uint8_t len, uint32_t rx_time)
{
    uint8_t pos = 0;
    thrum_msg_t m;

    while (pos < len) {
        int n = thrum_msg_decode(THRUM_DIR_H2D, payload + pos, (size_t)(len - pos), &m);
        command_handler_t handler;

        if (n < 0) {
            return; /* validated before: cannot happen */
        }
        pos = (uint8_t)(pos + n);
        handler = (command_handler_t)THRUM_FLASH_PTR(&commands[m.id].run);
        if (handler != NULL) {
            handler(fw, &m, rx_time);
        }
    }
}
