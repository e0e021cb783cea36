/* See pty_uart.h. */
#define _XOPEN_SOURCE 600
#define _DEFAULT_SOURCE
#include "pty_uart.h"
#include "uart_line.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <sim_avr.h>
#include <sim_io.h>
#include <sim_irq.h>
#include <avr_uart.h>
#include <sim_interrupts.h>

#define REG_UCSR0A 0xC0u
#define REG_UCSR0B 0xC1u
#define REG_UBRR0L 0xC4u
#define REG_UBRR0H 0xC5u
#define U2X0_BIT 0x02u
#define RXEN0_BIT 0x10u
#define TXEN0_BIT 0x08u
#define USART_RX_VECTOR 18u /* ATmega328P */

int pty_uart_open(pty_uart_t *u)
{
    struct termios tio;
    const char *name;
    int fd = posix_openpt(O_RDWR | O_NOCTTY);

    memset(u, 0, sizeof(*u));
    u->master = -1;
    u->xon = 1;
    if (fd < 0 || grantpt(fd) != 0 || unlockpt(fd) != 0 || (name = ptsname(fd)) == NULL) {
        if (fd >= 0) close(fd);
        return -1;
    }
    if (tcgetattr(fd, &tio) == 0) {
        cfmakeraw(&tio);
        tcsetattr(fd, TCSANOW, &tio);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    snprintf(u->slave_path, sizeof(u->slave_path), "%s", name);
    u->master = fd;
    return 0;
}

#define FRAME_SYNC 0x7Eu
#define FRAME_OVERHEAD 6u

static uint64_t next_random(pty_uart_t *u)
{
    u->rng ^= u->rng << 13;
    u->rng ^= u->rng >> 7;
    u->rng ^= u->rng << 17;
    return u->rng;
}

/* Follows the clean stream frame by frame; returns `byte`, with one bit flipped when it is the
 * byte chosen in a frame picked for corruption (probability u->corrupt per frame). */
static uint8_t maybe_corrupt(pty_uart_t *u, pty_uart_frames_t *t, uint8_t byte)
{
    uint8_t out = byte;

    if (u->corrupt <= 0.0) {
        return byte;
    }
    if (t->remaining == 0u) {
        if (byte != FRAME_SYNC) {
            return byte; /* between frames (never on a clean stream) */
        }
        t->remaining = FRAME_OVERHEAD; /* until LEN says more */
        t->have_len = 0;
        t->index = 0;
        t->frames++;
        t->victim = -1;
        if ((double)(next_random(u) >> 11) / 9007199254740992.0 < u->corrupt) {
            t->victim = -2; /* chosen once LEN is known */
            t->bit = (uint8_t)(1u << (next_random(u) % 8u));
            t->corrupted++;
        }
    } else if (!t->have_len) {
        t->have_len = 1;
        t->remaining += byte; /* LEN: payload bytes */
        if (t->victim == -2) {
            /* any byte after SYNC: LEN (this one), CTRL, SEQ, the payload or the CRC */
            t->victim = 1 + (int)(next_random(u) % (FRAME_OVERHEAD - 1u + byte));
        }
    }
    if ((int)t->index == t->victim) {
        out = (uint8_t)(byte ^ t->bit);
    }
    t->index++;
    t->remaining--;
    return out;
}

static uint64_t monotonic_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t cycle_ns(const pty_uart_t *u, uint64_t cycle)
{
    return (uint64_t)((double)cycle * 1e9 / (double)u->avr->frequency);
}

static void write_byte(pty_uart_t *u, uint8_t byte)
{
    /* No reader or a full pty buffer: the byte is lost, as on a bridge nobody listens to. */
    if (write(u->master, &byte, 1) == 1) {
        u->tx_bytes++;
    } else {
        u->tx_dropped++;
    }
}

/* The device's bytes whose time on the crystal's line has come. */
static void flush_out(pty_uart_t *u)
{
    uint64_t now = u->out_head != u->out_tail ? monotonic_ns() : 0u;

    while (u->out_head != u->out_tail && u->out_due_ns[u->out_tail % PTY_UART_QUEUE] <= now) {
        if (now - u->out_due_ns[u->out_tail % PTY_UART_QUEUE] > 100000u) {
            u->out_late++;
        }
        write_byte(u, u->out[u->out_tail++ % PTY_UART_QUEUE]);
    }
}

uint64_t pty_uart_next_out_ns(const pty_uart_t *u)
{
    return u->out_head != u->out_tail ? u->out_due_ns[u->out_tail % PTY_UART_QUEUE] : 0u;
}

/* The UART's rate as the AVR's registers set it (UBRR0, U2X0); 0 while `enable` is off. */
static double uart_baud(const pty_uart_t *u, uint8_t enable)
{
    const uint8_t *d = u->avr->data;
    unsigned ubrr = ((unsigned)(d[REG_UBRR0H] & 0x0Fu) << 8) | d[REG_UBRR0L];

    if ((d[REG_UCSR0B] & enable) == 0u) {
        return 0.0;
    }
    return (double)u->avr->frequency / (((d[REG_UCSR0A] & U2X0_BIT) != 0u ? 8.0 : 16.0) * (double)(ubrr + 1u));
}

/* The speed the client set on its end (the master reads the slave's settings), 0 when it is the
 * pty's default B38400 or not a standard one. */
static double client_baud(const pty_uart_t *u)
{
    static const struct {
        speed_t code;
        double baud;
    } speeds[] = {{B1200, 1200}, {B2400, 2400}, {B4800, 4800}, {B9600, 9600}, {B19200, 19200}, {B57600, 57600},
                  {B115200, 115200}, {B230400, 230400}, {B460800, 460800}, {B500000, 500000}, {B921600, 921600},
                  {B1000000, 1000000}, {B2000000, 2000000}};
    struct termios tio;
    unsigned i;

    if (tcgetattr(u->master, &tio) != 0) {
        return 0.0;
    }
    for (i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
        if (cfgetospeed(&tio) == speeds[i].code) {
            return speeds[i].baud;
        }
    }
    return 0.0;
}

/* With the check on and the bootloader running: the ratio sender / receiver rate when the two
 * differ by more than 5 % (a UART's tolerance is about half that per side), else 0. */
static double baud_mismatch(const pty_uart_t *u, int from_host)
{
    double board, client;

    if (u->baud_check_from == 0u || u->avr->pc < u->baud_check_from) {
        return 0.0;
    }
    board = uart_baud(u, from_host ? RXEN0_BIT : TXEN0_BIT);
    client = client_baud(u);
    if (board <= 0.0 || client <= 0.0 || (client > board * 0.95 && client < board * 1.05)) {
        return 0.0;
    }
    return from_host ? client / board : board / client;
}

static void device_byte(pty_uart_t *u, uint8_t byte);

static void uart_output(struct avr_irq_t *irq, uint32_t value, void *param)
{
    pty_uart_t *u = param;
    uint8_t sent = (uint8_t)value, seen[4];
    double ratio = baud_mismatch(u, 0);
    unsigned i, n;

    (void)irq;
    if (ratio == 0.0) {
        device_byte(u, sent);
        return;
    }
    n = uart_line_resample(&sent, 1u, ratio, seen, sizeof(seen));
    for (i = 0; i < n; i++) {
        device_byte(u, seen[i]);
    }
}

static void device_byte(pty_uart_t *u, uint8_t value)
{
    uint8_t byte = maybe_corrupt(u, &u->device_frames, value);

    if (u->device_log != NULL) {
        fprintf(u->device_log, "%.4f,%u\n", (double)u->avr->cycle * 1e6 / (double)u->avr->frequency, byte);
    }
    if (!u->crystal) {
        write_byte(u, byte);
        return;
    }
    if (u->out_head - u->out_tail >= PTY_UART_QUEUE) {
        u->tx_dropped++; /* never at 115 200 baud: 4 096 bytes are 0.36 s of line time */
        return;
    }
    u->out_due_ns[u->out_head % PTY_UART_QUEUE] = (uint64_t)((int64_t)(u->t0_ns + cycle_ns(u, u->avr->cycle)) - u->crystal_offset_ns);
    u->out[u->out_head++ % PTY_UART_QUEUE] = byte;
    flush_out(u);
}

static void uart_xon(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    ((pty_uart_t *)param)->xon = 1;
}

static void uart_xoff(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    ((pty_uart_t *)param)->xon = 0;
}

/* The RX-complete interrupt became pending: the oldest byte in flight has arrived. */
static void rx_complete(struct avr_irq_t *irq, uint32_t value, void *param)
{
    pty_uart_t *u = param;

    (void)irq;
    if (value == 0u || u->flight_tail == u->flight_head) {
        return;
    }
    uint8_t byte = u->in_flight[u->flight_tail++ % PTY_UART_QUEUE];
    if (u->ring_addr != 0u) {
        const uint8_t *ring = &u->avr->data[u->ring_addr];
        uint8_t head = ring[u->ring_size], tail = ring[u->ring_size + 5u];
        if (((head + 1u) & (u->ring_size - 1u)) == tail) {
            u->ring_full_drops++;
            if (u->on_ring_drop != NULL) {
                u->on_ring_drop(u->on_ring_drop_ctx, u->avr->cycle);
            }
        }
    }
    if (u->host_log != NULL) {
        /* The lag (host clock minus simulated time, signed) at this very arrival, as the trace
         * has it at each register write: the device clock stamps the host's frames here. With
         * the crystal it is the crystal's constant (the byte arrived then on the host's clock,
         * after it was read from the pty); without, the wall clock read now, and how far it
         * wanders is how far the simulated device's clock is from a crystal. */
        double sim_us = (double)u->avr->cycle * 1e6 / (double)u->avr->frequency;
        double lag_us = u->crystal ? -(double)u->crystal_offset_ns / 1e3
                                   : ((double)monotonic_ns() - (double)u->t0_ns) / 1e3 - sim_us;
        fprintf(u->host_log, "%.4f,%u,%.1f\n", sim_us, byte, lag_us);
    }
}

void pty_uart_attach(pty_uart_t *u, struct avr_t *avr)
{
    uint32_t flags = 0;

    u->avr = avr;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(uint32_t)(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP);
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), uart_output, u);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON), uart_xon, u);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF), uart_xoff, u);
    avr_irq_register_notify(avr_get_interrupt_irq(avr, USART_RX_VECTOR) + AVR_INT_IRQ_PENDING, rx_complete, u);
}

