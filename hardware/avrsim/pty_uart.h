/*
 * UART0 of the simulated AVR on a pseudo-terminal (same contract as `thrum sim`: the host opens
 * the slave path). Single-threaded: the simulation loop calls pty_uart_pump, which moves bytes
 * from the pty into the UART while simavr's receive FIFO has room (XON), and the UART's output
 * IRQ writes each transmitted byte to the pty. Optionally logs what the host sent, each byte
 * with the simulated time the AVR's receiver completed it (its RX-complete interrupt became
 * pending), for replay into the Swift virtual device. simavr paces received bytes itself (1.6
 * counts 11 bits per 8N1 byte: 93 µs at 115 200 baud, and the next byte only after UDR0 is read).
 *
 * The crystal (`crystal` set, when the simulation is paced): the device's clock is held to the
 * wall clock at a constant offset, wall = t0 + simulated time - crystal_offset, at its only
 * edge, the bytes. A byte the device sends at simulated time T is written to the pty no sooner
 * than t0 + T - offset; a byte read from the pty at wall time W reaches the UART no sooner than
 * simulated time W - t0 + offset. While the simulation runs ahead of that line the device's
 * bytes wait for their time; while it runs behind (a pacing sleep that overslept, a scheduler
 * delay, a stall) its bytes go out late and the host's bytes wait for the simulation: that is
 * a slower link, never a device clock that wanders, so every stamp the device sends lies
 * between the moments its frame was written and its answer read, on the crystal's line.
 */
#ifndef AVRSIM_PTY_UART_H
#define AVRSIM_PTY_UART_H

#include <stdint.h>
#include <stdio.h>

struct avr_t;

#define PTY_UART_QUEUE 4096u

/* Where a byte stream is in its frames (SYNC, LEN, CTRL, SEQ, payload, CRC16), and the byte of
 * the current frame chosen for a flipped bit. */
typedef struct {
    unsigned remaining;           /* bytes of the current frame still to come; 0: hunting SYNC */
    int have_len;                 /* the LEN byte has been seen */
    unsigned index;               /* position in the current frame */
    int victim;                   /* index of the byte to corrupt, -1 when this frame stays whole */
    uint8_t bit;
    uint64_t frames, corrupted;
} pty_uart_frames_t;

typedef struct {
    struct avr_t *avr;
    int master;
    char slave_path[128];
    uint8_t queue[PTY_UART_QUEUE];
    unsigned head, tail;
    int xon;
    uint64_t queue_read_ns[PTY_UART_QUEUE]; /* with `crystal`: when each queued byte was read */
    uint8_t in_flight[PTY_UART_QUEUE]; /* pushed into simavr's UART, not yet received */
    int crystal;                  /* hold the bytes to the crystal's line (see above) */
    int64_t crystal_offset_ns;    /* how far the device clock reads ahead of the wall clock (less
                                   * after a stall that moved the crystal: avrsim.c, --max-hold-ms) */
    uint8_t out[PTY_UART_QUEUE];  /* with `crystal`: the device's bytes waiting for their time */
    uint64_t out_due_ns[PTY_UART_QUEUE]; /* CLOCK_MONOTONIC at which each may be written */
    unsigned out_head, out_tail;
    uint64_t out_late;            /* bytes written after their time (the simulation was behind) */
    unsigned flight_head, flight_tail;
    FILE *host_log;               /* optional: "time_us,byte,pacing_lag_us" of each host byte */
    uint64_t t0_ns;               /* CLOCK_MONOTONIC at simulated t = 0 (the host log's lag column) */
    FILE *device_log;             /* optional: "time_us,byte" of each device byte as sent (after --corrupt) */
    uint64_t rx_bytes, tx_bytes, tx_dropped;
    /* Fault injection (--corrupt): each frame, in either direction, has one bit of one of its
     * bytes flipped with probability `corrupt`. Frames are found by their header (SYNC, LEN)
     * in the clean stream, so the count is of frames, not of reads or bytes. */
    double corrupt;
    uint64_t rng;                 /* xorshift64 state (--seed) */
    pty_uart_frames_t host_frames, device_frames;
    /* The firmware's receive ring (ports/generic/thrum_port.h: buf[size], head, last_time,
     * tail), watched in data memory when its symbol was found (ring_addr != 0): a byte whose
     * RX-complete interrupt rises while the ring is full is dropped by thrum_port_rx_push. */
    uint32_t ring_addr, ring_size;
    uint64_t ring_full_drops;     /* bytes that arrived at a full ring */
    uint64_t ring_pushes;         /* bytes the ring took (its head's advance) */
    uint8_t ring_last_head;
    void (*on_ring_drop)(void *ctx, uint64_t cycle); /* optional, per dropped byte */
    /* The firmware's transmit ring (thrum_port_tx_t: buf[size], head, tail), when found: the
     * checks (every 50 µs) at which it was full, when serial_write drops what does not fit. */
    uint32_t tx_ring_addr, tx_ring_size;
    uint64_t tx_ring_full_checks;
    void *on_ring_drop_ctx;
    /* The baud check (bootloader mode): a pty carries no baud, but the speed the client set on
     * its end is in the terminal settings, which the master reads (Linux). While the CPU runs
     * the bootloader (pc >= baud_check_from) and the client set a speed (not the pty's default
     * B38400, which a client that sets none keeps) more than 5 % off the UART's rate (UBRR0,
     * U2X0), the bytes each way are what a UART at the other rate would make of them: the
     * bootloader gets garbage and the client too, as on a board at the wrong baud. */
    uint32_t baud_check_from;     /* byte address of the bootloader; 0: no check */
    uint64_t baud_garbled;        /* host bytes that arrived at a wrong speed */
} pty_uart_t;

/** Opens the pseudo-terminal (raw, non-blocking master). Returns 0 or -1 with errno set. */
int pty_uart_open(pty_uart_t *u);

/** Connects to the AVR's UART0 (turns off simavr's stdio echo of UART output). */
void pty_uart_attach(pty_uart_t *u, struct avr_t *avr);

/** Reads what the host wrote and feeds the UART while it accepts bytes (with `crystal`: those
 *  whose time has come), and writes the device's bytes whose time has come. */
void pty_uart_pump(pty_uart_t *u);
/** With `crystal`: CLOCK_MONOTONIC at which the oldest waiting device byte is due (0: none). */
uint64_t pty_uart_next_out_ns(const pty_uart_t *u);

/** The board reset: what the host sent and the UART has not taken, and what is still buffered
 *  on the pseudo-terminal either way, is dropped; the UART accepts bytes again. */
void pty_uart_reset(pty_uart_t *u);

/** The client closed the pty: its speed goes back to the pty's default (B38400), so that the
 *  next client, which may set none (thrum's raw mode does not), is not judged by this one's. */
void pty_uart_client_closed(pty_uart_t *u);

/** Watches the firmware's receive ring at data address `addr` (`size` bytes of buffer). */
void pty_uart_watch_ring(pty_uart_t *u, uint32_t addr, uint32_t size);

/** Bytes the firmware's ring did not take: RX-complete interrupts minus the ring head's
 *  advance (exact once the last byte's interrupt has run). */
uint64_t pty_uart_ring_lost(const pty_uart_t *u);

#endif
