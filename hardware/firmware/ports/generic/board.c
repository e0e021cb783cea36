/*
 * The generic port: a template for bringing Thrum to another microcontroller.
 *
 * Copy this directory to ports/<your-mcu>/, then fill in every function marked PORT: below from
 * your MCU's reference manual. Everything else (the frame protocol, the scheduler, the DRV2605L
 * driver, the serial rings and the main loop in thrum_port.h) is shared and needs no change.
 * ports/avr/board.c (ATmega328P) and ports/cortex-m/board.c (STM32F103) are two complete ports
 * of this shape to read beside it.
 *
 * What the hardware must provide:
 *   - a free-running microsecond clock, 32 bits, wrapping at 2^32 (a timer plus an overflow count);
 *   - a UART at 115200 8N1 to the host (USB-serial bridge or native USB CDC), with an RX interrupt
 *     and a TX-empty interrupt;
 *   - an I2C master at up to 400 kHz to the DRV2605L (address 0x5A), polled with a timeout so a
 *     stuck bus never hangs the loop; optionally its SCL/SDA pins as GPIO for bus recovery;
 *   - optionally a GPIO for the DRV2605L EN pin (a pull-down on EN keeps the driver off while the
 *     MCU resets) and a hardware watchdog (about 250 ms).
 *
 * The placeholders below compile on any C99 compiler (`make -C hardware/firmware generic` builds
 * this file with the host's gcc as a check): they report no driver on the bus, so until they are
 * filled in the firmware answers IDENTIFY with driver id 0 and drops every segment.
 *
 * Build-time knobs (pass -D... to the compiler; see include/thrum_fw.h): THRUM_FW_QUEUE_SLOTS,
 * THRUM_FW_PROGRAM_SEGMENTS, THRUM_FW_RX_BUFFER (report your RX ring size), THRUM_FW_COUNT_T,
 * THRUM_FW_STATS, and THRUM_FW_DRIVE_LEAD_US: on a slow CPU (a main-loop pass of tens of µs or
 * more) set it above your longest pass, frame handling included (the AVR uses 2000), so each drive
 * begins at its instant.
 */
#include <stddef.h>
#include <stdint.h>

#include "thrum_board_defaults.h"
#include "thrum_fw.h"

#define ERR_IO 5
#define ERR_NODEV 19

/* ---- PORT: interrupts ------------------------------------------------------------------------
 * Mask interrupts and return the previous state; restore it. Used around reads of data the
 * interrupts write (the RX ring head, the clock's overflow count). */
static uint32_t irq_save(void)
{
    return 0u; /* PORT: e.g. read PRIMASK and `cpsid i` (Cortex-M), or SREG and `cli` (AVR) */
}

static void irq_restore(uint32_t state)
{
    (void)state; /* PORT: write the state back */
}

/* Ring sizes: powers of two. The RX ring must hold what arrives during the longest main-loop pass
 * (115200 baud is 11.5 bytes per ms); report it as THRUM_FW_RX_BUFFER. */
#define THRUM_PORT_RX_RING 128u
#define THRUM_PORT_TX_RING 128u
#define THRUM_PORT_INDEX_T uint8_t
#define THRUM_PORT_IRQ_STATE_T uint32_t
#define THRUM_PORT_IRQ_SAVE() irq_save()
#define THRUM_PORT_IRQ_RESTORE(s) irq_restore(s)

#include "thrum_port.h"

static thrum_port_rx_t rx;
static thrum_port_tx_t tx;
static thrum_fw_t fw;

/* Placeholder clock: counts the calls, so that the set-up's waits end on the host. */
static uint32_t placeholder_us;

/* ---- PORT: the microsecond clock ---------------------------------------------------------------
 * Free-running, 1 µs per count, wrapping at 2^32. Typically a timer at 1 or 2 MHz plus a 32-bit
 * overflow count kept by its interrupt; with interrupts masked, read both and count an overflow
 * whose interrupt is still pending (see clock_us_locked in ports/avr/board.c). Callable from the
 * RX interrupt. */
static uint32_t hal_clock_us(void *ctx)
{
    (void)ctx;
    return placeholder_us++; /* PORT: read the timer */
}

/* ---- PORT: busy wait ---------------------------------------------------------------------------
 * At least `us` µs (set-up, bus recovery, and the last microseconds before a held drive). */
static void hal_delay_us(void *ctx, uint32_t us)
{
    (void)ctx;
    placeholder_us += us; /* PORT: spin on the clock, or a calibrated loop */
}

