/*
 * thrum_core.h — internal interfaces between the parts of the firmware core.
 * Not a public header: ports and the Swift virtual device use thrum_fw.h only.
 */
#ifndef THRUM_CORE_H
#define THRUM_CORE_H

#include "thrum_fw.h"

/*
 * The core's modules call down only: a file calls functions of the files below it in the layer
 * order that tools/fw-layers.py declares (hardware/firmware/README.md draws it), never one above,
 * and `make -C hardware/firmware layers` fails when one does.
 */

/* hal.c: the bottom layer */
/** The device clock, µs: the HAL's clock_us. */
uint32_t thrum_clock(const thrum_fw_t *fw);

/** GO's fields. */
typedef struct thrum_go {
    uint32_t start;
    uint32_t event_base;
    uint8_t slot;
} thrum_go_t;

/* Field positions of host messages (PROTOCOL.md §3.1), as thrum_msg_t.field indexes. */
#define THRUM_F_SEGMENT_START 0u
#define THRUM_F_SEGMENT_DURATION 1u
#define THRUM_F_SEGMENT_FROM 2u
#define THRUM_F_SEGMENT_TO 3u
#define THRUM_F_SEGMENT_EVENT 4u
#define THRUM_F_ROM_START 0u
#define THRUM_F_ROM_EFFECT 1u
#define THRUM_F_ROM_EVENT 2u
#define THRUM_F_GO_SLOT 0u
#define THRUM_F_GO_START 1u
#define THRUM_F_GO_EVENT_BASE 2u
#define THRUM_F_CUT_AT 0u
#define THRUM_F_LIBRARY_SIZE 0u
#define THRUM_F_LIBRARY_CRC 1u
#define THRUM_F_LIBRARY_OFFSET 0u
#define THRUM_F_LIBRARY_LENGTH 1u
#define THRUM_F_PLAY_ID 0u
#define THRUM_F_PLAY_START 1u
#define THRUM_F_PLAY_EVENT_BASE 2u
#define THRUM_F_RESTORE_A_CAL_COMP 0u
#define THRUM_F_RESTORE_A_CAL_BEMF 1u
#define THRUM_F_RESTORE_BEMF_GAIN 2u
#define THRUM_F_SHAPE_ID 0u
#define THRUM_F_PLAY_SHAPE_AFTER 0u
#define THRUM_F_PLAY_SHAPE_ID 1u
#define THRUM_F_PLAY_SHAPE_EVENT 2u
#define THRUM_F_FOLLOW_GAP 0u
#define THRUM_F_FOLLOW_EVENT 1u
#define THRUM_F_FRAME_TIMES_INTERVAL 0u

/* messages.c */
/** Check a whole host payload (§3): every message parses, at most THRUM_MAX_FIELD_MESSAGES carry
 *  fields. Sets *sequenced when one of them belongs to the sequenced lane. 0 or -1. */
int thrum_host_payload_validate(const uint8_t *payload, uint8_t len, uint8_t *sequenced);

/** How many host message ids this build knows: the length of the codec's layout table (messages.c)
 *  and of the command table (commands.c), each checked against it where it is defined. */
#if THRUM_FW_SESSIONS
#define THRUM_H2D_IDS (THRUM_MSG_RELEASE + 1u)
#elif THRUM_FW_FRAME_TIMES
#define THRUM_H2D_IDS (THRUM_MSG_FRAME_TIMES + 1u)
#elif THRUM_FW_LIBRARY
#define THRUM_H2D_IDS (THRUM_MSG_RESTORE_CALIBRATION + 1u)
#elif THRUM_FW_STREAM
#define THRUM_H2D_IDS (THRUM_MSG_NEXT_SHAPE + 2u)
#else
#define THRUM_H2D_IDS (THRUM_MSG_CONFIGURE_SAMPLE_TIME + 1u)
#endif