static void ring_follow(pty_uart_t *u)
{
    if (u->tx_ring_addr != 0u) {
        const uint8_t *ring = &u->avr->data[u->tx_ring_addr];
        if (((ring[u->tx_ring_size] + 1u) & (u->tx_ring_size - 1u)) == ring[u->tx_ring_size + 1u]) {
            u->tx_ring_full_checks++;
        }
    }
    if (u->ring_addr != 0u) {
        uint8_t head = u->avr->data[u->ring_addr + u->ring_size];
        u->ring_pushes += (uint8_t)(head - u->ring_last_head) & (u->ring_size - 1u);
        u->ring_last_head = head;
    }
}

void pty_uart_watch_ring(pty_uart_t *u, uint32_t addr, uint32_t size)
{
    u->ring_addr = addr;
    u->ring_size = size;
    u->ring_last_head = u->avr->data[addr + size];
}

uint64_t pty_uart_ring_lost(const pty_uart_t *u)
{
    return u->ring_addr == 0u ? 0u : (uint64_t)u->flight_tail - u->ring_pushes;
}

void pty_uart_client_closed(pty_uart_t *u)
{
    struct termios tio;

    if (tcgetattr(u->master, &tio) == 0 && cfgetospeed(&tio) != B38400) {
        cfsetispeed(&tio, B38400);
        cfsetospeed(&tio, B38400);
        tcsetattr(u->master, TCSANOW, &tio);
    }
}

