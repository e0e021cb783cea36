/*
 * thrum_fw_*: the glue a board port calls, and the outgoing telemetry path.
 *
 * Every device frame starts with an ACK (§2.2). ONSET and FAULT messages wait in `pending` and
 * ride in the next frame; a frame that has no room for them is followed at once by another.
 */
#include <string.h>

#include "thrum_core.h"

/* ---- telemetry ------------------------------------------------------------------------------- */

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
    return (uint8_t)(n + thrum_uvarint_encode(thrum_fw_free_slots(fw), out + n));
}

/* IDENTIFY_REPLY then CAPABILITIES: at most 1 + 4 + 4 + 4 + 2 + 2 + 5 + 3 = 25 bytes. */
#define IDENTIFY_MAX 25u

static uint8_t encode_identify_reply(const thrum_fw_t *fw, uint8_t *out)
{
    uint8_t n = 0;

    out[n++] = THRUM_MSG_IDENTIFY_REPLY;
    out[n++] = THRUM_PROTOCOL_VERSION;
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
    return (uint8_t)(n + thrum_uvarint_encode(THRUM_FW_PROGRAM_SEGMENTS, out + n));
}

/* Send one frame: ACK, then `extra` (IDENTIFY_REPLY and CAPABILITIES) if any, then the pending
 * telemetry if it fits whole (the host never sees half a message). The frame goes out in pieces,
 * its CRC folded in on the way, so no frame-sized buffer sits on the stack. */
static void send_frame(thrum_fw_t *fw, const uint8_t *extra, uint8_t extra_len)
{
    uint8_t head[4u + THRUM_FW_ACK_MAX];
    uint8_t tail[2];
    uint8_t ack_len = encode_ack(fw, head + 4);
    uint8_t pending = fw->pending_len;
    uint8_t len;
    uint16_t crc = THRUM_CRC_INIT;
    uint8_t i;

    if ((unsigned)ack_len + extra_len + pending > THRUM_MAX_PAYLOAD) {
        pending = 0; /* the reply left no room: the telemetry gets its own frame */
    }
    len = (uint8_t)(ack_len + extra_len + pending);
    head[0] = THRUM_SYNC;
    head[1] = len;
    head[2] = THRUM_CTRL_MARK_DEVICE;
    head[3] = fw->link.tx_seq;
    for (i = 1; i < 4u + ack_len; i++) {
        crc = thrum_crc16_update(crc, head[i]);
    }
    for (i = 0; i < extra_len; i++) {
        crc = thrum_crc16_update(crc, extra[i]);
    }
    for (i = 0; i < pending; i++) {
        crc = thrum_crc16_update(crc, fw->pending[i]);
    }
    tail[0] = (uint8_t)crc;
    tail[1] = (uint8_t)(crc >> 8);
    fw->hal->serial_write(fw->hal->ctx, head, (uint16_t)(4u + ack_len));
    if (extra_len > 0u) {
        fw->hal->serial_write(fw->hal->ctx, extra, extra_len);
    }
    if (pending > 0u) {
        fw->hal->serial_write(fw->hal->ctx, fw->pending, pending);
        fw->pending_len = 0;
    }
    fw->hal->serial_write(fw->hal->ctx, tail, 2);
    fw->link.tx_seq = (uint8_t)(fw->link.tx_seq + 1u);
}

void thrum_telemetry_send(thrum_fw_t *fw, int with_identify)
{
    uint8_t reply[IDENTIFY_MAX];

    send_frame(fw, reply, with_identify ? encode_identify_reply(fw, reply) : 0u);
    thrum_telemetry_flush(fw);
}

void thrum_telemetry_flush(thrum_fw_t *fw)
{
    if (fw->pending_len > 0u) {
        send_frame(fw, NULL, 0);
    }
}

