/*
 * Driver power (PROTOCOL.md §4.5): software standby, WAKE's idle timeout, and waking the driver
 * early enough for the next queued entry. Every transition is reported with a STATE message.
 */
#include "thrum_core.h"

void thrum_power_init(thrum_fw_t *fw, uint32_t now)
{
    fw->power.standby = 0; /* drv2605l_configure leaves standby */
    fw->power.waking = 0;
    fw->power.idle_timeout_us = 0;
    fw->power.idle_since = now;
    fw->power.ready_at = now;
}

static int busy(const thrum_fw_t *fw)
{
    return fw->sched.count > 0u || fw->calibration.running;
}

static void leave_standby(thrum_fw_t *fw, uint8_t cause)
{
    uint32_t now;

    if (drv2605l_set_standby(&fw->driver, 0) != 0) {
        thrum_bus_fault(fw);
        return;
    }
    now = thrum_clock(fw);
    fw->power.standby = 0;
    fw->power.waking = 1;
    fw->power.ready_at = now + DRV2605L_STANDBY_EXIT_US;
    fw->power.idle_since = now;
    thrum_telemetry_state(fw, THRUM_STATE_READY, cause);
}

void thrum_power_wake(thrum_fw_t *fw, uint32_t idle_timeout_ms, uint32_t now)
{
    if (idle_timeout_ms > THRUM_WAKE_MAX_TIMEOUT_MS) {
        idle_timeout_ms = THRUM_WAKE_MAX_TIMEOUT_MS;
    }
    fw->power.idle_timeout_us = idle_timeout_ms * 1000u;
    fw->power.idle_since = now;
    if (fw->power.standby && fw->driver.ready) {
        leave_standby(fw, THRUM_CAUSE_HOST);
    }
}

void thrum_power_standby(thrum_fw_t *fw, uint8_t cause)
{
    if (fw->power.standby || !fw->driver.ready || fw->calibration.running) {
        return; /* calibration cannot be interrupted: the idle timeout ends it in standby later */
    }
    if (drv2605l_set_standby(&fw->driver, 1) != 0) {
        thrum_bus_fault(fw);
        return;
    }
    fw->power.standby = 1;
    fw->sched.amplitude = 0;
    fw->sched.output_unknown = 0;
    thrum_telemetry_state(fw, THRUM_STATE_STANDBY, cause);
}

void thrum_power_run(thrum_fw_t *fw, uint32_t now)
{
    thrum_power_t *p = &fw->power;

    if (!fw->driver.ready) {
        return;
    }
    if (p->waking && !thrum_time_before(now, p->ready_at)) {
        p->waking = 0;
    }
    if (p->standby) {
        const thrum_segment_t *head = &fw->sched.queue[fw->sched.head];
        if (fw->sched.count > 0u && !thrum_time_before(now, head->start - THRUM_FW_WAKE_LEAD_US)) {
            leave_standby(fw, THRUM_CAUSE_AUTOMATIC);
        }
        return;
    }
    if (busy(fw)) {
        p->idle_since = now;
    } else if (p->idle_timeout_us != 0u && now - p->idle_since >= p->idle_timeout_us) {
        thrum_power_standby(fw, THRUM_CAUSE_IDLE_TIMEOUT);
    }
}

void thrum_power_deadline(const thrum_fw_t *fw, uint32_t now, uint32_t *deadline, uint8_t *has)
{
    const thrum_power_t *p = &fw->power;

    if (!fw->driver.ready) {
        return;
    }
    if (p->standby) {
        if (fw->sched.count > 0u) {
            thrum_deadline_offer(now, fw->sched.queue[fw->sched.head].start - THRUM_FW_WAKE_LEAD_US, deadline, has);
        }
    } else if (!busy(fw) && p->idle_timeout_us != 0u) {
        thrum_deadline_offer(now, p->idle_since + p->idle_timeout_us, deadline, has);
    }
}

int thrum_power_ready(const thrum_fw_t *fw, uint32_t now)
{
    return !fw->power.standby && (!fw->power.waking || !thrum_time_before(now, fw->power.ready_at));
}
