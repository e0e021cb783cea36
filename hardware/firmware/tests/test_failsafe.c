/* Fail-safes through the fake HAL (README "Fail-safes"): I2C bus recovery after a failed write
 * with FAULT 2 then FAULT 9, once per run of failures; the health flag the port's hardware
 * watchdog follows; EN driven through the HAL before the driver is first addressed. */
#include <string.h>

#include "fake_hal.h"
#include "harness.h"


static fake_t f;
static thrum_fw_t fw;

static void boot_with_segment(uint32_t duration)
{
    uint8_t p[THRUM_MAX_PAYLOAD];

    fake_start(&f, &fw, 1000, I2C_COST);
    fake_send(&f, &fw, HOST_RESYNC, 0, p, msg_segment(p, 2000, duration, 120, 120, 1));
}

static void test_bus_recovery_frees_the_bus(void)
{
    const thrum_msg_t *m;

    boot_with_segment(10000);
    f.fail_reg = DRV2605L_REG_RTP_INPUT;
    f.fail_count = -1;   /* every RTP write fails ... */
    f.recover_frees = 1; /* ... until the bus is clocked free */
    fake_run_until(&f, &fw, 2000, 10);
    CHECK_EQ(f.recoveries, 1);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_BUS_ERROR && m->field[1] == DRV2605L_REG_RTP_INPUT);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_BUS_RECOVERY && m->field[1] == 0u);
    /* the next update (500 µs on) lands: drive as asked, output known again */
    fake_run_until(&f, &fw, 3000, 10);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 120);
    CHECK_EQ(fake_count(&f, THRUM_MSG_FAULT), 0);
    CHECK(thrum_fw_healthy(&fw, f.now));
    /* and the segment's end writes 0 */
    fake_run_until(&f, &fw, 13000, 10);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 0);
    CHECK(!f.bad_output);
}

static void test_stuck_bus_asks_for_a_reset(void)
{
    const thrum_msg_t *m;

    boot_with_segment(500000);
    f.fail_reg = DRV2605L_REG_RTP_INPUT;
    f.fail_count = -1;
    f.recover_frees = 0; /* SDA stays low */
    fake_run_until(&f, &fw, 2000, 10);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_BUS_ERROR);
    m = fake_next(&f, THRUM_MSG_FAULT);
    CHECK(m != NULL && m->field[0] == THRUM_FAULT_BUS_RECOVERY && m->field[1] == 1u);
    /* the core keeps retrying every 500 µs but reports (and recovers) once per run of failures */
    fake_run_until(&f, &fw, 2000 + THRUM_FW_STUCK_US - 1000u, 100);
    CHECK_EQ(f.recoveries, 1);
    CHECK_EQ(fake_count(&f, THRUM_MSG_FAULT), 0);
    CHECK(fw.stats.bus_errors > 100u);
    CHECK(thrum_fw_healthy(&fw, f.now)); /* not yet: a short glitch must not reset the board */
    fake_run_until(&f, &fw, 2000 + THRUM_FW_STUCK_US + 1000u, 100);
    CHECK(!thrum_fw_healthy(&fw, f.now)); /* the port stops kicking its watchdog */
    /* the bus comes back: writes land, healthy again */
    f.fail_count = 0;
    fake_run_until(&f, &fw, f.now + 1000u, 100);
    CHECK(thrum_fw_healthy(&fw, f.now));
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 120);
    CHECK(!f.bad_output);
}

static void test_enable_before_first_access(void)
{
    fake_init(&f);
    f.now = 5000;
    fake_boot(&f, &fw, 5000);
    CHECK_EQ(f.en, 1);
    CHECK_EQ(f.en_calls, 1);
    /* EN went high, then the 250 µs power-up wait, then the first I2C access */
    CHECK(f.en_time_set && f.accessed);
    CHECK(f.first_access_time - f.en_time >= DRV2605L_POWER_UP_DELAY_US);
}

const test_case_t failsafe_tests[] = {
    {"failsafe: failed write -> FAULT 2, bus recovery, FAULT 9 (freed), drive resumes", test_bus_recovery_frees_the_bus},
    {"failsafe: stuck bus: one recovery, unhealthy after 100 ms, healthy when it returns", test_stuck_bus_asks_for_a_reset},
    {"failsafe: EN driven high through the HAL before the driver is addressed", test_enable_before_first_access},
    {NULL, NULL},
};
