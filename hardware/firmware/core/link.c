/*
 * Reliable delivery on the device side (PROTOCOL.md §2): sequence numbers, RESYNC, the UNSEQ
 * lane, flow control, one ACK per valid host frame, the command table that runs host messages,
 * and the watchdog that silences the actuator when the host goes quiet (§4.4).
 *
 * A frame is handled in three passes over its payload, decoding again each time rather than
 * keeping a parsed copy (stack is scarce on small MCUs): validate it whole, check order and
 * credits as executing it would (scheduler), then execute each message through its handler.
 */
#include <string.h>

#include "thrum_core.h"
#include "thrum_flash.h"

void thrum_link_init(thrum_fw_t *fw)
{
    memset(&fw->link, 0, sizeof(fw->link));
#if THRUM_FW_SESSIONS
    fw->link.key = THRUM_CRC_INIT; /* plain frames until a CLAIM (§3.8) */
#endif
}

/* ---- the command table ------------------------------------------------------------------------
 * One handler per host message id; the id's field layout and lane come from the codec's layout
 * table (messages.c), so adding a message is one row there and one row here. */

typedef void (*command_handler_t)(thrum_fw_t *fw, const thrum_msg_t *m, uint32_t rx_time);

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

/* By host message id; NULL: nothing beyond the ACK every frame gets (PING), or unassigned. */
static const command_handler_t handlers[] THRUM_FLASH = {
    NULL,                /* 0x00 unassigned */
    NULL,                /* 0x01 IDENTIFY: execute() flags the reply */
    NULL,                /* 0x02 PING */
    on_stop,             /* 0x03 STOP */
    on_segment,          /* 0x04 SEGMENT */
    on_configure_driver, /* 0x05 CONFIGURE_DRIVER */
    NULL,                /* 0x06 unassigned */
    NULL,                /* 0x07 unassigned */
    on_calibrate,        /* 0x08 CALIBRATE */
    on_wake,             /* 0x09 WAKE */
    on_standby,          /* 0x0A STANDBY */
    on_preload_begin,    /* 0x0B PRELOAD_BEGIN */
    on_preload_segment,  /* 0x0C PRELOAD_SEGMENT */
    on_go,               /* 0x0D GO */
    on_rom_effect,       /* 0x0E ROM_EFFECT */
    on_cut,              /* 0x0F CUT */
    on_sample_time,      /* 0x10 CONFIGURE_SAMPLE_TIME */
#if THRUM_FW_LIBRARY || THRUM_FW_STREAM
#if THRUM_FW_LIBRARY
    on_library_begin,    /* 0x11 LIBRARY_BEGIN */
    on_library_write,    /* 0x12 LIBRARY_WRITE */
    on_library_commit,   /* 0x13 LIBRARY_COMMIT */
    on_library_query,    /* 0x14 LIBRARY_QUERY */
    on_library_read,     /* 0x15 LIBRARY_READ */
    on_play_preset,      /* 0x16 PLAY_PRESET */
#else
    NULL, NULL, NULL, NULL, NULL, NULL,
#endif
#if THRUM_FW_STREAM
    on_shape,            /* 0x17 SHAPE */
    on_play_shape,       /* 0x18 PLAY_SHAPE */
    on_follow,           /* 0x19 FOLLOW */
    on_next_shape,       /* 0x1A NEXT_SHAPE */
#else
    NULL, NULL, NULL, NULL,
#endif
    NULL,                /* 0x1B reserved (compact stream) */
#if THRUM_FW_LIBRARY
    on_restore_calibration, /* 0x1C RESTORE_CALIBRATION */
#endif
#if THRUM_FW_FRAME_TIMES
    on_frame_times,      /* 0x1D FRAME_TIMES */
#endif
#if THRUM_FW_SESSIONS
    NULL,                /* 0x1E CLAIM: thrum_session_screen ran it */
    on_release,          /* 0x1F RELEASE */
#endif
#endif
};

/* Run the messages of a payload that passed every check, in order, each through its handler. */
static THRUM_NOINLINE void execute(thrum_fw_t *fw, const uint8_t *payload, uint8_t len, uint32_t rx_time)
{
    uint8_t pos = 0;
    thrum_msg_t m;

    while (pos < len) {
        int n = thrum_msg_decode(THRUM_DIR_H2D, payload + pos, (size_t)(len - pos), &m);
        command_handler_t handler;

        if (n < 0 || m.id >= sizeof(handlers) / sizeof(handlers[0])) {
            return; /* validated before: cannot happen */
        }
        pos = (uint8_t)(pos + n);
        if (m.id == THRUM_MSG_IDENTIFY) {
            fw->link.identify = 1; /* the reply rides in the frame that carries the ACK */
        }
        handler = (command_handler_t)THRUM_FLASH_PTR(&handlers[m.id]);
        if (handler != NULL) {
            handler(fw, &m, rx_time);
        }
    }
}

