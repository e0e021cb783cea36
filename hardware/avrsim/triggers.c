/* See triggers.h. */
#define _POSIX_C_SOURCE 200809L
#include "triggers.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sim_avr.h>
#include <sim_io.h>
#include <avr_ioport.h>

#define STDIN_CHECK_CYCLES 16000u /* 1 ms at 16 MHz */

static double now_us(const triggers_t *t)
{
    return (double)t->avr->cycle * 1e6 / (double)t->avr->frequency;
}

static void drive(triggers_t *t, unsigned input, int level)
{
    avr_raise_irq(avr_io_getirq(t->avr, AVR_IOCTL_IOPORT_GETIRQ('B'), (int)input), (uint32_t)level);
}

static void press(triggers_t *t, unsigned input)
{
    if (input >= TRIGGERS_INPUTS) {
        fprintf(stderr, "avrsim: trigger %u: the AVR library image has inputs 0 and 1 (PB0, PB1)\n", input);
        return;
    }
    drive(t, input, 0);
    t->release_cycle[input] = t->avr->cycle + (uint64_t)TRIGGERS_HOLD_US * (t->avr->frequency / 1000000u);
    t->presses++;
    if (t->trace != NULL) {
        fprintf(t->trace, "# trigger input=%u time_us=%.4f\n", input, now_us(t));
        fflush(t->trace);
    }
    printf("trigger %u pressed\n", input);
    fflush(stdout);
}

int triggers_schedule(triggers_t *t, const char *text)
{
    char *end;
    unsigned long ms = strtoul(text, &end, 10);
    unsigned long input;

    if (end == text || *end != ':' || ms == 0u || t->scheduled >= TRIGGERS_SCHEDULED_MAX) {
        return -1;
    }
    input = strtoul(end + 1, &end, 10);
    if (*end != '\0' || input >= TRIGGERS_INPUTS) {
        return -1;
    }
    t->scheduled_us[t->scheduled] = (uint64_t)ms * 1000u;
    t->scheduled_input[t->scheduled] = (uint8_t)input;
    t->scheduled++;
    return 0;
}

void triggers_attach(triggers_t *t, struct avr_t *avr, FILE *trace, int read_stdin)
{
    unsigned i;

    t->avr = avr;
    t->trace = trace;
    t->read_stdin = read_stdin;
    for (i = 0; i < TRIGGERS_INPUTS; i++) {
        drive(t, i, 1);
    }
}

/* A whole line: `trigger N` or `N`. */
static void take_line(triggers_t *t)
{
    const char *p = t->line;
    char *end;
    unsigned long input;

    while (*p == ' ' || *p == '\t') {
        p++;
    }
    if (strncmp(p, "trigger", 7) == 0) {
        p += 7;
    }
    input = strtoul(p, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\r') {
        end++;
    }
    if (end == p || *end != '\0') {
        fprintf(stderr, "avrsim: type `trigger N` with N 0 or 1\n");
        return;
    }
    press(t, (unsigned)input);
}

static void read_stdin(triggers_t *t)
{
    struct pollfd pfd = {STDIN_FILENO, POLLIN, 0};
    char buf[64];
    ssize_t n;
    ssize_t i;

    if (poll(&pfd, 1, 0) <= 0 || (pfd.revents & (POLLIN | POLLHUP)) == 0) {
        if (pfd.revents & (POLLERR | POLLNVAL)) {
            t->read_stdin = 0;
        }
        return;
    }
    n = read(STDIN_FILENO, buf, sizeof(buf));
    if (n <= 0) { /* EOF, or EIO in a background job (SIGTTIN is ignored) */
        t->read_stdin = 0;
        return;
    }
    for (i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            t->line[t->line_len] = '\0';
            take_line(t);
            t->line_len = 0;
        } else if (t->line_len + 1u < sizeof(t->line)) {
            t->line[t->line_len++] = buf[i];
        }
    }
}

void triggers_poll(triggers_t *t)
{
    unsigned i;

    for (i = 0; i < TRIGGERS_INPUTS; i++) {
        if (t->release_cycle[i] != 0u && t->avr->cycle >= t->release_cycle[i]) {
            t->release_cycle[i] = 0;
            drive(t, i, 1);
        }
    }
    for (i = 0; i < t->scheduled; i++) {
        if (t->scheduled_us[i] != 0u && now_us(t) >= (double)t->scheduled_us[i]) {
            t->scheduled_us[i] = 0;
            press(t, t->scheduled_input[i]);
        }
    }
    if (t->read_stdin && t->avr->cycle >= t->next_stdin_cycle) {
        t->next_stdin_cycle = t->avr->cycle + STDIN_CHECK_CYCLES;
        read_stdin(t);
    }
}
