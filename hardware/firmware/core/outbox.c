/*
 * The outbox: every report the core makes (ONSET, FAULT, CALIBRATION_RESULT, STATE) is encoded
 * into a 48-byte buffer here and leaves in a device frame (PROTOCOL.md §2.2): behind the ACK of
 * the next host frame, or in a frame of its own when thrum_fw_poll drains the outbox at the end of
 * a pass. Only a report that finds the outbox full sends what is waiting at once. This module
 * calls nothing above it (only the codec and the HAL's serial_write and serial_room), so the
 * modules that report never call back up into firmware.c.
 *
 * A frame is written whole or not at all: when the port's transmit ring has no room for it (a
 * burst of host frames draws one ACK frame each), an ACK-only frame is left to the next frame,
 * whose ACK supersedes it (ACKs are cumulative and carry the newest clock sample, PROTOCOL.md
 * §2.2), and reports stay in the outbox until the ring has drained enough. Only what must go now
 * (IDENTIFY_REPLY, a report that finds the outbox full) waits for room, THRUM_FW_TX_WAIT_US at most.
 */
#include <string.h>

#include "thrum_core.h"

/* Device messages are written field by field straight into a byte buffer: the firmware never
 * needs the generic message table for them, and each writer returns the bytes it wrote. */
static uint8_t put_u32(uint8_t *out, uint32_t v)
{
    out[0] = (uint8_t)v;
    out[1] = (uint8_t)(v >> 8);
    out[2] = (uint8_t)(v >> 16);
    out[3] = (uint8_t)(v >> 24);
    return 4;
}

static uint8_t encode_ack(const thrum_fw_t *fw, uint8_t *out)
{
    uint8_t n = 0;

    out[n++] = THRUM_MSG_ACK;
    out[n++] = fw->link.next_seq;
    out[n++] = fw->link.rx_ctrl;
    out[n++] = fw->link.rx_seq;
    n = (uint8_t)(n + put_u32(out + n, fw->link.rx_time));
    return (uint8_t)(n + thrum_uvarint_encode((uint8_t)(THRUM_FW_QUEUE_SLOTS - fw->sched.count), out + n));
}

/* IDENTIFY_REPLY then CAPABILITIES: at most 1 + 4 + 4 + 4 + 2 + 2 + 5 + 4 = 26 bytes. */
#define IDENTIFY_MAX 26u

static uint8_t encode_identify_reply(const thrum_fw_t *fw, uint8_t *out)
{
    uint8_t n = 0;

    out[n++] = THRUM_MSG_IDENTIFY_REPLY;
    /* version 1 adds the library, version 2 the compact stream, version 3 the USB frame times,
     * version 4 the ACK departures, version 5 sessions */
    out[n++] = THRUM_FW_SESSIONS ? THRUM_PROTOCOL_VERSION : THRUM_FW_DEPARTURES ? 4u : THRUM_FW_FRAME_TIMES ? 3u : THRUM_FW_STREAM ? 2u : THRUM_FW_LIBRARY ? 1u : 0u;
    out[n++] = THRUM_FW_VERSION_MAJOR;
    out[n++] = THRUM_FW_VERSION_MINOR;
    out[n++] = THRUM_FW_VERSION_PATCH;
    n = (uint8_t)(n + put_u32(out + n, fw->board.device_id));
    n = (uint8_t)(n + put_u32(out + n, THRUM_CLOCK_HZ));
    n = (uint8_t)(n + thrum_uvarint_encode(THRUM_FW_QUEUE_SLOTS, out + n));
    n = (uint8_t)(n + thrum_uvarint_encode(THRUM_FW_RX_BUFFER, out + n));
    out[n++] = THRUM_MAX_PAYLOAD;
    n = (uint8_t)(n + thrum_uvarint_encode(fw->driver.device_id, out + n));
    out[n++] = THRUM_MSG_CAPABILITIES;
    out[n++] = THRUM_PROGRAM_SLOTS;
    n = (uint8_t)(n + thrum_uvarint_encode(THRUM_FW_PROGRAM_SEGMENTS, out + n));
    out[n++] = fw->calibration.valid;
    return n;
}

#if THRUM_FW_FRAME_TIMES
/* FRAME_TIME: id, frame (uv, 1-2 bytes), time (u32). */
#define FRAME_TIME_MAX 7u

/* FRAME_TIME (§3.6) into `out` when one is due at device time `now`: the host asked for them,
 * an SOF came since the last one sent, and the interval has passed since then (or none went out
 * since FRAME_TIMES). Returns its length, or 0. It takes the SOF (clears sof_fresh): a frame that
 * is then not sent gives it back (frame_time_keep). The interrupt may give a newer SOF while it
 * is copied: then it copies again. */
