/* Tests of the harness's DRV2605L model against the datasheet behaviour it claims (drv_model.h). */
#include <stdio.h>

#include "drv_model.h"
#include "tests/check.h"


static const drv_cal_result_t cal = {10u, 146u, 2u, 0u};

static void reset_values_and_device_id(void)
{
    drv_model_t m;

    drv_model_init(&m, cal);
    CHECK(drv_model_read(&m, 0x00, 0) == 0xE0); /* DEVICE_ID 7, no flags */
    CHECK(drv_model_read(&m, 0x01, 0) == 0x40); /* standby, internal trigger */
    CHECK(drv_model_read(&m, 0x16, 0) == 0x3E);
    CHECK(drv_model_read(&m, 0x17, 0) == 0x8C);
    CHECK(drv_model_read(&m, 0x1A, 0) == 0x36);
    CHECK(drv_model_read(&m, 0x1C, 0) == 0xF5);
    CHECK(drv_model_read(&m, 0x20, 0) == 0x33);
    drv_model_write(&m, 0x00, 0x00, 10); /* STATUS is read-only */
    CHECK(drv_model_read(&m, 0x00, 10) == 0xE0);
}

static void dev_reset_restores_everything(void)
{
    drv_model_t m;

    drv_model_init(&m, cal);
    drv_model_write(&m, 0x16, 0x55, 0);
    drv_model_write(&m, 0x01, 0x05, 0);
    drv_model_write(&m, 0x01, 0x80, 100);
    CHECK(drv_model_read(&m, 0x01, 100) == 0x40); /* DEV_RESET self-cleared, back in standby */
    CHECK(drv_model_read(&m, 0x16, 100) == 0x3E);
}

static void calibration_self_clears_with_results(void)
{
    drv_model_t m;

    drv_model_init(&m, cal);
    drv_model_write(&m, 0x01, 0x07, 0);  /* MODE 7, out of standby */
    drv_model_write(&m, 0x1A, 0xB4, 0);  /* LRA, brake 3x, loop gain high, BEMF_GAIN 0 */
    drv_model_write(&m, 0x1E, 0x10, 0);  /* AUTO_CAL_TIME 1 -> 350 ms window */
    drv_model_write(&m, 0x0C, 0x01, 1000);
    CHECK(drv_model_read(&m, 0x0C, 1000 + 349999) == 1); /* still running */
    CHECK(drv_model_read(&m, 0x22, 2000) != 0);          /* LRA_PERIOD live while calibrating */
    drv_model_write(&m, 0x0C, 0x00, 2000);               /* cannot be cancelled */
    CHECK(drv_model_read(&m, 0x0C, 3000) == 1);
    CHECK(drv_model_read(&m, 0x0C, 1000 + 350000) == 0);
    CHECK((drv_model_read(&m, 0x00, 400000) & 0x08) == 0); /* DIAG_RESULT: passed */
    CHECK(drv_model_read(&m, 0x18, 400000) == 10);
    CHECK(drv_model_read(&m, 0x19, 400000) == 146);
    CHECK(drv_model_read(&m, 0x1A, 400000) == 0xB6); /* BEMF_GAIN written, other bits kept */
}

static void calibration_in_standby_does_not_run(void)
{
    drv_model_t m;

    drv_model_init(&m, cal);
    drv_model_write(&m, 0x01, 0x47, 0); /* MODE 7 but STANDBY */
    drv_model_write(&m, 0x0C, 0x01, 0);
    drv_model_advance(&m, 2000000);
    CHECK(drv_model_read(&m, 0x18, 2000000) == 0x0C); /* reset value, nothing calibrated */
}

static void rom_sequence_self_clears_and_cancels(void)
{
    drv_model_t m;

    drv_model_init(&m, cal);
    drv_model_write(&m, 0x01, 0x00, 0);  /* MODE 0, ready */
    drv_model_write(&m, 0x04, 14, 0);    /* effect 14: 300 ms */
    drv_model_write(&m, 0x05, 0x83, 0);  /* WAIT 30 ms */
    drv_model_write(&m, 0x06, 1, 0);     /* effect 1: 20 ms */
    drv_model_write(&m, 0x07, 0, 0);
    drv_model_write(&m, 0x0C, 1, 10);
    CHECK(drv_model_read(&m, 0x0C, 10 + 349999) == 1);
    CHECK(drv_model_read(&m, 0x0C, 10 + 350000) == 0);
    drv_model_write(&m, 0x0C, 1, 400000);
    drv_model_write(&m, 0x0C, 0, 401000); /* GO = 0 cancels */
    CHECK(drv_model_read(&m, 0x0C, 401001) == 0);
    drv_model_write(&m, 0x0C, 1, 500000);
    drv_model_write(&m, 0x01, 0x05, 501000); /* leaving MODE 0 stops the sequence */
    CHECK(drv_model_read(&m, 0x0C, 501001) == 0);
    CHECK(drv_model_rom_duration_us(15) == 750000u);
    CHECK(drv_model_rom_duration_us(16) == 1000000u);
    CHECK(drv_model_rom_duration_us(0) == 0u && drv_model_rom_duration_us(124) == 0u);
}

static void rtp_input_is_stored_and_status_clears_on_read(void)
{
    drv_model_t m;

    drv_model_init(&m, cal);
    drv_model_write(&m, 0x01, 0x05, 0);
    drv_model_write(&m, 0x02, 0x80, 10);
    CHECK(drv_model_read(&m, 0x02, 20) == 0x80);
    drv_model_write(&m, 0x01, 0x06, 30); /* diagnostics */
    drv_model_write(&m, 0x0C, 0x01, 40);
    CHECK(drv_model_read(&m, 0x0C, 40 + 99999) == 1);
    CHECK(drv_model_read(&m, 0x0C, 40 + 100000) == 0);
    CHECK(drv_model_read(&m, 0x18, 200000) == 0x0C); /* diagnostics write no calibration results */
}

/* LRA_PERIOD reads the actuator's resonance: the C10-100's 175 Hz by default (what `thrum sim`
 * and the Swift model default to), another when the result names it (`--resonance`). */
static void lra_period_is_the_actuators_resonance(void)
{
    drv_model_t m;
    drv_cal_result_t semco = cal;

    drv_model_init(&m, cal);
    drv_model_write(&m, 0x01, 0x07, 0);
    drv_model_write(&m, 0x0C, 0x01, 1000);
    CHECK(drv_model_read(&m, 0x22, 2000) == 0x3A); /* 1 / (58 × 98.46 µs) = 175.1 Hz */
    CHECK(drv_model_lra_period_code(175.0) == 0x3A);
    CHECK(drv_model_lra_period_code(205.0) == 0x32); /* 49.54 -> 50, as `thrum actuator compute` */
    CHECK(drv_model_lra_period_code(20.0) == 0u);    /* beyond the register's 8 bits */
    semco.lra_period = drv_model_lra_period_code(205.0);
    drv_model_init(&m, semco);
    drv_model_write(&m, 0x01, 0x07, 0);
    drv_model_write(&m, 0x0C, 0x01, 1000);
    CHECK(drv_model_read(&m, 0x22, 2000) == 0x32);
}

int main(void)
{
    reset_values_and_device_id();
    dev_reset_restores_everything();
    calibration_self_clears_with_results();
    calibration_in_standby_does_not_run();
    rom_sequence_self_clears_and_cancels();
    rtp_input_is_stored_and_status_clears_on_read();
    lra_period_is_the_actuators_resonance();
    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
