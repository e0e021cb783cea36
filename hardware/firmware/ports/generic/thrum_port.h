/*
 * thrum_port.h — what every microcontroller port shares: the serial rings between the UART
 * interrupts and the core, and the main loop. The AVR and Cortex-M ports include it; a new port
 * starts from ports/generic/board.c, which uses it too.
 *
 * Before including it, a port defines:
 *   THRUM_PORT_RX_RING, THRUM_PORT_TX_RING  ring sizes in bytes, powers of two (wrap by mask)
 *   THRUM_PORT_INDEX_T                      an unsigned type that holds a ring index (uint8_t
 *                                           for rings of at most 256 bytes: cheaper on 8-bit MCUs)
 *   THRUM_PORT_IRQ_STATE_T, THRUM_PORT_IRQ_SAVE(), THRUM_PORT_IRQ_RESTORE(s)
 *                                           mask interrupts and restore the saved state
 *
 * The rings are single-producer single-consumer: the RX interrupt writes rx.head, the main loop
 * rx.tail; the main loop writes tx.head, the TX interrupt tx.tail. Each byte's arrival time is
 * kept (the last one of a run), so ACKs carry when a frame really arrived (PROTOCOL.md §2.2).
 * Everything is static inline: each port compiles it with its own types and sizes.
 */
#ifndef THRUM_PORT_H
#define THRUM_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "thrum_fw.h"

#if !defined(THRUM_PORT_RX_RING) || !defined(THRUM_PORT_TX_RING) || !defined(THRUM_PORT_INDEX_T)
#error "define THRUM_PORT_RX_RING, THRUM_PORT_TX_RING and THRUM_PORT_INDEX_T before including thrum_port.h"
#endif
#if (THRUM_PORT_RX_RING & (THRUM_PORT_RX_RING - 1u)) != 0 || (THRUM_PORT_TX_RING & (THRUM_PORT_TX_RING - 1u)) != 0
#error "THRUM_PORT_RX_RING and THRUM_PORT_TX_RING must be powers of two"
#endif
#if THRUM_PORT_TX_RING <= THRUM_MAX_FRAME
#error "THRUM_PORT_TX_RING must hold a whole frame (THRUM_MAX_FRAME) with one slot to spare"
#endif

#if defined(__GNUC__)
#define THRUM_PORT_NORETURN __attribute__((noreturn))
#else
#define THRUM_PORT_NORETURN
#endif

#define THRUM_PORT_WRAP(i, n) ((THRUM_PORT_INDEX_T)((i) & ((n) - 1u)))

/** Bytes from the host: filled by the RX interrupt, drained into the core by the main loop. */
typedef struct thrum_port_rx {
    volatile uint8_t buf[THRUM_PORT_RX_RING];
    volatile THRUM_PORT_INDEX_T head;
    volatile uint32_t last_time;  /**< device clock when the newest byte arrived */
    THRUM_PORT_INDEX_T tail;
} thrum_port_rx_t;

/** Bytes to the host: filled by the core (serial_write), sent by the TX interrupt. */
typedef struct thrum_port_tx {
    volatile uint8_t buf[THRUM_PORT_TX_RING];
    volatile THRUM_PORT_INDEX_T head;
    volatile THRUM_PORT_INDEX_T tail;
} thrum_port_tx_t;

/** From the RX interrupt: keep `byte`, received at device time `now`. A full ring drops it (the
 *  CRC and the sequence numbers recover). */
static inline void thrum_port_rx_push(thrum_port_rx_t *rx, uint8_t byte, uint32_t now)
{
    THRUM_PORT_INDEX_T next = THRUM_PORT_WRAP(rx->head + 1u, THRUM_PORT_RX_RING);

    if (next != rx->tail) {
        rx->buf[rx->head] = byte;
        rx->head = next;
        rx->last_time = now;
    }
}

/** From the main loop: hand everything received so far to the core, in contiguous runs. */
static inline void thrum_port_rx_drain(thrum_port_rx_t *rx, thrum_fw_t *fw)
{
    THRUM_PORT_IRQ_STATE_T state = THRUM_PORT_IRQ_SAVE();
    THRUM_PORT_INDEX_T head = rx->head;
    uint32_t arrived = rx->last_time;

    THRUM_PORT_IRQ_RESTORE(state);
    while (rx->tail != head) {
        THRUM_PORT_INDEX_T tail = rx->tail;
        size_t end = head > tail ? (size_t)head : (size_t)THRUM_PORT_RX_RING;
        /* volatile only against the interrupt writing ahead of head: this run is stable */
        thrum_fw_receive(fw, (const uint8_t *)&rx->buf[tail], end - tail, arrived);
        rx->tail = THRUM_PORT_WRAP(end, THRUM_PORT_RX_RING);
    }
}

/** The core's serial_write: queue what fits, never block (the core asks thrum_port_tx_room first
 *  and writes whole frames that fit). The port then enables its TX interrupt. */
static inline void thrum_port_tx_put(thrum_port_tx_t *tx, const uint8_t *data, uint16_t len)
{
    uint16_t i;

    for (i = 0; i < len; i++) {
        THRUM_PORT_INDEX_T next = THRUM_PORT_WRAP(tx->head + 1u, THRUM_PORT_TX_RING);
        if (next == tx->tail) {
            break;
        }
        tx->buf[tx->head] = data[i];
        tx->head = next;
    }
}

/** The core's serial_room: bytes thrum_port_tx_put can take now without dropping any (one slot
 *  of the ring stays empty). The TX interrupt only frees room, so the answer holds until the next
 *  put. */
static inline uint16_t thrum_port_tx_room(const thrum_port_tx_t *tx)
{
    return (uint16_t)THRUM_PORT_WRAP(tx->tail - tx->head - 1u, THRUM_PORT_TX_RING);
}

/** From the TX interrupt: the next byte to send in `*byte`; 0 when the ring is empty (the port
 *  then disables the interrupt). */
static inline int thrum_port_tx_pop(thrum_port_tx_t *tx, uint8_t *byte)
{
    THRUM_PORT_INDEX_T tail = tx->tail;

    if (tail == tx->head) {
        return 0;
    }
    *byte = tx->buf[tail];
    tx->tail = THRUM_PORT_WRAP(tail + 1u, THRUM_PORT_TX_RING);
    return 1;
}

/**
 * The main loop, after thrum_fw_init and starting the hardware watchdog: received bytes to the
 * core, a core pass, and the watchdog kicked (`kick`) only while the core says it is healthy (a
 * driver write that has failed for 100 ms asks for a reset). Never returns.
 */
THRUM_PORT_NORETURN static inline void thrum_port_run(thrum_fw_t *fw, thrum_port_rx_t *rx, const thrum_hal_t *hal, void (*kick)(void))
{
    for (;;) {
        thrum_port_rx_drain(rx, fw);
        thrum_fw_poll(fw);
        if (thrum_fw_healthy(fw, THRUM_HAL(hal, clock_us)(THRUM_HAL_CTX(hal)))) {
            kick();
        }
    }
}

#endif /* THRUM_PORT_H */
