/*
 * The ATmega328P port's library I/O (THRUM_FW_LIBRARY: `make avr-library`):
 *
 *   24LC256  32 KiB I²C EEPROM at 0x50 (A2..A0 low) on the DRV2605L's TWI bus, 64-byte pages.
 *            A page write starts its write cycle (≤ 5 ms) at the STOP; meanwhile the part NACKs
 *            its address. Nothing waits after a write: the next storage access polls for the ACK
 *            (at most 10 ms), so the main loop keeps playing while a page is written.
 *   PB0, PB1 (Arduino D8, D9) trigger inputs 0 and 1, active low (a button to ground; the pull-ups
 *            are on). A pin-change interrupt (PCINT0) latches an input that went active, so a
 *            press shorter than a main-loop pass is not missed; the core debounces
 *            (THRUM_TRIGGER_DEBOUNCE_US) from the levels thrum_hal_trigger_read returns.
 */
#include "thrum_fw.h"

#if THRUM_FW_LIBRARY

#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <util/twi.h>

#include "avr_twi.h"
#include "pins.h"

#define EEPROM_ADDR 0x50u
#define EEPROM_READY_US 10000ul /* the write cycle is 5 ms at most (datasheet) */
#define ERR_IO 5
#define ERR_TIMEDOUT 110

#define TRIGGER_BITS ((1u << THRUM_PIN_TRIGGER0) | (1u << THRUM_PIN_TRIGGER1))

/* Inputs that went active since the core last read them (set by the interrupt). */
static volatile uint8_t trigger_latched;

/* START + SLA+W, repeated while the EEPROM NACKs (a write cycle in progress), then the 16-bit
 * address. The transfer is left open (no STOP) on success. */
static int eeprom_select(uint16_t addr)
{
    uint32_t since = thrum_hal_clock_us(NULL);

    while (twi_start((uint8_t)(EEPROM_ADDR << 1 | TW_WRITE), TW_MT_SLA_ACK) != 0) {
        twi_stop();
        if (thrum_hal_clock_us(NULL) - since > EEPROM_READY_US) {
            return -ERR_TIMEDOUT;
        }
    }
    if (twi_send((uint8_t)(addr >> 8)) != 0 || twi_send((uint8_t)addr) != 0) {
        twi_stop();
        return -ERR_IO;
    }
    return 0;
}

/* Random read: address, repeated START, `len` bytes (each ACKed but the last), STOP. The part
 * reads on across its pages. Each read kicks the 250 ms watchdog: a flash's read-back (and the
 * check of the active slot at reset) reads the whole image in one main-loop pass, 16 bytes at a
 * time, ≈ 33 ms per kB at 400 kHz: a 16 KB slot takes about 0.55 s. */
int thrum_hal_storage_read(void *ctx, uint32_t addr, uint8_t *out, uint16_t len)
{
    int err;

    (void)ctx;
    wdt_reset();
    if (len == 0u || addr + len > AVR_STORAGE_SIZE) {
        return -ERR_IO;
    }
    err = eeprom_select((uint16_t)addr);
    if (err != 0) {
        return err;
    }
    if (twi_start((uint8_t)(EEPROM_ADDR << 1 | TW_READ), TW_MR_SLA_ACK) != 0) {
        twi_stop();
        return -ERR_IO;
    }
    while (len-- > 0u) {
        uint8_t ack = len > 0u;

        TWCR = (uint8_t)((1u << TWINT) | (1u << TWEN) | (ack ? (1u << TWEA) : 0u));
        if (twi_wait() != 0 || TW_STATUS != (ack ? TW_MR_DATA_ACK : TW_MR_DATA_NACK)) {
            twi_stop();
            return -ERR_IO;
        }
        *out++ = TWDR;
    }
    twi_stop();
    return 0;
}

/* Page write: address, the bytes (all inside one 64-byte page: the core's contract), STOP. */
int thrum_hal_storage_write(void *ctx, uint32_t addr, const uint8_t *data, uint16_t len)
{
    int err;

    (void)ctx;
    if (len == 0u || len > AVR_STORAGE_PAGE || addr % AVR_STORAGE_PAGE + len > AVR_STORAGE_PAGE ||
        addr + len > AVR_STORAGE_SIZE) {
        return -ERR_IO;
    }
    err = eeprom_select((uint16_t)addr);
    while (err == 0 && len-- > 0u) {
        err = twi_send(*data++);
    }
    twi_stop(); /* the write cycle starts here */
    return err;
}

/* An EEPROM writes in place: nothing to erase. */
int thrum_hal_storage_erase(void *ctx, uint32_t addr)
{
    (void)ctx;
    (void)addr;
    return 0;
}

ISR(PCINT0_vect)
{
    trigger_latched |= (uint8_t)(~THRUM_PIN_TRIGGER_IN & TRIGGER_BITS);
}

void avr_trigger_init(void)
{
    THRUM_PIN_TRIGGER_DDR &= (uint8_t)~TRIGGER_BITS;
    THRUM_PIN_TRIGGER_OUT |= TRIGGER_BITS; /* pull-ups: an open input is inactive */
    PCMSK0 |= TRIGGER_BITS;
    PCICR |= (uint8_t)(1u << PCIE0);
}

/* Bit i = input i active: low now, or gone low since the last read (a press shorter than a pass). */
uint8_t thrum_hal_trigger_read(void *ctx)
{
    uint8_t sreg = SREG;
    uint8_t level;

    (void)ctx;
    cli();
    level = (uint8_t)((~THRUM_PIN_TRIGGER_IN & TRIGGER_BITS) | trigger_latched);
    trigger_latched = 0;
    SREG = sreg;
    return (uint8_t)(level >> THRUM_PIN_TRIGGER0);
}

#else
typedef int thrum_avr_library_io_unused_t; /* ISO C wants a declaration in every translation unit */
#endif /* THRUM_FW_LIBRARY */