/* commands.c: the command table (handler and queue effect by host message id) */
/** Walk a validated payload as executing it would (STOP, STANDBY, CUT, SEGMENT, ROM_EFFECT, the
 *  compact stream's ramps): 0 = fine, 1 = an entry out of order (§3.1), 2 = not enough free
 *  slots (§2.4). */
int thrum_commands_check(const thrum_fw_t *fw, const uint8_t *payload, uint8_t len);
/** Run each message of a payload that passed every check through its handler, in order. */
void thrum_commands_execute(thrum_fw_t *fw, const uint8_t *payload, uint8_t len, uint32_t rx_time);

/* link.c */
void thrum_link_init(thrum_fw_t *fw);
void thrum_link_handle_frame(thrum_fw_t *fw, const thrum_frame_t *frame, uint32_t rx_time);
void thrum_link_check_watchdog(thrum_fw_t *fw, uint32_t now);

#if THRUM_FW_SESSIONS
/* session.c: sessions (§3.8) */
/** Screen a valid host frame before the link handles it: answers the frames that are not the
 *  holder's (returns 1: the link does nothing more), runs a CLAIM (the frame then runs as the new
 *  holder's), returns 0 for the link to handle the frame. */
int thrum_session_screen(thrum_fw_t *fw, const thrum_frame_t *frame, uint32_t rx_time);
/** RELEASE took effect (after its frame's ACK): no session holds the device. */
void thrum_session_end(thrum_fw_t *fw);
#endif

/* outbox.c: reports, drained into device frames */
void thrum_telemetry_onset(thrum_fw_t *fw, uint32_t event, uint32_t time, uint8_t status);
void thrum_telemetry_fault(thrum_fw_t *fw, uint32_t code, uint32_t detail);
/** Count a failed bus access and report FAULT 2 with the register. */
void thrum_bus_fault(thrum_fw_t *fw);
void thrum_telemetry_send(thrum_fw_t *fw, int with_identify, int may_repeat);
/** Queue one encoded device message (sent with the next frame). */
void thrum_telemetry_append(thrum_fw_t *fw, const uint8_t *msg, uint8_t n);
void thrum_telemetry_flush(thrum_fw_t *fw);
#if THRUM_FW_SESSIONS
/** SESSION: id, session (u32), status (u8), at (u32). */
#define THRUM_SESSION_MSG_LEN 10u
/** Encode SESSION into `out`; returns its length. */
uint8_t thrum_telemetry_session_msg(uint8_t *out, uint32_t session, uint8_t status, uint32_t at);
/** Send what is pending now, waiting for the port's room (THRUM_FW_TX_WAIT_US at most). */
void thrum_telemetry_flush_now(thrum_fw_t *fw);
/** Forget what belongs to the session that held the device: ONSET repeats, a departure awaited,
 *  FRAME_TIMES' interval. */
void thrum_telemetry_forget(thrum_fw_t *fw);
/** Answer a host frame outside the link's state, in a frame whose CRC starts from `key`: an ACK
 *  naming it (received at `rx_time`), IDENTIFY_REPLY and CAPABILITIES when `with_identify`, then
 *  `msg`. Nothing pending goes with it. */
void thrum_telemetry_answer(thrum_fw_t *fw, uint16_t key, const thrum_frame_t *frame, uint32_t rx_time,
                            int with_identify, const uint8_t *msg, uint8_t msg_len);
#endif


/* scheduler.c */
/** Queue position `i` after `head` (the queue is a ring of THRUM_FW_QUEUE_SLOTS entries). */
#define THRUM_QUEUE_INDEX(head, i) ((uint8_t)(((head) + (i)) % THRUM_FW_QUEUE_SLOTS))
void thrum_scheduler_init(thrum_fw_t *fw);
void thrum_scheduler_enqueue(thrum_fw_t *fw, const thrum_segment_t *segment);
/** 1 when an entry starting at `start` may be queued behind the queue's tail (§3.1 order). */
int thrum_scheduler_accepts(const thrum_fw_t *fw, uint32_t start);
/** 1 when an onset may come within `within` µs of `now`: the playing entry has not driven yet, or
 *  the next queued entry that has not begun starts that soon (a storage read must wait). */
