/*
 * thrum_fw_*: the API a board port calls. It sits on top: it calls the modules (link, setup,
 * scheduler, calibration, power, outbox) and none of them calls back into it.
 */
#include <string.h>

#include "thrum_core.h"

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
    fw->driver_config.sample_time = DRV2605L_SAMPLE_TIME_300US; /* until CONFIGURE_SAMPLE_TIME */
    thrum_frame_decoder_init(&fw->decoder, THRUM_CTRL_MARK_HOST);
    thrum_link_init(fw);
    thrum_scheduler_init(fw);
    thrum_program_init(fw);
#if THRUM_FW_STREAM
    thrum_stream_init(fw);
#endif
    fw->driver.hal = hal;
    fw->driver.bemf_gain = DRV2605L_BEMF_GAIN_LRA_15X; /* until a calibration finds it */
    /* EN high, then the driver needs 250 µs before it answers on I2C */
    if (THRUM_HAL_HAS(hal, driver_enable)) {
        THRUM_HAL(hal, driver_enable)(THRUM_HAL_CTX(hal), 1);
    }
    THRUM_HAL(hal, delay_us)(THRUM_HAL_CTX(hal), DRV2605L_POWER_UP_DELAY_US);
    thrum_setup_boot(fw);
    fw->sched.last_write_time = THRUM_HAL(hal, clock_us)(THRUM_HAL_CTX(hal));
    thrum_power_init(fw, fw->sched.last_write_time);
#if THRUM_FW_LIBRARY
    thrum_library_init(fw, fw->sched.last_write_time);
#endif
}

void thrum_fw_receive(thrum_fw_t *fw, const uint8_t *data, size_t len, uint32_t rx_time)
{
    for (;;) {
#if THRUM_FW_SESSIONS
        thrum_frame_t frame = {0u, 0u, 0u, NULL, 0u}; /* set by the decoder when it finds one */
#else
        thrum_frame_t frame = {0u, 0u, 0u, NULL}; /* set by the decoder when it finds one */
#endif
        int found;
        size_t n = thrum_frame_decoder_feed(&fw->decoder, data, len, &frame, &found);

        data += n;
        len -= n;
        if (!found) {
            break;
        }
#if THRUM_FW_DRIVE_LEAD_US > 0
        /* Frames that arrived together are handled one after the other, a pass's worth of work
         * each: a drive due meanwhile is prepared and held before each (the lead covers one). */
        thrum_fw_poll(fw);
#endif
        thrum_link_handle_frame(fw, &frame, rx_time);
    }
#if THRUM_FW_STATS
    fw->stats.discarded_bytes = fw->decoder.discarded_bytes;
    fw->stats.bad_frames = fw->decoder.bad_crc + fw->parse_failures;
#endif
}

#if THRUM_FW_FRAME_TIMES
void thrum_fw_usb_sof(thrum_fw_t *fw, uint16_t frame, uint32_t time)
{
    fw->frame_times.sof_frame = (uint16_t)(frame & THRUM_USB_FRAME_MASK);
    fw->frame_times.sof_time = time;
    fw->frame_times.sof_fresh = 1; /* last: the main loop copies again when it sees it set */
}
#endif

#if THRUM_FW_DEPARTURES
void thrum_fw_usb_in_done(thrum_fw_t *fw, uint16_t bytes, uint32_t time)
{
    thrum_departures_t *d = &fw->departures;

    d->taken = (uint16_t)(d->taken + bytes);
    /* the transfer that takes the output up to the pending ACK's frame end is its departure */
    if (d->state == THRUM_DEPARTURE_PENDING && (int16_t)(uint16_t)(d->taken - d->end) >= 0) {
        d->left_at = time;
        d->state = THRUM_DEPARTURE_LEFT; /* last: hands left_at to the main loop */
    }
}
#endif

void thrum_fw_poll(thrum_fw_t *fw)
{
    uint32_t now = thrum_clock(fw);

    thrum_link_check_watchdog(fw, now);
    thrum_power_run(fw, now);
    thrum_calibration_run(fw, now);
#if THRUM_FW_LIBRARY
    thrum_library_triggers(fw, now); /* an edge queues its preset's first entries, decoded ahead */
#endif
    thrum_scheduler_run(fw, now, THRUM_FW_DRIVE_LEAD_US);
#if THRUM_FW_LIBRARY
    thrum_library_feed(fw); /* after the pass's drive: reading storage takes bus time */
#endif
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
    if (fw->pending_len > 0u || fw->ack_owed) {
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