static uint8_t encode_frame_time(thrum_fw_t *fw, uint8_t *out, uint32_t now)
{
    thrum_frame_times_t *ft = &fw->frame_times;
    uint16_t frame;
    uint32_t time;
    uint8_t n = 1;

    if (ft->interval_ms == 0u || !ft->sof_fresh ||
        (ft->sent && now - ft->sent_at < (uint32_t)ft->interval_ms * 1000u)) {
        return 0;
    }
    do {
        ft->sof_fresh = 0;
        frame = ft->sof_frame;
        time = ft->sof_time;
    } while (ft->sof_fresh);
    out[0] = THRUM_MSG_FRAME_TIME;
    n = (uint8_t)(n + thrum_uvarint_encode(frame, out + n));
    return (uint8_t)(n + put_u32(out + n, time));
}
#endif

#if THRUM_FW_DEPARTURES
/* DEPARTURE: id, rx_time (u32), wait (uv, 1-3 bytes up to 1 000 000). */
#define DEPARTURE_MAX 8u

/* DEPARTURE (§3.7) into `out` when the pending ACK has left the device: its rx_time and how long
 * after that it left. Returns its length, or 0. A wait beyond the protocol's limit (an ACK that
 * stayed in the device for over a second, or a port's time before rx_time) is dropped, not
 * reported. Otherwise it changes nothing: the frame that carries it clears the state. */
static uint8_t encode_departure(thrum_fw_t *fw, uint8_t *out)
{
    thrum_departures_t *d = &fw->departures;
    uint32_t wait;

    if (d->state != THRUM_DEPARTURE_LEFT) {
        return 0;
    }
    wait = d->left_at - d->rx_time;
    if (wait > THRUM_DEPARTURE_MAX_WAIT_US) {
        d->state = THRUM_DEPARTURE_NONE;
        return 0;
    }
    out[0] = THRUM_MSG_DEPARTURE;
    (void)put_u32(out + 1, d->rx_time);
    return (uint8_t)(5u + thrum_uvarint_encode(wait, out + 5));
}

/* Every byte of the output goes through here: the count the port's IN completions are compared
 * with (thrum_fw_usb_in_done). */
static void serial_write_counted(thrum_fw_t *fw, const uint8_t *data, uint8_t len)
{
    fw->departures.written = (uint16_t)(fw->departures.written + len);
    THRUM_HAL(fw->hal, serial_write)(THRUM_HAL_CTX(fw->hal), data, len);
}
#define SERIAL_WRITE(fw, data, len) serial_write_counted((fw), (data), (len))
#else
#define SERIAL_WRITE(fw, data, len) THRUM_HAL((fw)->hal, serial_write)(THRUM_HAL_CTX((fw)->hal), (data), (len))
#endif

/* Hand `len` bytes to the port, folding them into the frame's CRC. */
static uint16_t emit(thrum_fw_t *fw, uint16_t crc, const uint8_t *data, uint8_t len)
{
    uint8_t i;

    for (i = 0; i < len; i++) {
        crc = thrum_crc16_update(crc, data[i]);
    }
    if (len > 0u) {
        SERIAL_WRITE(fw, data, len);
    }
    return crc;
}

/* Bytes the port can queue without dropping any; no limit when it does not say. */
static uint16_t tx_room(const thrum_fw_t *fw)
{
    if (!THRUM_HAL_HAS(fw->hal, serial_room)) {
        return 0xFFFFu;
    }
    return THRUM_HAL(fw->hal, serial_room)(THRUM_HAL_CTX(fw->hal));
}

/* Send one frame: ACK (and FRAME_TIME when one is due, §3.6, and DEPARTURE when one is ready,
 * §3.7), then `extra` (IDENTIFY_REPLY and
 * CAPABILITIES) if any, then the pending reports if they fit whole (the host never sees half a message). The frame goes out in pieces,
 * its CRC folded in on the way, so no frame-sized buffer sits on the stack. When the port has no
 * room for it, a frame that may wait (no `extra`, not `must`) is not sent: its ACK is owed to the
 * next frame and its reports stay pending. */
