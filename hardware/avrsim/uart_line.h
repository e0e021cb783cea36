/*
 * A UART line at the wrong baud: what a receiver at one rate makes of 8N1 bytes sent at another
 * (the baud check of pty_uart.h). No simavr: tested alone (tests/test_uart_line.c).
 */
#ifndef AVRSIM_UART_LINE_H
#define AVRSIM_UART_LINE_H

#include <stdint.h>

/**
 * What a receiver whose bit lasts `ratio` sender bits (sender rate / receiver rate) makes of `n`
 * bytes sent back to back (8N1, LSB first, the line idle before and after): at each falling edge
 * it checks the start bit at its middle, reads eight data bits a receiver bit apart and the stop
 * bit (a 0 there is a framing error, which the bootloaders do not look at: the byte is kept),
 * then waits for the next falling edge. Writes at most `cap` bytes to `out`; returns how many.
 * At ratio 1 the bytes come out as they went in.
 */
unsigned uart_line_resample(const uint8_t *in, unsigned n, double ratio, uint8_t *out, unsigned cap);

#endif
