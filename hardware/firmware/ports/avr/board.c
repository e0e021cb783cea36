/*
 * ATmega328P board port (Arduino Uno / Nano class, 16 MHz).
 *
 *   UART0  115200 8N1 to the USB-serial bridge; RX interrupt into a ring buffer, each byte's
 *          arrival time kept so ACKs carry the time the frame really arrived.
 *   TWI    400 kHz master on PC4/PC5 (SDA/SCL) to the DRV2605L.
 *          (Every pin: pins.h, which the wiring diagrams are drawn from.)
 *   Timer1 free-running at 2 MHz; its overflow count extends it to a 32-bit µs clock.
 *   PD4    (Arduino D4) DRV2605L EN, driven high at start-up; boards with EN tied high need
 *          no wire. A pull-down on EN keeps the driver shut down while the MCU resets.
 *   WDT    250 ms hardware watchdog, kicked from the main loop only while the core is healthy.
 *
 * Built with THRUM_FW_STATIC_HAL=1: the core calls the thrum_hal_* functions below directly.
 *
 * The core runs from the main loop only; interrupts just move bytes and count time.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <util/delay.h>
#include <util/twi.h>

#include "avr_clock.h"
#include "avr_twi.h"
#include "pins.h"
#include "thrum_board_defaults.h"
#include "thrum_fw.h"

#ifndef THRUM_AVR_BAUD
#define THRUM_AVR_BAUD 115200UL
#endif


/* The serial rings and the main loop every port shares (ports/generic/thrum_port.h). */
#define THRUM_PORT_RX_RING 128u
#define THRUM_PORT_TX_RING 128u
#define THRUM_PORT_INDEX_T uint8_t
#define THRUM_PORT_IRQ_STATE_T uint8_t
#define THRUM_PORT_IRQ_SAVE() irq_save()
#define THRUM_PORT_IRQ_RESTORE(s) (SREG = (s))

static inline uint8_t irq_save(void)
{
    uint8_t sreg = SREG;

    cli();
    return sreg;
}

#include "thrum_port.h"

#define I2C_HZ 400000UL

#define ERR_IO 5

static thrum_port_rx_t rx;
static thrum_port_tx_t tx;

static thrum_fw_t fw;

ISR(USART_RX_vect)
{
    uint8_t byte = UDR0;

    thrum_port_rx_push(&rx, byte, avr_clock_us_locked());
}

ISR(USART_UDRE_vect)
{
    uint8_t byte;

    if (!thrum_port_tx_pop(&tx, &byte)) {
        UCSR0B &= (uint8_t)~(1u << UDRIE0);
        return;
    }
    UDR0 = byte;
}

void thrum_hal_serial_write(void *ctx, const uint8_t *data, uint16_t len)
{
    (void)ctx;
    thrum_port_tx_put(&tx, data, len); /* never blocks: the core asked thrum_hal_serial_room */
    UCSR0B |= (uint8_t)(1u << UDRIE0);
}

/* Free bytes in the transmit ring: the core writes only frames that fit. */
uint16_t thrum_hal_serial_room(void *ctx)
{
    (void)ctx;
    return thrum_port_tx_room(&tx);
}

/* At least `us` µs (the loop's own cycles only add to it); set-up and bus recovery only. */
void thrum_hal_delay_us(void *ctx, uint32_t us)
{
    (void)ctx;
    while (us-- > 0u) {
        _delay_us(1);
    }
}

int thrum_hal_i2c_write(void *ctx, uint8_t addr, const uint8_t *data, uint8_t len)
{
    uint8_t i;
    int err;

    (void)ctx;
    err = twi_start((uint8_t)((addr << 1) | TW_WRITE), TW_MT_SLA_ACK);
    for (i = 0; err == 0 && i < len; i++) {
        err = twi_send(data[i]);
    }
    twi_stop();
    return err;
}

/* Bus recovery (I2C-bus specification §3.1.16): with the TWI off, clock SCL (pulled low by
 * driving the pin, released by making it an input; the bus pull-ups raise it) until the slave
 * lets SDA go, at most 9 times, then a STOP, then the TWI back on. */
#define SDA_BIT (1u << THRUM_PIN_SDA)
#define SCL_BIT (1u << THRUM_PIN_SCL)
#define HALF_BIT_US 5 /* 100 kHz */

