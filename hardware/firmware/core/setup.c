/*
 * Driver set-up (PROTOCOL.md §4.3): probe, DEV_RESET at boot, the closed-loop LRA / RTP
 * configuration, and CONFIGURE_DRIVER, which is held back while a calibration's GO = 1.
 */
#include "thrum_core.h"

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

void thrum_setup_configure(thrum_fw_t *fw, const drv2605l_config_t *config)
{
    uint32_t now;

    /* The host decides when to calibrate (CALIBRATE); set-up never starts one. */
    if (config != &fw->driver_config) {
        fw->driver_config = *config;
    }
    if (fw->calibration.running) {
        fw->calibration.reconfigure = 1; /* MODE and FEEDBACK must not change while GO = 1 */
        return;
    }
    thrum_scheduler_drop_rom(fw); /* set-up rewrites MODE: a ROM effect ends here */
    setup_driver(fw, 0);
    now = thrum_clock(fw);
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

void thrum_setup_boot(thrum_fw_t *fw)
{
    setup_driver(fw, 1);
}
