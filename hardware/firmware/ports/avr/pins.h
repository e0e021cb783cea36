/*
 * The ATmega328P port's pins (Arduino Uno and Nano): the one table the firmware builds from and
 * tools/gen-wiring.py draws docs/wiring/uno.svg and nano.svg from, so a pin changed here changes
 * both (a test regenerates the drawings and compares).
 *
 * A line `#define THRUM_PIN_<ROLE> <bit> / * <board pin> -> <what it is wired to> * /` is a pin
 * the diagrams show; the register macros below it are the port the bits belong to.
 */
#ifndef THRUM_AVR_PINS_H
#define THRUM_AVR_PINS_H

#include <avr/io.h>

/* UART0 to the board's USB-serial bridge (fixed by the part; wired on the board itself). */
#define THRUM_PIN_RXD PD0 /* D0 (RX) -> the board's USB-serial bridge (on the board) */
#define THRUM_PIN_TXD PD1 /* D1 (TX) -> the board's USB-serial bridge (on the board) */

/* TWI (I²C, 400 kHz) to the DRV2605L, and to the 24LC256 of the library image. */
#define THRUM_PIN_SDA PC4 /* A4 (SDA) -> DRV2605L SDA */
#define THRUM_PIN_SCL PC5 /* A5 (SCL) -> DRV2605L SCL */
#define THRUM_PIN_TWI_DDR DDRC
#define THRUM_PIN_TWI_OUT PORTC
#define THRUM_PIN_TWI_IN PINC

/* DRV2605L EN, driven high at start-up (a board with EN tied high needs no wire). */
#define THRUM_PIN_EN PD4 /* D4 -> DRV2605L EN (if the breakout brings EN out) */
#define THRUM_PIN_EN_DDR DDRD
#define THRUM_PIN_EN_OUT PORTD

/* Trigger inputs 0 and 1 of the library image: active low, pull-ups on, on pin-change
 * interrupt PCINT0 (port B). */
#define THRUM_PIN_TRIGGER0 PB0 /* D8 -> button 0 to GND (library image) */
#define THRUM_PIN_TRIGGER1 PB1 /* D9 -> button 1 to GND (library image) */
#define THRUM_PIN_TRIGGER_DDR DDRB
#define THRUM_PIN_TRIGGER_OUT PORTB
#define THRUM_PIN_TRIGGER_IN PINB

#endif /* THRUM_AVR_PINS_H */