static void send_frame(thrum_fw_t *fw, const uint8_t *extra, uint8_t extra_len, uint8_t may_repeat, uint8_t must)
{
#if THRUM_FW_DEPARTURES
    uint8_t head[4u + THRUM_FW_ACK_MAX + FRAME_TIME_MAX + DEPARTURE_MAX];
#elif THRUM_FW_FRAME_TIMES
    uint8_t head[4u + THRUM_FW_ACK_MAX + FRAME_TIME_MAX];
#else
    uint8_t head[4u + THRUM_FW_ACK_MAX];
#endif
    uint8_t ack_len = encode_ack(fw, head + 4);
    uint8_t n = fw->pending_len;
    uint8_t echo = 0;
    uint16_t size;
    uint16_t crc;
    uint32_t since = thrum_clock(fw); /* read for every frame: smaller code than only when waiting */
#if THRUM_FW_FRAME_TIMES
    uint8_t frame_time = 0;
#endif
#if THRUM_FW_DEPARTURES
    thrum_departures_t *d = &fw->departures;
    uint8_t departure;
#endif

    (void)may_repeat;

    if ((unsigned)ack_len + extra_len + n > THRUM_MAX_PAYLOAD) {
        n = 0; /* the reply left no room: the reports get their own frame */
    }
#if THRUM_FW_FRAME_TIMES
    /* FRAME_TIME right behind the ACK, when it fits beside what the frame carries already (the
     * reports first: else it waits for the next frame) */
    if ((unsigned)ack_len + extra_len + n + FRAME_TIME_MAX <= THRUM_MAX_PAYLOAD) {
        frame_time = encode_frame_time(fw, head + 4 + ack_len, since);
        ack_len = (uint8_t)(ack_len + frame_time);
    }
#endif
#if THRUM_FW_DEPARTURES
    /* DEPARTURE behind them, when it fits too (else it waits for the next frame) */
    departure = encode_departure(fw, head + 4 + ack_len);
    if ((unsigned)ack_len + departure + extra_len + n > THRUM_MAX_PAYLOAD) {
        departure = 0;
    }
    ack_len = (uint8_t)(ack_len + departure);
#endif
#if THRUM_FW_ONSET_REPEATS > 0
    /* the recent ONSETs again, behind any new reports, when they fit. Where the port does not
     * say how much room it has, not in the ACK of a sequenced host frame: a burst of those draws
     * one ACK frame each, and repeats in all of them overflowed the AVR's transmit ring before
     * it did; where it does, every frame waits for room, so repeats ride on every frame (in a
     * burst of host frames most device frames are such ACKs: an ONSET that waited for a report
     * frame was pushed out of the echo by newer ones before it was repeated) */
    if ((may_repeat || THRUM_HAL_HAS(fw->hal, serial_room)) && fw->echo_left > 0u && (unsigned)ack_len + extra_len + n + fw->echo_len <= THRUM_MAX_PAYLOAD) {
        echo = fw->echo_len;
    }
#endif
    size = (uint16_t)(ack_len + extra_len + n + echo + THRUM_FRAME_OVERHEAD);
    while (tx_room(fw) < size) { /* the transmit interrupt drains the ring meanwhile */
        if (extra_len == 0u && !must) {
            fw->ack_owed = 1;
#if THRUM_FW_FRAME_TIMES
            if (frame_time > 0u) {
                fw->frame_times.sof_fresh = 1; /* not sent: the next frame reports the newest SOF */
            }
#endif
            return;
        }
        if (thrum_clock(fw) - since >= THRUM_FW_TX_WAIT_US) {
            break;
        }
    }
#if THRUM_FW_ONSET_REPEATS > 0
    if (echo > 0u) {
        fw->echo_left--;
    }
#endif
#if THRUM_FW_FRAME_TIMES
    if (frame_time > 0u) {
        fw->frame_times.sent = 1;
        fw->frame_times.sent_at = since;
    }
#endif
#if THRUM_FW_DEPARTURES
    if (departure > 0u) {
        d->state = THRUM_DEPARTURE_NONE; /* sent once */
    }
    /* The first ACK naming the newest host frame: the pending one, before its bytes are written
     * (the IN transfer that takes them may complete before this function returns). One that left
     * and still waits for a frame with room keeps its place: this ACK's departure is not reported.
     * A pending one is replaced (the interrupt may be marking it left meanwhile: then that
     * departure is lost, one clock sample less). Host frames that arrived together share their
     * rx_time: only the first one's ACK is made pending, so a DEPARTURE names the first ACK sent
     * with its rx_time (0 after reset: an ACK with rx_time 0 is not reported). */
    if (d->fresh) {
        d->fresh = 0;
        if (fw->frame_times.interval_ms != 0u && d->state != THRUM_DEPARTURE_LEFT && d->rx_time != fw->link.rx_time) {
            d->state = THRUM_DEPARTURE_NONE;
            d->end = (uint16_t)(d->written + size);
            d->rx_time = fw->link.rx_time;
            d->state = THRUM_DEPARTURE_PENDING; /* last: hands end to the interrupt */
        }
    }
#endif
    fw->ack_owed = 0;
    head[0] = THRUM_SYNC;
    head[1] = (uint8_t)(ack_len + extra_len + n + echo);
    head[2] = THRUM_CTRL_MARK_DEVICE;
    head[3] = fw->link.tx_seq;
    /* SYNC is outside the CRC */
    SERIAL_WRITE(fw, head, 1u);
#if THRUM_FW_SESSIONS
    crc = emit(fw, fw->link.key, head + 1, (uint8_t)(3u + ack_len)); /* the holder's key (§3.8) */
#else
    crc = emit(fw, THRUM_CRC_INIT, head + 1, (uint8_t)(3u + ack_len));
#endif
    crc = emit(fw, crc, extra, extra_len);
    crc = emit(fw, crc, fw->pending, n);
#if THRUM_FW_ONSET_REPEATS > 0
    crc = emit(fw, crc, fw->echo, echo);
#endif
    fw->pending_len = (uint8_t)(fw->pending_len - n);
    head[0] = (uint8_t)crc;
    head[1] = (uint8_t)(crc >> 8);
    SERIAL_WRITE(fw, head, 2u);
    fw->link.tx_seq = (uint8_t)(fw->link.tx_seq + 1u);
}