void thrum_link_handle_frame(thrum_fw_t *fw, const thrum_frame_t *frame, uint32_t rx_time)
{
    thrum_link_t *link = &fw->link;
    uint8_t sequenced;

#if THRUM_FW_SESSIONS
    if (thrum_session_screen(fw, frame, rx_time)) {
        return; /* not the holder's frame: answered, nothing of it ran (§3.8) */
    }
#endif
    /* Every valid frame is a clock sample, whether or not it runs, and gets one ACK (sent at the
     * end; IDENTIFY_REPLY rides with it when an executed IDENTIFY asked). */
    link->rx_ctrl = frame->ctrl;
    link->rx_seq = frame->seq;
    link->rx_time = rx_time;
    link->identify = 0;
#if THRUM_FW_DEPARTURES
    fw->departures.fresh = 1; /* the next ACK sent names this frame first (§3.7) */
#endif

    if (thrum_host_payload_validate(frame->payload, frame->len, &sequenced) != 0) {
        THRUM_COUNT(fw->parse_failures);
    } else {
        THRUM_COUNT(fw->stats.frames_ok);
        link->last_host_time = rx_time;
        link->host_seen = 1;
        link->watchdog_tripped = 0;
        if ((frame->ctrl & THRUM_CTRL_UNSEQ) != 0u) {
            if (sequenced) {
                THRUM_COUNT(fw->parse_failures); /* a sequenced message in the any-lane breaks §2.3 */
            } else {
                execute(fw, frame->payload, frame->len, rx_time);
            }
        } else {
            if ((frame->ctrl & THRUM_CTRL_RESYNC) != 0u) {
                link->next_seq = frame->seq;
            }
            if (frame->seq != link->next_seq) {
                /* duplicate or gap: the ACK's next_seq tells the host where to resume */
                THRUM_COUNT(fw->stats.duplicates);
            } else {
                switch (thrum_scheduler_check(fw, frame->payload, frame->len)) {
                case 0:
                    execute(fw, frame->payload, frame->len, rx_time);
                    link->next_seq = (uint8_t)(link->next_seq + 1u);
#if THRUM_FW_SESSIONS
                    link->released = 0; /* a host plays again: its silence is a fault again */
#endif
                    break;
                case 1:
                    /* entries out of order: a rule of §3.1, rejected like a bad parse */
                    THRUM_COUNT(fw->parse_failures);
                    break;
                default:
                    THRUM_COUNT(fw->stats.flow_violations);
                    thrum_telemetry_fault(fw, THRUM_FAULT_FLOW_CONTROL, frame->seq);
                    break;
                }
            }
        }
    }
    /* repeated ONSETs ride on the ACKs of any-lane frames (pings) only, never in a burst */
    thrum_telemetry_send(fw, link->identify, (frame->ctrl & THRUM_CTRL_UNSEQ) != 0u);
#if THRUM_FW_SESSIONS
    if (link->released && link->session != THRUM_SESSION_NONE) {
        thrum_session_end(fw); /* RELEASE ran: its ACK went in the session's key */
    }
#endif
}

void thrum_link_check_watchdog(thrum_fw_t *fw, uint32_t now)
{
    thrum_link_t *link = &fw->link;

    if (!link->host_seen || link->watchdog_tripped) {
        return;
    }
    if ((int32_t)(now - link->last_host_time) < (int32_t)THRUM_WATCHDOG_US) {
        return; /* not silent long enough (or a frame stamped after `now`) */
    }
    link->watchdog_tripped = 1;
    THRUM_COUNT(fw->stats.watchdog_stops);
    thrum_scheduler_stop(fw);
    /* A silence with nothing queued is still reported: a stream the silence starved (an underrun)
     * looks the same, and its host must learn it. Only a host that said it was done (RELEASE)
     * falls silent without a fault (§4.4). */
#if THRUM_FW_SESSIONS
    if (!link->released)
#endif
    {
        thrum_telemetry_fault(fw, THRUM_FAULT_WATCHDOG_STOP, 0);
    }
#if THRUM_FW_SESSIONS
    if (link->session != THRUM_SESSION_NONE) {
        thrum_session_end(fw); /* a silent holder's session lapses (its FAULT leaves in its key) */
    }
#endif
}
