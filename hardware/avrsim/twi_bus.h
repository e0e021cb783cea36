/*
 * The ATmega328P's TWI master in simavr 1.6, corrected and timed, with a DRV2605L on the bus.
 *
 *   - simavr 1.6 bug 1: writing TWINT = 1 to TWCR does not clear TWINT. An extra TWCR write
 *     callback (simavr runs it after its own) clears it.
 *   - simavr 1.6 bug 2: after SLA+W the status is MT_DATA_ACK/NACK (0x28/0x30) instead of
 *     MT_SLA_ACK/NACK (0x18/0x20). The first status after a START with a write address is
 *     corrected on the TWI status IRQ (TWSR's prescaler bits kept).
 *   - Byte timing: simavr completes a byte in ~9 µs whatever TWBR says. A TWCR read callback
 *     hides TWINT until the time the firmware's TWBR and prescaler imply: 9 SCL periods per byte
 *     (22.5 µs at 400 kHz), one period for a START and for a STOP (plus bus-free time).
 *   - A 24LC256 at 0x50 (eeprom_model) when `eeprom` is set: address pointer, page writes, reads,
 *     its address NACKed during a write cycle.
 *   - The slave at 0x5A is drv_model; each register write is stamped with the completion of its
 *     data byte (the 9th SCL period) in simulated time and reported to `on_write`.
 */
#ifndef AVRSIM_TWI_BUS_H
#define AVRSIM_TWI_BUS_H

#include <stdint.h>

#include "drv_model.h"
#include "eeprom_model.h"

struct avr_t;

typedef void (*twi_write_observer_t)(void *ctx, uint64_t cycle, uint8_t reg, uint8_t value);

typedef struct {
    struct avr_t *avr;
    drv_model_t *chip;          /* NULL: nothing answers on the bus */
    eeprom_model_t *eeprom;     /* a 24LC256 at 0x50 (NULL: none; set before attaching) */
    twi_write_observer_t on_write;
    void *observer_ctx;
    int fix_twint;              /* work-around for bug 1 (on by default) */
    int fix_sla_status;         /* work-around for bug 2 (on by default) */
    int real_timing;            /* hold bytes for their bus time (on by default) */
    /* timing state, in CPU cycles */
    uint64_t busy_until;
    uint64_t bus_free_at;
    int twint_latched;
    /* bug 2 state */
    int expect_sla_w_status;
    /* slave transaction state */
    int selected;               /* 1: the DRV2605L, 2: the EEPROM */
    int reading;
    unsigned index;
    uint8_t reg_ptr;
    /* counters */
    uint32_t sla_status_fixes;
    uint32_t bytes;
} twi_bus_t;

/** Attaches the work-arounds, the byte timing and the slave to the AVR's TWI module. */
void twi_bus_attach(twi_bus_t *bus, struct avr_t *avr, drv_model_t *chip, twi_write_observer_t on_write, void *ctx);

/** CPU cycles of one SCL period for the current TWBR and prescaler (16 + 2·TWBR·4^TWPS). */
uint32_t twi_bus_period_cycles(const twi_bus_t *bus);

#endif
