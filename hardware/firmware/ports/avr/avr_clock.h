/*
 * avr_clock.h — the ATmega328P port's µs clock (clock.c), shared by board.c (the UART's receive
 * times, set-up) and library_io.c (the EEPROM's write-cycle wait).
 */
#ifndef THRUM_AVR_CLOCK_H
#define THRUM_AVR_CLOCK_H

#include <stdint.h>

/** Timer1 free-running, its overflow interrupt on (before sei()). */
void avr_clock_init(void);
/** The µs clock; call with interrupts disabled (an interrupt handler). thrum_hal_clock_us is the
 *  same with interrupts saved and restored. */
uint32_t avr_clock_us_locked(void);

#endif /* THRUM_AVR_CLOCK_H */