/* ---- PORT: UART --------------------------------------------------------------------------------
 * Initialise 115200 8N1 with the RX interrupt on. The RX interrupt handler calls
 *     thrum_port_rx_push(&rx, <received byte>, hal_clock_us(NULL));
 * the TX-empty interrupt handler calls
 *     if (thrum_port_tx_pop(&tx, &byte)) <send byte>; else <disable the TX-empty interrupt>;
 */
static void uart_init(void)
{
    /* PORT: baud rate, frame format, enable RX, TX and the RX interrupt */
}

/* The core's output: queue it and let the TX-empty interrupt send it. Never blocks. */
static void hal_serial_write(void *ctx, const uint8_t *data, uint16_t len)
{
    (void)ctx;
    thrum_port_tx_put(&tx, data, len);
    /* PORT: enable the TX-empty interrupt */
}

/* Free bytes in the transmit ring (shared code): the core writes only whole frames that fit, so
 * a burst of ACKs never drops part of a report. */
static uint16_t hal_serial_room(void *ctx)
{
    (void)ctx;
    return thrum_port_tx_room(&tx);
}

/* ---- PORT: I2C master ----------------------------------------------------------------------------
 * 400 kHz (100 kHz works, with longer writes). Both calls return 0 or a negative errno, and must
 * give up after about 1 ms (count loops) instead of hanging on a stuck bus. */
static void i2c_init(void)
{
    /* PORT: pins, clock, enable the controller */
}

/* START, address + W, the `len` bytes of `data` (the first is the register), STOP. */
static int hal_i2c_write(void *ctx, uint8_t addr, const uint8_t *data, uint8_t len)
{
    (void)ctx;
    (void)addr;
    (void)data;
    (void)len;
    return -ERR_NODEV; /* PORT: the transfer; -ERR_IO on a NACK or a timeout */
}

/* START, address + W, `reg`, repeated START, address + R, `len` bytes (NACK the last), STOP.
 * The core reads one byte at a time. */
static int hal_i2c_read(void *ctx, uint8_t addr, uint8_t reg, uint8_t *out, uint8_t len)
{
    (void)ctx;
    (void)addr;
    (void)reg;
    (void)out;
    (void)len;
    return -ERR_NODEV; /* PORT: the transfer */
}

/* Optional (else NULL in the HAL table): free a bus whose slave holds SDA low. Controller off,
 * SCL as an open-drain output pulsed at most 9 times (100 kHz) until SDA reads high, then a STOP
 * (SDA low to high while SCL is high), controller back on. 0 when SDA is high at the end. */
static int hal_i2c_recover(void *ctx)
{
    (void)ctx;
    return -ERR_IO; /* PORT: as in ports/avr/board.c */
}

/* Optional (else NULL): drive the DRV2605L's EN pin, 1 = on. */
static void hal_driver_enable(void *ctx, uint8_t on)
{
    (void)ctx;
    (void)on; /* PORT: a GPIO output */
}

/* ---- PORT: hardware watchdog ------------------------------------------------------------------
 * Started after thrum_fw_init (set-up may take a while); kicked from the main loop only while the
 * core is healthy. After a watchdog reset some MCUs keep it running: stop or slow it first thing
 * in main (see ports/avr/board.c). */
static void watchdog_start(void)
{
    /* PORT: about 250 ms */
}

static void kick_watchdog(void)
{
    /* PORT: reload the watchdog */
}

int main(void)
{
    static const thrum_hal_t hal = {
        NULL, hal_clock_us, hal_i2c_write, hal_i2c_read, hal_serial_write, hal_delay_us,
        hal_i2c_recover, hal_driver_enable, hal_serial_room,
#if THRUM_FW_LIBRARY
        /* PORT: library storage (read, page write, erase for flash) and trigger inputs, or NULL.
         * Internal flash: see ports/cortex-m/board.c (pages reserved in the linker script, the
         * busy wait run from RAM so the UART and the clock keep going during a page erase). */
        NULL, NULL, NULL, NULL,
#endif
    };
    /* device_id: a board serial number if you have one (IDENTIFY_REPLY), else 0 */
    static const thrum_board_t board = {
        0u, THRUM_BOARD_RATED_VOLTAGE, THRUM_BOARD_OD_CLAMP, THRUM_BOARD_DRIVE_TIME, THRUM_BOARD_OL_LRA_PERIOD,
#if THRUM_FW_LIBRARY
        0u, 0u, /* storage size and page */
#endif
    };

    /* PORT: system clock, the µs timer and its interrupt, then interrupts on */
    uart_init();
    i2c_init();
    thrum_fw_init(&fw, &hal, &board); /* EN high, 250 µs, probe, DEV_RESET, set-up */
    watchdog_start();
    thrum_port_run(&fw, &rx, &hal, kick_watchdog);
}
