/* See uart_line.h. */
#include "uart_line.h"

/* The line at sender bit `k`: start 0, data LSB first, stop 1; idle (1) outside the bytes. */
static int line_level(const uint8_t *in, unsigned n, long k)
{
    unsigned bit;

    if (k < 0 || k >= 10L * (long)n) {
        return 1;
    }
    bit = (unsigned)(k % 10);
    return bit == 0u ? 0 : bit == 9u ? 1 : (in[k / 10] >> (bit - 1u)) & 1;
}

unsigned uart_line_resample(const uint8_t *in, unsigned n, double ratio, uint8_t *out, unsigned cap)
{
    long total = 10L * (long)n, k = 0;
    unsigned count = 0, i;

    while (count < cap) {
        while (k < total && !(line_level(in, n, k) == 0 && line_level(in, n, k - 1) == 1)) {
            k++;
        }
        if (k >= total) {
            break;
        }
        if (line_level(in, n, (long)((double)k + 0.5 * ratio)) != 0) {
            k++; /* a glitch, not a start bit */
            continue;
        }
        uint8_t byte = 0;
        for (i = 0; i < 8u; i++) {
            byte |= (uint8_t)(line_level(in, n, (long)((double)k + (1.5 + i) * ratio)) << i);
        }
        out[count++] = byte;
        k = (long)((double)k + 9.5 * ratio) + 1; /* the first sender bit after the stop sample */
    }
    return count;
}