#if THRUM_FW_SESSIONS
uint8_t thrum_telemetry_session_msg(uint8_t *out, uint32_t session, uint8_t status, uint32_t at)
{
    out[0] = THRUM_MSG_SESSION;
    (void)put_u32(out + 1, session);
    out[5] = status;
    (void)put_u32(out + 6, at);
    return THRUM_SESSION_MSG_LEN;
}

void thrum_telemetry_send(thrum_fw_t *fw, int with_identify, int may_repeat)
{
    uint8_t reply[IDENTIFY_MAX + THRUM_SESSION_MSG_LEN];
    uint8_t n = with_identify ? encode_identify_reply(fw, reply) : 0u;

    if (fw->link.claimed) {
        /* the ACK of the frame that claimed the device, in the new session's key */
        fw->link.claimed = 0;
        n = (uint8_t)(n + thrum_telemetry_session_msg(reply + n, fw->link.session, THRUM_SESSION_CLAIMED, fw->link.rx_time));
    }
    send_frame(fw, reply, n, (uint8_t)may_repeat, 0u);
    thrum_telemetry_flush(fw);
}

void thrum_telemetry_flush_now(thrum_fw_t *fw)
{
    if (fw->pending_len > 0u || fw->ack_owed) {
        send_frame(fw, NULL, 0, 1u, 1u);
    }
}

void thrum_telemetry_forget(thrum_fw_t *fw)
{
#if THRUM_FW_ONSET_REPEATS > 0
    fw->echo_len = 0;
    fw->echo_left = 0;
#endif
    fw->frame_times.interval_ms = 0;
    fw->departures.state = THRUM_DEPARTURE_NONE;
    fw->departures.fresh = 0;
}

void thrum_telemetry_answer(thrum_fw_t *fw, uint16_t key, const thrum_frame_t *frame, uint32_t rx_time,
                            int with_identify, const uint8_t *msg, uint8_t msg_len)
{
    uint8_t out[THRUM_MAX_FRAME];
    uint8_t n = encode_ack(fw, out + 4);
    uint32_t since = thrum_clock(fw);

    out[4 + 2] = frame->ctrl; /* the ACK names this frame, not the holder's last */
    out[4 + 3] = frame->seq;
    (void)put_u32(out + 4 + 4, rx_time);
    if (with_identify) {
        n = (uint8_t)(n + encode_identify_reply(fw, out + 4 + n));
    }
    if (msg_len > 0u && (unsigned)n + msg_len <= THRUM_MAX_PAYLOAD) {
        memcpy(out + 4 + n, msg, msg_len);
        n = (uint8_t)(n + msg_len);
    }
    n = thrum_frame_encode_keyed(out, key, THRUM_CTRL_MARK_DEVICE, fw->link.tx_seq, out + 4, n);
    while (tx_room(fw) < n && thrum_clock(fw) - since < THRUM_FW_TX_WAIT_US) {
        /* the transmit interrupt drains the ring meanwhile */
    }
    SERIAL_WRITE(fw, out, n);
    fw->link.tx_seq = (uint8_t)(fw->link.tx_seq + 1u);
}
#else
void thrum_telemetry_send(thrum_fw_t *fw, int with_identify, int may_repeat)
{
    uint8_t reply[IDENTIFY_MAX];

    send_frame(fw, reply, with_identify ? encode_identify_reply(fw, reply) : 0u, (uint8_t)may_repeat, 0u);
    thrum_telemetry_flush(fw);
}
#endif

