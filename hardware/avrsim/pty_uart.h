/*
 * UART0 of the simulated AVR on a pseudo-terminal (same contract as `thrum sim`: the host opens
 * the slave path). Single-threaded: the simulation loop calls pty_uart_pump, which moves bytes
 * from the pty into the UART while simavr's receive FIFO has room (XON), and the UART's output
 * IRQ writes each transmitted byte to the pty. Optionally logs what the host sent, each byte
 * with the simulated time the AVR's receiver completed it (its RX-complete interrupt became
 * pending), for replay into the Swift virtual device. simavr paces received bytes itself (1.6
 * counts 11 bits per 8N1 byte: 93 µs at 115 200 baud, and the next byte only after UDR0 is read).
 */
#ifndef AVRSIM_PTY_UART_H
#define AVRSIM_PTY_UART_H

#include <stdint.h>
#include <stdio.h>

struct avr_t;

#define PTY_UART_QUEUE 4096u

typedef struct {
    struct avr_t *avr;
    int master;
    char slave_path[128];
    uint8_t queue[PTY_UART_QUEUE];
    unsigned head, tail;
    int xon;
    uint8_t in_flight[PTY_UART_QUEUE]; /* pushed into simavr's UART, not yet received */
    unsigned flight_head, flight_tail;
    FILE *host_log;               /* optional: "time_us,byte" of each host byte */
    uint64_t rx_bytes, tx_bytes, tx_dropped;
} pty_uart_t;

/** Opens the pseudo-terminal (raw, non-blocking master). Returns 0 or -1 with errno set. */
int pty_uart_open(pty_uart_t *u);

/** Connects to the AVR's UART0 (turns off simavr's stdio echo of UART output). */
void pty_uart_attach(pty_uart_t *u, struct avr_t *avr);

/** Reads what the host wrote and feeds the UART while it accepts bytes. */
void pty_uart_pump(pty_uart_t *u);

#endif
