/*
 * The ATmega328P port's TWI master, 400 kHz (the DRV2605L and the library's 24LC256 share the
 * bus): the primitives board.c's I2C HAL and library_io.c's storage build on. Calls nothing else
 * of the port.
 */
#include <avr/io.h>
#include <util/twi.h>

#include "avr_twi.h"

#define I2C_TIMEOUT_LOOPS 2000u /* ~1 ms at 16 MHz; a stuck bus must not hang the loop */

#define ERR_IO 5
#define ERR_TIMEDOUT 110

int twi_wait(void)
{
    uint16_t guard = I2C_TIMEOUT_LOOPS;

    while ((TWCR & (1u << TWINT)) == 0u) {
        if (--guard == 0u) {
            return -ERR_TIMEDOUT;
        }
    }
    return 0;
}

void twi_stop(void)
{
    TWCR = (uint8_t)((1u << TWINT) | (1u << TWSTO) | (1u << TWEN));
}

/* (Repeated) START, then the address byte; `ack_status` is the status expected after it. */
int twi_start(uint8_t sla, uint8_t ack_status)
{
    TWCR = (uint8_t)((1u << TWINT) | (1u << TWSTA) | (1u << TWEN));
    if (twi_wait() != 0 || (TW_STATUS != TW_START && TW_STATUS != TW_REP_START)) {
        return -ERR_IO;
    }
    TWDR = sla;
    TWCR = (uint8_t)((1u << TWINT) | (1u << TWEN));
    if (twi_wait() != 0 || TW_STATUS != ack_status) {
        return -ERR_IO;
    }
    return 0;
}

int twi_send(uint8_t byte)
{
    TWDR = byte;
    TWCR = (uint8_t)((1u << TWINT) | (1u << TWEN));
    if (twi_wait() != 0 || TW_STATUS != TW_MT_DATA_ACK) {
        return -ERR_IO;
    }
    return 0;
}
