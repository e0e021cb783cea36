/*
 * Thrum for Arduino (ATmega328P: Uno, Nano).
 *
 * Including this header links the Thrum firmware into the sketch. The library's sources are the
 * firmware core and the AVR port of hardware/firmware, copied here by tools/gen-arduino-library.sh
 * (run it once after cloning, and again after changing hardware/firmware; never edit the copies).
 *
 * The AVR port brings its own main(): UART0 at 115200 baud with an interrupt-driven ring, TWI at
 * 400 kHz, Timer1 as the microsecond clock. It replaces the Arduino core's main(), so setup() and
 * loop() are never called and Serial, millis() and delay() must not be used in the sketch.
 */
#ifndef THRUM_ARDUINO_H
#define THRUM_ARDUINO_H

#if !defined(__AVR_ATmega328P__)
#error "Thrum's Arduino build supports the ATmega328P (Arduino Uno, Nano); pick one of those boards"
#endif

#endif