/* Queue one encoded message; when it does not fit, send what is pending first. */
static void append(thrum_fw_t *fw, const uint8_t *msg, uint8_t n)
{
    if ((unsigned)fw->pending_len + n > THRUM_FW_PENDING_MAX) {
        thrum_telemetry_flush(fw);
    }
    memcpy(fw->pending + fw->pending_len, msg, n);
    fw->pending_len = (uint8_t)(fw->pending_len + n);
}

void thrum_telemetry_onset(thrum_fw_t *fw, uint32_t event, uint32_t time, uint8_t status)
{
    uint8_t m[1u + THRUM_UVARINT_MAX_BYTES + 4u + 1u];
    uint8_t n = 1;

    m[0] = THRUM_MSG_ONSET;
    n = (uint8_t)(n + thrum_uvarint_encode(event, m + n));
    n = (uint8_t)(n + put_u32(m + n, time));
    m[n++] = status;
    append(fw, m, n);
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
    fw->stats.bus_errors++;
    thrum_telemetry_fault(fw, THRUM_FAULT_BUS_ERROR, fw->driver.failed_reg);
    if (fw->hal->i2c_recover != NULL) {
        /* a slave holding SDA low (a transfer cut short by a reset or a glitch) blocks every
         * later transfer, the one that would silence the actuator included */
        thrum_telemetry_fault(fw, THRUM_FAULT_BUS_RECOVERY, fw->hal->i2c_recover(fw->hal->ctx) == 0 ? 0u : 1u);
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

/* ---- driver ---------------------------------------------------------------------------------- */

/* Probe (again, so a driver that was absent or faulted gets another chance) and set up. */
/* Probe (again, so a driver that was absent or faulted gets another chance), at boot reset it
 * (DEV_RESET: a driver that kept running across an MCU-only reset goes silent, and its
 * calibration words and BEMF_GAIN return to one consistent reset set), and set it up. */
static void setup_driver(thrum_fw_t *fw, int reset)
{
    if (drv2605l_probe(&fw->driver, fw->hal) != 0) {
        thrum_telemetry_fault(fw, THRUM_FAULT_NO_DRIVER, 0);
        return;
    }
    if ((reset && drv2605l_reset(&fw->driver) != 0) || drv2605l_configure(&fw->driver, &fw->driver_config) != 0) {
        thrum_bus_fault(fw);
    }
}

void thrum_fw_configure_driver(thrum_fw_t *fw, const drv2605l_config_t *config)
{
    uint32_t now;

    /* The host decides when to calibrate (CALIBRATE); set-up never starts one. */
    fw->driver_config = *config;
    if (fw->calibration.running) {
        fw->calibration.reconfigure = 1; /* MODE and FEEDBACK must not change while GO = 1 */
        return;
    }
    thrum_scheduler_drop_rom(fw); /* set-up rewrites MODE: a ROM effect ends here */
    setup_driver(fw, 0);
    now = fw->hal->clock_us(fw->hal->ctx);
    /* configure began by writing RTP_INPUT = 0 and left standby; segments resume from there */
    fw->sched.amplitude = 0;
    fw->sched.output_unknown = 0;
    fw->power.standby = 0;
    fw->power.ready_at = now;
    fw->power.waking = 0;
    fw->power.idle_since = now;
    if (!fw->driver.ready) {
        /* a half-configured driver must not be driven: discard what was queued, and keep
         * writing 0 until one lands, since the failed step may have been that very write */
        fw->sched.output_unknown = 1;
        thrum_scheduler_stop(fw);
    }
}

/* ---- public API ------------------------------------------------------------------------------ */

void thrum_fw_init(thrum_fw_t *fw, const thrum_hal_t *hal, const thrum_board_t *board)
{
    memset(fw, 0, sizeof(*fw));
    fw->hal = hal;
    fw->board = *board;
    fw->driver_config.rated_voltage = board->rated_voltage;
    fw->driver_config.od_clamp = board->od_clamp;
    fw->driver_config.drive_time = board->drive_time;
    fw->driver_config.ol_lra_period = board->ol_lra_period;
    thrum_frame_decoder_init(&fw->decoder, THRUM_CTRL_MARK_HOST);
    thrum_link_init(fw);
    thrum_scheduler_init(fw);
    thrum_program_init(fw);
    fw->driver.hal = hal;
    fw->driver.bemf_gain = DRV2605L_BEMF_GAIN_LRA_15X; /* until a calibration finds it */
    /* EN high, then the driver needs 250 µs before it answers on I2C */
    if (hal->driver_enable != NULL) {
        hal->driver_enable(hal->ctx, 1);
    }
    hal->delay_us(hal->ctx, DRV2605L_POWER_UP_DELAY_US);
    setup_driver(fw, 1);
    fw->sched.last_write_time = hal->clock_us(hal->ctx);
    thrum_power_init(fw, fw->sched.last_write_time);
}

void thrum_fw_receive(thrum_fw_t *fw, const uint8_t *data, size_t len, uint32_t rx_time)
{
    for (;;) {
        thrum_frame_t frame = {0u, 0u, 0u, NULL}; /* set by the decoder when it finds one */
        int found;
        size_t n = thrum_frame_decoder_feed(&fw->decoder, data, len, &frame, &found);

        data += n;
        len -= n;
        if (!found) {
            break;
        }
        thrum_link_handle_frame(fw, &frame, rx_time);
    }
    fw->stats.discarded_bytes = fw->decoder.discarded_bytes;
    fw->stats.bad_frames = fw->decoder.bad_crc + fw->parse_failures;
}

void thrum_fw_poll(thrum_fw_t *fw)
{
    uint32_t now = fw->hal->clock_us(fw->hal->ctx);

    thrum_link_check_watchdog(fw, now);
    thrum_power_run(fw, now);
    thrum_calibration_run(fw, now);
    thrum_scheduler_run(fw, now);
    thrum_scheduler_check_driver(fw, now);
    thrum_telemetry_flush(fw);
    if (!fw->sched.output_unknown) {
        fw->sched.known_at = now;
    }
}

uint32_t thrum_fw_next_deadline(const thrum_fw_t *fw, uint32_t now, uint8_t *has_deadline)
{
    uint32_t deadline = now;
    uint8_t has = 0;

    if (fw->link.host_seen && !fw->link.watchdog_tripped) {
        thrum_deadline_offer(now, fw->link.last_host_time + THRUM_WATCHDOG_US, &deadline, &has);
    }
    if (fw->pending_len > 0u) {
        thrum_deadline_offer(now, now, &deadline, &has);
    }
    thrum_power_deadline(fw, now, &deadline, &has);
    thrum_calibration_deadline(fw, now, &deadline, &has);
    thrum_scheduler_deadline(fw, now, &deadline, &has);
    *has_deadline = has;
    return has ? deadline : now;
}

uint8_t thrum_fw_free_slots(const thrum_fw_t *fw)
{
    return (uint8_t)(THRUM_FW_QUEUE_SLOTS - fw->sched.count);
}

const thrum_fw_stats_t *thrum_fw_stats(const thrum_fw_t *fw)
{
    return &fw->stats;
}

uint8_t thrum_fw_driver_id(const thrum_fw_t *fw)
{
    return fw->driver.device_id;
}

uint8_t thrum_fw_amplitude(const thrum_fw_t *fw)
{
    return fw->sched.amplitude;
}

uint8_t thrum_fw_queued(const thrum_fw_t *fw)
{
    return fw->sched.count;
}

uint8_t thrum_fw_calibrating(const thrum_fw_t *fw)
{
    return fw->calibration.running;
}

uint8_t thrum_fw_standby(const thrum_fw_t *fw)
{
    return fw->power.standby;
}

uint8_t thrum_fw_healthy(const thrum_fw_t *fw, uint32_t now)
{
    return !fw->sched.output_unknown || now - fw->sched.known_at < THRUM_FW_STUCK_US;
}