int thrum_scheduler_onset_within(const thrum_fw_t *fw, uint32_t now, uint32_t within);
void thrum_scheduler_stop(thrum_fw_t *fw);
/** CUT (§4.8): drop the entries starting at or after `at`, end the others at `at` at the latest. */
void thrum_scheduler_cut(thrum_fw_t *fw, uint32_t at);
/* Due work at `now`; a drive that begins within `lead` µs is prepared now and its first write
 * held until then (THRUM_FW_DRIVE_LEAD_US). */
void thrum_scheduler_run(thrum_fw_t *fw, uint32_t now, uint32_t lead);
void thrum_scheduler_check_driver(thrum_fw_t *fw, uint32_t now);
void thrum_scheduler_driver_fault(thrum_fw_t *fw);
/** End a ROM effect that is playing (GO = 0, RTP mode) and free its slot; no-op otherwise. */
void thrum_scheduler_drop_rom(thrum_fw_t *fw);

void thrum_telemetry_calibration(thrum_fw_t *fw, const drv2605l_calibration_t *result, uint8_t lra_period);
void thrum_telemetry_state(thrum_fw_t *fw, uint8_t state, uint8_t cause);

/* scheduler.c (deadlines) */
void thrum_scheduler_deadline(const thrum_fw_t *fw, uint32_t now, uint32_t *deadline, uint8_t *has);

/* setup.c */
/** Probe, DEV_RESET and set up the driver (power-up). */
void thrum_setup_boot(thrum_fw_t *fw);
/** CONFIGURE_DRIVER: stop, set up with `config`; held until GO clears while calibrating. */
void thrum_setup_configure(thrum_fw_t *fw, const drv2605l_config_t *config);

/* calibration.c */
void thrum_calibration_request(thrum_fw_t *fw, uint8_t cause);
void thrum_calibration_run(thrum_fw_t *fw, uint32_t now);
void thrum_calibration_deadline(const thrum_fw_t *fw, uint32_t now, uint32_t *deadline, uint8_t *has);
/** RESTORE_CALIBRATION (§3.5): write kept words into the driver (ignored while a run is going). */
void thrum_calibration_restore(thrum_fw_t *fw, const drv2605l_calibration_t *words);

/* power.c */
void thrum_power_init(thrum_fw_t *fw, uint32_t now);
void thrum_power_wake(thrum_fw_t *fw, uint32_t idle_timeout_ms, uint32_t now);
void thrum_power_standby(thrum_fw_t *fw, uint8_t cause);
void thrum_power_run(thrum_fw_t *fw, uint32_t now);
void thrum_power_deadline(const thrum_fw_t *fw, uint32_t now, uint32_t *deadline, uint8_t *has);
int thrum_power_ready(const thrum_fw_t *fw, uint32_t now);

/* program.c */
void thrum_program_init(thrum_fw_t *fw);
void thrum_program_begin(thrum_fw_t *fw, uint8_t slot);
void thrum_program_append(thrum_fw_t *fw, const thrum_segment_t *segment);
void thrum_program_go(thrum_fw_t *fw, const thrum_go_t *go);

/* library.c (THRUM_FW_LIBRARY) */
void thrum_library_init(thrum_fw_t *fw, uint32_t now);
void thrum_library_query(thrum_fw_t *fw);
void thrum_library_begin(thrum_fw_t *fw, uint32_t size, uint32_t crc);
void thrum_library_write(thrum_fw_t *fw, uint32_t offset, const uint8_t *data, uint8_t len);
void thrum_library_commit(thrum_fw_t *fw);
void thrum_library_read(thrum_fw_t *fw, uint32_t offset, uint8_t len);
void thrum_library_play(thrum_fw_t *fw, uint32_t id, uint32_t start, uint32_t event_base);
/** Queue what the playing stored preset has next, while queue slots are free. */
void thrum_library_feed(thrum_fw_t *fw);
/** Read the trigger inputs; an edge after the rest period starts the preset mapped to it. */
void thrum_library_triggers(thrum_fw_t *fw, uint32_t now);

