/*
 * thrum_fw_*: the glue a board port calls, and the outgoing telemetry path.
 *
 * Every device frame starts with an ACK (§2.2). ONSET and FAULT messages wait in `pending` and
 * ride in the next frame; a frame that has no room for them is followed at once by another.
 */
#include <string.h>

#include "thrum_core.h"

/* ---- telemetry ------------------------------------------------------------------------------- */

static uint8_t encode_d2h(const thrum_msg_t *msg, uint8_t *out, uint8_t cap)
{
    return thrum_msg_encode(THRUM_DIR_D2H, msg, out, cap);
}

static uint8_t encode_ack(const thrum_fw_t *fw, uint8_t *out, uint8_t cap)
{
    thrum_msg_t msg;

    msg.id = THRUM_MSG_ACK;
    msg.field_count = 5;
    msg.field[0] = fw->link.next_seq;
    msg.field[1] = fw->link.rx_ctrl;
    msg.field[2] = fw->link.rx_seq;
    msg.field[3] = fw->link.rx_time;
    msg.field[4] = thrum_fw_free_slots(fw);
    return encode_d2h(&msg, out, cap);
}

/* IDENTIFY_REPLY followed by CAPABILITIES (one message struct for both: stack is scarce). */
static uint8_t encode_identify_reply(const thrum_fw_t *fw, uint8_t *out, uint8_t cap)
{
    thrum_msg_t msg;
    uint8_t n;

    msg.id = THRUM_MSG_IDENTIFY_REPLY;
    msg.field_count = 10;
    msg.field[0] = THRUM_PROTOCOL_VERSION;
    msg.field[1] = THRUM_FW_VERSION_MAJOR;
    msg.field[2] = THRUM_FW_VERSION_MINOR;
    msg.field[3] = THRUM_FW_VERSION_PATCH;
    msg.field[4] = fw->board.device_id;
    msg.field[5] = THRUM_CLOCK_HZ;
    msg.field[6] = THRUM_FW_QUEUE_SLOTS;
    msg.field[7] = THRUM_FW_RX_BUFFER;
    msg.field[8] = THRUM_MAX_PAYLOAD;
    msg.field[9] = fw->driver.device_id;
    n = encode_d2h(&msg, out, cap);
    msg.id = THRUM_MSG_CAPABILITIES;
    msg.field_count = 2;
    msg.field[0] = THRUM_PROGRAM_SLOTS;
    msg.field[1] = THRUM_FW_PROGRAM_SEGMENTS;
    return (uint8_t)(n + encode_d2h(&msg, out + n, (uint8_t)(cap - n)));
}

/* Send one frame: ACK, then IDENTIFY_REPLY and CAPABILITIES if asked, then as much pending telemetry as fits
 * (whole messages only, so the host never sees half a message). */
static void send_frame(thrum_fw_t *fw, int with_identify)
{
    uint8_t frame[THRUM_MAX_FRAME];
    uint8_t *payload = frame + 4;
    uint8_t len;
    uint8_t size;

    len = encode_ack(fw, payload, THRUM_MAX_PAYLOAD);
    if (with_identify) {
        len = (uint8_t)(len + encode_identify_reply(fw, payload + len, (uint8_t)(THRUM_MAX_PAYLOAD - len)));
    }
    if (fw->pending_len > 0u && len + fw->pending_len <= THRUM_MAX_PAYLOAD) {
        memcpy(payload + len, fw->pending, fw->pending_len);
        len = (uint8_t)(len + fw->pending_len);
        fw->pending_len = 0;
    }
    size = thrum_frame_seal(frame, THRUM_CTRL_MARK_DEVICE, fw->link.tx_seq, len);
    fw->link.tx_seq = (uint8_t)(fw->link.tx_seq + 1u);
    fw->hal->serial_write(fw->hal->ctx, frame, size);
}

void thrum_telemetry_send(thrum_fw_t *fw, int with_identify)
{
    send_frame(fw, with_identify);
    if (fw->pending_len > 0u) {
        send_frame(fw, 0); /* the reply left no room: the telemetry gets its own frame */
    }
}

void thrum_telemetry_flush(thrum_fw_t *fw)
{
    if (fw->pending_len > 0u) {
        send_frame(fw, 0);
    }
}

/* Encode straight into the pending buffer (no temporary: stack is scarce on small MCUs); when it
 * does not fit, send what is pending and encode again into the emptied buffer. */
