/* Tests of the wrong-baud line model (uart_line.h), worked out bit by bit. */
#include <stdio.h>
#include <string.h>

#include "tests/check.h"
#include "uart_line.h"

int main(void)
{
    const uint8_t sync[2] = {0x30, 0x20}; /* avrdude's STK_GET_SYNC, CRC_EOP */
    uint8_t all[256], out[600];
    unsigned i, n;

    /* The same rate: every byte as sent, back to back. */
    for (i = 0; i < 256u; i++) {
        all[i] = (uint8_t)i;
    }
    n = uart_line_resample(all, 256u, 1.0, out, sizeof(out));
    CHECK(n == 256u && memcmp(out, all, 256u) == 0);
    /* Within a UART's tolerance (2 % here): still the bytes. */
    CHECK(uart_line_resample(sync, 2u, 1.02, out, sizeof(out)) == 2u && out[0] == 0x30 && out[1] == 0x20);

    /* avrdude at 57 600 into optiboot's 117 647 (a receiver bit is 0.49 sender bits): 0x30 is
     * 0,00001100,1 on the line; the receiver reads the start bit and 0000 (twice each) = 0x00,
     * then a new start at the 0 after the ones, and so on: never 0x30 0x20. */
    n = uart_line_resample(sync, 2u, 57600.0 / 117647.0, out, sizeof(out));
    CHECK(n >= 2u);
    CHECK(out[0] == 0x00);
    CHECK(!(n >= 2u && out[0] == 0x30 && out[1] == 0x20));

    /* 115 200 into ATmegaBOOT's 58 824 (1.96 sender bits a receiver bit): fewer bytes, not the sent ones. */
    n = uart_line_resample(sync, 2u, 115200.0 / 58824.0, out, sizeof(out));
    CHECK(n >= 1u && n < 2u + 1u);
    CHECK(!(n == 2u && out[0] == 0x30 && out[1] == 0x20));

    /* At most `cap` bytes. */
    CHECK(uart_line_resample(all, 256u, 0.49, out, 10u) == 10u);

    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
