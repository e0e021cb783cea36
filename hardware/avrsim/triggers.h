/*
 * The library image's trigger inputs from outside the simulated AVR (ports/avr/library_io.c:
 * input 0 = PB0, input 1 = PB1, active low): both held high (released) from the start; a press
 * pulls one low for 100 ms of simulated time. Presses come from standard input (lines `trigger N`
 * or `N`, as `thrum sim --storage` reads them) and from `--trigger-at MS:N` (simulated time).
 * Each press is a trace comment `# trigger input=N time_us=T` and a stdout line `trigger N pressed`.
 */
#ifndef AVRSIM_TRIGGERS_H
#define AVRSIM_TRIGGERS_H

#include <stdint.h>
#include <stdio.h>

struct avr_t;

#define TRIGGERS_INPUTS 2u
#define TRIGGERS_HOLD_US 100000u
#define TRIGGERS_SCHEDULED_MAX 16u

typedef struct {
    struct avr_t *avr;
    FILE *trace;
    int read_stdin;                 /* lines on standard input press inputs (until EOF or an error) */
    char line[64];
    size_t line_len;
    uint64_t release_cycle[TRIGGERS_INPUTS]; /* 0: released */
    uint64_t scheduled_us[TRIGGERS_SCHEDULED_MAX];
    uint8_t scheduled_input[TRIGGERS_SCHEDULED_MAX];
    unsigned scheduled;
    uint64_t next_stdin_cycle;
    uint32_t presses;
} triggers_t;

/** Parses `MS:N` (a press of input N at MS ms of simulated time) into the schedule; 0 or -1. */
int triggers_schedule(triggers_t *t, const char *text);
/** Drives both inputs released. */
void triggers_attach(triggers_t *t, struct avr_t *avr, FILE *trace, int read_stdin);
/** Presses due, releases due, standard input (checked every simulated ms). */
void triggers_poll(triggers_t *t);

#endif