static void append(thrum_fw_t *fw, const thrum_msg_t *msg)
{
    uint8_t n = encode_d2h(msg, fw->pending + fw->pending_len, (uint8_t)(THRUM_FW_PENDING_MAX - fw->pending_len));

    if (n == 0u && fw->pending_len > 0u) {
        thrum_telemetry_flush(fw);
        n = encode_d2h(msg, fw->pending, THRUM_FW_PENDING_MAX);
    }
    fw->pending_len = (uint8_t)(fw->pending_len + n);
}

/* ONSET, FAULT and STATE have at most three fields: one encoder serves them. */
static void append3(thrum_fw_t *fw, uint8_t id, uint8_t count, uint32_t a, uint32_t b, uint32_t c)
{
    thrum_msg_t msg;

    msg.id = id;
    msg.field_count = count;
    msg.field[0] = a;
    msg.field[1] = b;
    msg.field[2] = c;
    append(fw, &msg);
}

void thrum_telemetry_onset(thrum_fw_t *fw, uint32_t event, uint32_t time, uint8_t status)
{
    append3(fw, THRUM_MSG_ONSET, 3, event, time, status);
}

void thrum_telemetry_fault(thrum_fw_t *fw, uint32_t code, uint32_t detail)
{
    append3(fw, THRUM_MSG_FAULT, 2, code, detail, 0);
}

void thrum_bus_fault(thrum_fw_t *fw)
{
    fw->stats.bus_errors++;
    thrum_telemetry_fault(fw, THRUM_FAULT_BUS_ERROR, fw->driver.failed_reg);
}

void thrum_telemetry_calibration(thrum_fw_t *fw, const drv2605l_calibration_t *result, uint8_t lra_period)
{
    thrum_msg_t msg;

    msg.id = THRUM_MSG_CALIBRATION_RESULT;
    msg.field_count = 5;
    msg.field[0] = result->failed ? THRUM_CALIBRATION_FAIL : THRUM_CALIBRATION_PASS;
    msg.field[1] = result->a_cal_comp;
    msg.field[2] = result->a_cal_bemf;
    msg.field[3] = result->bemf_gain;
    msg.field[4] = lra_period;
    append(fw, &msg);
}

void thrum_telemetry_state(thrum_fw_t *fw, uint8_t state, uint8_t cause)
{
    append3(fw, THRUM_MSG_STATE, 2, state, cause, 0);
}

/* ---- driver ---------------------------------------------------------------------------------- */

/* Probe (again, so a driver that was absent or faulted gets another chance) and set up. */
static void setup_driver(thrum_fw_t *fw)
{
    if (drv2605l_probe(&fw->driver, fw->hal) != 0) {
        thrum_telemetry_fault(fw, THRUM_FAULT_NO_DRIVER, 0);
        return;
    }
    if (drv2605l_configure(&fw->driver, &fw->driver_config) != 0) {
        thrum_bus_fault(fw);
    }
}

void thrum_fw_configure_driver(thrum_fw_t *fw, const drv2605l_config_t *config)
{
    /* RATED_VOLTAGE and OD_CLAMP are calibration inputs: recalibrate when they change (§2.4) */
    int recalibrate = config->rated_voltage != fw->driver_config.rated_voltage ||
                      config->od_clamp != fw->driver_config.od_clamp;
    uint32_t now;

    thrum_scheduler_drop_rom(fw); /* set-up rewrites MODE: a ROM effect ends here */
    fw->driver_config = *config;
    setup_driver(fw);
    now = fw->hal->clock_us(fw->hal->ctx);
    /* configure began by writing RTP_INPUT = 0 and left standby; segments resume from there */
    fw->sched.amplitude = 0;
    fw->sched.output_unknown = 0;
    fw->power.standby = 0;
    fw->power.ready_at = now;
    fw->power.waking = 0;
    fw->power.idle_since = now;
    if (fw->driver.ready && recalibrate) {
        thrum_calibration_request(fw, THRUM_CAUSE_AUTOMATIC);
    }
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
    /* the driver needs 250 µs after power-up before it answers on I2C */
    hal->delay_us(hal->ctx, DRV2605L_POWER_UP_DELAY_US);
    setup_driver(fw);
    fw->sched.last_write_time = hal->clock_us(hal->ctx);
    thrum_power_init(fw, fw->sched.last_write_time);
}

void thrum_fw_receive(thrum_fw_t *fw, const uint8_t *data, size_t len, uint32_t rx_time)
{
    for (;;) {
        thrum_frame_t frame;
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
