/*
 * avr_twi.h — what the ATmega328P port's files share: the TWI master primitives of twi.c (the
 * DRV2605L and the library's 24LC256 are on the same bus) and the library I/O of library_io.c.
 * The port's files call down only: board.c (main, UART, I2C HAL) > library_io.c > twi.c, clock.c
 * (tools/fw-layers.py checks it).
 */
#ifndef THRUM_AVR_TWI_H
#define THRUM_AVR_TWI_H

#include <stdint.h>

/* twi.c: TWI master, 400 kHz. Each returns 0 or a negative errno. */
/** Wait for TWINT (bounded: a stuck bus times out after ~1 ms). */
int twi_wait(void);
/** STOP. */
void twi_stop(void);
/** (Repeated) START, then the address byte `sla`; `ack_status` is the status expected after it. */
int twi_start(uint8_t sla, uint8_t ack_status);
/** One data byte, master transmitter, ACK expected. */
int twi_send(uint8_t byte);

/* library_io.c (THRUM_FW_LIBRARY): a 24LC256 at 0x50 (32 KiB in 64-byte pages) and the trigger
 * inputs on pin-change interrupts. */
#define AVR_STORAGE_SIZE 32768ul
#define AVR_STORAGE_PAGE 64u
/** Trigger inputs: pull-ups on, pin-change interrupt enabled (before sei()). */
void avr_trigger_init(void);

#endif /* THRUM_AVR_TWI_H */
