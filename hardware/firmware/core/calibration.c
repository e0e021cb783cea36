/*
 * Auto-calibration (reference §2.4) as a state machine polled from thrum_fw_poll: start it
 * (MODE 7, inputs, GO), read GO every DRV2605L_CALIBRATION_POLL_US without blocking the link,
 * then read STATUS once and the results, return to RTP mode and report CALIBRATION_RESULT.
 */
#include "thrum_core.h"

static void report_failure(thrum_fw_t *fw)
{
    static const drv2605l_calibration_t failed = {1u, 0u, 0u, 0u};

    thrum_telemetry_calibration(fw, &failed, 0);
}

static void start(thrum_fw_t *fw, uint8_t cause)
{
    thrum_calibration_t *c = &fw->calibration;
    thrum_scheduler_t *s = &fw->sched;
    uint32_t now;

    thrum_scheduler_drop_rom(fw); /* a ROM effect cannot share the driver with calibration */
    if (drv2605l_calibration_start(&fw->driver) != 0) {
        thrum_bus_fault(fw);
        report_failure(fw);
        return;
    }
    now = thrum_clock(fw);
    c->running = 1;
    c->failed = 0;
    c->cause = cause;
    c->started = now;
    c->last_poll = now;
    c->lra_period = 0;
    s->amplitude = 0;
    s->output_unknown = 0;
    fw->power.standby = 0; /* MODE 7 left standby */
    fw->power.ready_at = now;
    fw->power.waking = 0;
    thrum_telemetry_state(fw, THRUM_STATE_CALIBRATING, cause);
}

void thrum_calibration_request(thrum_fw_t *fw, uint8_t cause)
{
    if (!fw->driver.ready) {
        report_failure(fw);
        return;
    }
    if (fw->calibration.running) {
        fw->calibration.again = 1; /* the inputs may have changed since it started */
        return;
    }
    start(fw, cause);
}

static void finish(thrum_fw_t *fw, uint32_t now, int timed_out)
{
    thrum_calibration_t *c = &fw->calibration;
    drv2605l_calibration_t result;

    c->running = 0;
    THRUM_COUNT(fw->stats.calibrations);
    if (drv2605l_calibration_finish(&fw->driver, &result) != 0) {
        thrum_bus_fault(fw);
        fw->sched.output_unknown = 1;
        result.failed = 1;
    }
    if (timed_out) {
        result.failed = 1;
    }
    c->valid = result.failed ? THRUM_CALIBRATED_NONE : THRUM_CALIBRATED_MEASURED;
    fw->sched.amplitude = 0;
    fw->sched.last_write_time = now;
    fw->power.idle_since = now;
    thrum_telemetry_calibration(fw, &result, c->lra_period);
    thrum_telemetry_state(fw, THRUM_STATE_READY, THRUM_CAUSE_AUTOMATIC);
    if (c->reconfigure) {
        c->reconfigure = 0;
        thrum_setup_configure(fw, &fw->driver_config); /* held back while GO was 1 */
    }
    if (c->again) {
        c->again = 0;
        start(fw, c->cause);
    }
}

void thrum_calibration_run(thrum_fw_t *fw, uint32_t now)
{
    thrum_calibration_t *c = &fw->calibration;
    uint8_t go = DRV2605L_GO_GO;
    uint8_t period = 0;

    if (!c->running || now - c->last_poll < DRV2605L_CALIBRATION_POLL_US) {
        return;
    }
    c->last_poll = now;
    if (drv2605l_read(&fw->driver, DRV2605L_REG_GO, &go) != 0) {
        if (!c->failed) {
            thrum_bus_fault(fw); /* once: the run has failed; GO is still awaited below */
        }
        c->failed = 1;
        go = DRV2605L_GO_GO; /* unknown: treat as still running */
    }
    if ((go & DRV2605L_GO_GO) == 0u) {
        finish(fw, now, c->failed);
        return;
    }
    /* LRA_PERIOD is valid only while the driver drives: read it while calibration does */
    if (!c->failed && drv2605l_read(&fw->driver, DRV2605L_REG_LRA_PERIOD, &period) == 0 && period != 0u) {
        c->lra_period = period;
    }
    if (now - c->started >= DRV2605L_CALIBRATION_TIMEOUT_US) {
        /* failed; MODE 5 only once GO has cleared (calibration cannot be interrupted), or after
         * the drain time for a driver whose GO never clears */
        c->failed = 1;
        if (now - c->started >= DRV2605L_CALIBRATION_TIMEOUT_US + DRV2605L_CALIBRATION_DRAIN_US) {
            finish(fw, now, 1);
        }
    }
}

void thrum_calibration_deadline(const thrum_fw_t *fw, uint32_t now, uint32_t *deadline, uint8_t *has)
{
    if (fw->calibration.running) {
        thrum_deadline_offer(now, fw->calibration.last_poll + DRV2605L_CALIBRATION_POLL_US, deadline, has);
    }
}

#if THRUM_FW_LIBRARY
/* A restore while a run is going is ignored: the run measures the driver afresh and its result
 * stands (MODE and FEEDBACK_CONTROL must not change while GO = 1 anyway). Without a set-up driver
 * there is nothing to write to, and `calibrated` stays as it was. */
void thrum_calibration_restore(thrum_fw_t *fw, const drv2605l_calibration_t *words)
{
    if (fw->calibration.running || !fw->driver.ready) {
        return;
    }
    thrum_scheduler_drop_rom(fw); /* FEEDBACK_CONTROL must not change under the sequencer's GO */
    if (drv2605l_calibration_restore(&fw->driver, words) != 0) {
        thrum_bus_fault(fw);
        fw->calibration.valid = THRUM_CALIBRATED_NONE; /* the words may be half written */
        return;
    }
    fw->calibration.valid = THRUM_CALIBRATED_RESTORED;
}
#endif
