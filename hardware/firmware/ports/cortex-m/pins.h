/*
 * The STM32F103 port's pins (Blue Pill): the one table the firmware builds from and
 * tools/gen-wiring.py draws docs/wiring/bluepill.svg from, so a pin changed here changes both
 * (a test regenerates the drawing and compares).
 *
 * A line `#define THRUM_PIN_<ROLE> <bit> / * <board pin> -> <what it is wired to> * /` is a pin
 * the diagram shows; the comment above each group names its GPIO port.
 */
#ifndef THRUM_CORTEX_M_PINS_H
#define THRUM_CORTEX_M_PINS_H

/* USART1 on GPIOA, 115200 8N1, to a 3.3 V USB-serial adapter (also the ROM bootloader's UART). */
#define THRUM_PIN_TX 9u  /* A9 -> USB-serial adapter RX */
#define THRUM_PIN_RX 10u /* A10 -> USB-serial adapter TX */

/* I2C1 on GPIOB (PB6/PB7 are 5 V tolerant) to the DRV2605L. */
#define THRUM_PIN_SCL 6u /* B6 -> DRV2605L SCL */
#define THRUM_PIN_SDA 7u /* B7 -> DRV2605L SDA */

/* DRV2605L EN on GPIOA, push-pull, high at start-up, low from the fault handler. */
#define THRUM_PIN_EN 8u /* A8 -> DRV2605L EN (if the breakout brings EN out) */

#endif /* THRUM_CORTEX_M_PINS_H */