void thrum_telemetry_flush(thrum_fw_t *fw)
{
    if (fw->pending_len > 0u || fw->ack_owed) {
        send_frame(fw, NULL, 0, 1u, 0u);
    }
}

/* Queue one encoded message; when it does not fit, send what is pending first (waiting for the
 * port's room: a report is never dropped while the ring drains). */
static void append(thrum_fw_t *fw, const uint8_t *msg, uint8_t n)
{
    if ((unsigned)fw->pending_len + n > THRUM_FW_PENDING_MAX) {
        send_frame(fw, NULL, 0, 1u, 1u);
    }
    memcpy(fw->pending + fw->pending_len, msg, n);
    fw->pending_len = (uint8_t)(fw->pending_len + n);
}

#if THRUM_FW_LIBRARY
void thrum_telemetry_append(thrum_fw_t *fw, const uint8_t *msg, uint8_t n)
{
    append(fw, msg, n);
}
#endif

void thrum_telemetry_onset(thrum_fw_t *fw, uint32_t event, uint32_t time, uint8_t status)
{
    uint8_t m[1u + THRUM_UVARINT_MAX_BYTES + 4u + 1u];
    uint8_t n = 1;

    m[0] = THRUM_MSG_ONSET;
    n = (uint8_t)(n + thrum_uvarint_encode(event, m + n));
    n = (uint8_t)(n + put_u32(m + n, time));
    m[n++] = status;
    append(fw, m, n);
#if THRUM_FW_ONSET_REPEATS > 0
    /* keep it to repeat, behind the newest earlier ones still being repeated that fit */
    if (fw->echo_left == 0u) {
        fw->echo_len = 0;
    }
    while (fw->echo_len + n > THRUM_FW_ONSET_ECHO_MAX) {
        uint8_t first = 1u; /* the oldest: id, event (a varint), time, status */
        while ((fw->echo[first++] & 0x80u) != 0u) {
        }
        first = (uint8_t)(first + 5u);
        fw->echo_len = (uint8_t)(fw->echo_len - first);
        memmove(fw->echo, fw->echo + first, fw->echo_len);
    }
    memcpy(fw->echo + fw->echo_len, m, n);
    fw->echo_len = (uint8_t)(fw->echo_len + n);
    fw->echo_left = THRUM_FW_ONSET_REPEATS + 1u; /* its first frame carries it twice */
#endif
}

void thrum_telemetry_fault(thrum_fw_t *fw, uint32_t code, uint32_t detail)
{
    uint8_t m[1u + 2u * THRUM_UVARINT_MAX_BYTES];
    uint8_t n = 1;

    m[0] = THRUM_MSG_FAULT;
    n = (uint8_t)(n + thrum_uvarint_encode(code, m + n));
    n = (uint8_t)(n + thrum_uvarint_encode(detail, m + n));
    append(fw, m, n);
}

void thrum_bus_fault(thrum_fw_t *fw)
{
    THRUM_COUNT(fw->stats.bus_errors);
    thrum_telemetry_fault(fw, THRUM_FAULT_BUS_ERROR, fw->driver.failed_reg);
    if (THRUM_HAL_HAS(fw->hal, i2c_recover)) {
        /* a slave holding SDA low (a transfer cut short by a reset or a glitch) blocks every
         * later transfer, the one that would silence the actuator included */
        thrum_telemetry_fault(fw, THRUM_FAULT_BUS_RECOVERY, THRUM_HAL(fw->hal, i2c_recover)(THRUM_HAL_CTX(fw->hal)) == 0 ? 0u : 1u);
    }
}

void thrum_telemetry_calibration(thrum_fw_t *fw, const drv2605l_calibration_t *result, uint8_t lra_period)
{
    uint8_t m[6];

    m[0] = THRUM_MSG_CALIBRATION_RESULT;
    m[1] = result->failed ? THRUM_CALIBRATION_FAIL : THRUM_CALIBRATION_PASS;
    m[2] = result->a_cal_comp;
    m[3] = result->a_cal_bemf;
    m[4] = result->bemf_gain;
    m[5] = lra_period;
    append(fw, m, sizeof(m));
}

void thrum_telemetry_state(thrum_fw_t *fw, uint8_t state, uint8_t cause)
{
    uint8_t m[3];

    m[0] = THRUM_MSG_STATE;
    m[1] = state;
    m[2] = cause;
    append(fw, m, sizeof(m));
}