#if THRUM_FW_STREAM
/* ramps.c: the ramp lists of SHAPE and FOLLOW (§3.4), a part of the codec */
/** Reads the ramps of a PLAY_SHAPE or a FOLLOW one at a time, as queue entries. */
typedef struct thrum_ramps {
    const uint8_t *p;
    const uint8_t *end;
    uint8_t left;            /**< shape ramps still to read (a FOLLOW reads to `end`) */
    uint8_t follow;          /**< FOLLOW pairs, not shape ramps */
    uint8_t prev_to;         /**< the `from` of the next ramp unless it carries one */
    uint8_t bad;             /**< the data ended inside a ramp or held a duration out of range */
    uint32_t t;              /**< where the next ramp's gap counts from */
    uint32_t event;          /**< event of the next ramp (the first one's only) */
    uint32_t last_event;     /**< the cursor's event as the ramps read so far leave it */
} thrum_ramps_t;
/** Start reading shape `shape` (`len` bytes, count first) played `after` µs after cursor `c`'s
 *  start, its first ramp marking `c->event + event` (nothing when `event` is 0). */
void thrum_ramps_play(thrum_ramps_t *r, const thrum_stream_cursor_t *c, const uint8_t *shape, uint8_t len,
                      uint32_t after, uint32_t event);
/** Start reading FOLLOW pairs `data`: the first ramp begins `gap` µs after cursor `c`'s end. */
void thrum_ramps_follow(thrum_ramps_t *r, const thrum_stream_cursor_t *c, const uint8_t *data, uint8_t len,
                        uint32_t gap, uint32_t event);
/** The next ramp as a queue entry; 0 at the end (or when the data is bad: r->bad). */
int thrum_ramps_next(thrum_ramps_t *r, thrum_segment_t *seg);
/** 1 when SHAPE data (`is_shape`) or the data of a FOLLOW whose `event` field is `event` parses
 *  whole with every duration in range. */
int thrum_ramps_valid(const uint8_t *data, uint8_t len, int is_shape, uint32_t event);

/* stream.c: the compact stream (§3.4): the shape table and the stream cursor */
void thrum_stream_init(thrum_fw_t *fw);
/** The sequenced lane queued `seg`: move the cursor to it. */
void thrum_stream_moved(thrum_stream_cursor_t *c, const thrum_segment_t *seg);
/** CUT at `at`: the cursor starts and ends there, at amplitude 0. */
void thrum_stream_cut(thrum_stream_cursor_t *c, uint32_t at);
void thrum_stream_define(thrum_fw_t *fw, uint8_t shape, const uint8_t *data, uint8_t len);
void thrum_stream_play(thrum_fw_t *fw, uint8_t shape, uint32_t after, uint32_t event);
void thrum_stream_follow(thrum_fw_t *fw, uint32_t gap, uint32_t event, const uint8_t *data, uint8_t len);
#endif

/* Count in thrum_fw_stats (nothing when the port builds without counters, THRUM_FW_STATS 0). */
#if THRUM_FW_STATS
#define THRUM_COUNT(counter) ((counter)++)
#else
#define THRUM_COUNT(counter) ((void)0)
#endif

/* deadline helper: offer time `t` (a time before `now` counts as `now`) */
static inline void thrum_deadline_offer(uint32_t now, uint32_t t, uint32_t *deadline, uint8_t *has)
{
    if (thrum_time_before(t, now)) {
        t = now;
    }
    if (!*has || thrum_time_before(t, *deadline)) {
        *deadline = t;
        *has = 1;
    }
}

#endif /* THRUM_CORE_H */