int thrum_hal_i2c_recover(void *ctx)
{
    uint8_t i;

    (void)ctx;
    TWCR = 0;
    THRUM_PIN_TWI_OUT &= (uint8_t)~(SDA_BIT | SCL_BIT);
    THRUM_PIN_TWI_DDR &= (uint8_t)~(SDA_BIT | SCL_BIT);
    for (i = 0; i < 9u && (THRUM_PIN_TWI_IN & SDA_BIT) == 0u; i++) {
        THRUM_PIN_TWI_DDR |= SCL_BIT;
        _delay_us(HALF_BIT_US);
        THRUM_PIN_TWI_DDR &= (uint8_t)~SCL_BIT;
        _delay_us(HALF_BIT_US);
    }
    THRUM_PIN_TWI_DDR |= SCL_BIT; /* STOP: SDA low while SCL is low, SCL up, then SDA up */
    THRUM_PIN_TWI_DDR |= SDA_BIT;
    _delay_us(HALF_BIT_US);
    THRUM_PIN_TWI_DDR &= (uint8_t)~SCL_BIT;
    _delay_us(HALF_BIT_US);
    THRUM_PIN_TWI_DDR &= (uint8_t)~SDA_BIT;
    _delay_us(HALF_BIT_US);
    TWCR = (uint8_t)(1u << TWEN);
    return (THRUM_PIN_TWI_IN & SDA_BIT) != 0u ? 0 : -ERR_IO;
}

#define EN_BIT (1u << THRUM_PIN_EN)

void thrum_hal_driver_enable(void *ctx, uint8_t on)
{
    (void)ctx;
    THRUM_PIN_EN_DDR |= EN_BIT;
    if (on) {
        THRUM_PIN_EN_OUT |= EN_BIT;
    } else {
        THRUM_PIN_EN_OUT &= (uint8_t)~EN_BIT;
    }
}

/* Register read of one byte, all the core asks for (anything else is refused): write the
 * register, repeated START, read it NACKed, STOP. */
int thrum_hal_i2c_read(void *ctx, uint8_t addr, uint8_t reg, uint8_t *out, uint8_t len)
{
    int err;

    (void)ctx;
    if (len != 1u) {
        return -ERR_IO;
    }
    err = twi_start((uint8_t)((addr << 1) | TW_WRITE), TW_MT_SLA_ACK);
    if (err == 0) {
        err = twi_send(reg);
    }
    if (err == 0) {
        err = twi_start((uint8_t)((addr << 1) | TW_READ), TW_MR_SLA_ACK);
    }
    if (err == 0) {
        TWCR = (uint8_t)((1u << TWINT) | (1u << TWEN)); /* no TWEA: NACK the only byte */
        if (twi_wait() != 0 || TW_STATUS != TW_MR_DATA_NACK) {
            err = -ERR_IO;
        } else {
            *out = TWDR;
        }
    }
    twi_stop();
    return err;
}

/* ---- set-up and main loop -------------------------------------------------------------------- */

static void uart_init(void)
{
    /* double speed: UBRR = F_CPU / (8 * baud) - 1, rounded */
    const uint16_t ubrr = (uint16_t)((F_CPU + 4UL * THRUM_AVR_BAUD) / (8UL * THRUM_AVR_BAUD) - 1UL);

    /* U2X0 before UBRR0: the hardware does not care, but simavr 1.6 takes the byte time from
     * the UBRR0L write and the U2X0 it sees then (docs/avr-simulation.md) */
    UCSR0A = (uint8_t)(1u << U2X0);
    UBRR0H = (uint8_t)(ubrr >> 8);
    UBRR0L = (uint8_t)ubrr;
    UCSR0C = (uint8_t)((1u << UCSZ01) | (1u << UCSZ00));
    UCSR0B = (uint8_t)((1u << RXEN0) | (1u << TXEN0) | (1u << RXCIE0));
}

static void twi_init(void)
{
    TWSR = 0; /* prescaler 1 */
    TWBR = (uint8_t)((F_CPU / I2C_HZ - 16UL) / 2UL);
    TWCR = (uint8_t)(1u << TWEN);
}

static void kick_watchdog(void)
{
    wdt_reset();
}

int main(void)
{
#if THRUM_FW_STATIC_HAL
    static const thrum_hal_t *const hal_table = NULL; /* the core calls thrum_hal_* directly */
#else
    static const thrum_hal_t hal = {
        NULL, thrum_hal_clock_us, thrum_hal_i2c_write, thrum_hal_i2c_read, thrum_hal_serial_write, thrum_hal_delay_us,
        thrum_hal_i2c_recover, thrum_hal_driver_enable, thrum_hal_serial_room,
    };
    static const thrum_hal_t *const hal_table = &hal;
#endif
    static const thrum_board_t board = {
        0u, THRUM_BOARD_RATED_VOLTAGE, THRUM_BOARD_OD_CLAMP, THRUM_BOARD_DRIVE_TIME, THRUM_BOARD_OL_LRA_PERIOD,
#if THRUM_FW_LIBRARY
        AVR_STORAGE_SIZE, AVR_STORAGE_PAGE, /* the 24LC256 on the TWI bus (library_io.c) */
#endif
    };

    /* a watchdog reset leaves the WDT running at its shortest period: stop it for set-up */
    MCUSR = 0;
    wdt_disable();
    avr_clock_init();
    uart_init();
    twi_init();
#if THRUM_FW_LIBRARY
    avr_trigger_init();
#endif
    sei();
    thrum_fw_init(&fw, hal_table, &board);
    wdt_enable(WDTO_250MS);
    thrum_port_run(&fw, &rx, hal_table, kick_watchdog);
}