void pty_uart_reset(pty_uart_t *u)
{
    tcflush(u->master, TCIOFLUSH);
    u->head = u->tail = 0;
    u->out_head = u->out_tail = 0;
    u->flight_head = u->flight_tail = 0;
    u->xon = 1;
}

/* On the crystal's line a byte read at wall time `read_ns` is on the device's side no sooner
 * than the simulated time that line gives then. */
static int entered(const pty_uart_t *u, uint64_t read_ns)
{
    return (int64_t)cycle_ns(u, u->avr->cycle) > (int64_t)(read_ns - u->t0_ns) + u->crystal_offset_ns;
}

void pty_uart_pump(pty_uart_t *u)
{
    uint8_t buf[256];
    ssize_t n;
    avr_irq_t *input;

    ring_follow(u);
    flush_out(u);
    while (u->head - u->tail + sizeof(buf) <= PTY_UART_QUEUE && (n = read(u->master, buf, sizeof(buf))) > 0) {
        ssize_t i;
        uint64_t now = u->crystal ? monotonic_ns() : 0u;
        double ratio = baud_mismatch(u, 1);
        uint8_t garbled[PTY_UART_QUEUE];
        const uint8_t *bytes = buf;
        if (ratio != 0.0) {
            /* a slower receiver makes fewer bytes, a faster one up to about two per byte sent */
            u->baud_garbled += (uint64_t)n;
            bytes = garbled;
            n = (ssize_t)uart_line_resample(buf, (unsigned)n, ratio, garbled, PTY_UART_QUEUE - (u->head - u->tail));
        }
        for (i = 0; i < n; i++) {
            u->queue_read_ns[u->head % PTY_UART_QUEUE] = now;
            u->queue[u->head++ % PTY_UART_QUEUE] = bytes[i];
        }
    }
    if (u->head == u->tail || (u->avr->data[REG_UCSR0B] & RXEN0_BIT) == 0u) {
        return;
    }
    input = avr_io_getirq(u->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    while (u->xon && u->head != u->tail && (!u->crystal || entered(u, u->queue_read_ns[u->tail % PTY_UART_QUEUE]))) {
        uint8_t byte = maybe_corrupt(u, &u->host_frames, u->queue[u->tail++ % PTY_UART_QUEUE]);

        u->rx_bytes++;
        u->in_flight[u->flight_head++ % PTY_UART_QUEUE] = byte;
        avr_raise_irq(input, byte);
    }
}
