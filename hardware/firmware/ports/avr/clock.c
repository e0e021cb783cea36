/*
 * The ATmega328P port's clock: Timer1 free-running at 2 MHz, its overflow count extending it to
 * a 32-bit µs clock (thrum_hal_clock_us). Calls nothing else of the port.
 */
#include <avr/interrupt.h>
#include <avr/io.h>

#include "avr_clock.h"
#include "thrum_fw.h"

/* Timer1 at F_CPU / 8 = 2 MHz: one tick is 0.5 µs and one overflow 32768 µs = 2^15 µs. */
#define TIMER1_PRESCALE_8 (1u << CS11)
#define TICKS_PER_US_SHIFT 1u

static volatile uint32_t timer1_overflows;

ISR(TIMER1_OVF_vect)
{
    timer1_overflows++;
}

/* Call with interrupts disabled. An overflow that happened but whose interrupt has not run yet
 * shows as TOV1 with a small count. */
uint32_t avr_clock_us_locked(void)
{
    uint16_t ticks = TCNT1;
    uint32_t overflows = timer1_overflows;

    if ((TIFR1 & (1u << TOV1)) != 0u && ticks < 0x8000u) {
        overflows++;
    }
    /* overflows * 2^15 + ticks / 2, mod 2^32, without a 15-step shift loop (this clock is read
     * in the loop that holds a drive to its instant: a fast read is a precise onset): the low 16
     * bits of the overflow count above the ticks, shifted once, and its bit 16 as bit 31. */
    {
        uint32_t us = (((uint32_t)(uint16_t)overflows << 16) | ticks) >> TICKS_PER_US_SHIFT;
        if ((overflows & 0x10000ul) != 0u) {
            us |= 0x80000000ul;
        }
        return us;
    }
}

uint32_t thrum_hal_clock_us(void *ctx)
{
    uint8_t sreg = SREG;
    uint32_t now;

    (void)ctx;
    cli();
    now = avr_clock_us_locked();
    SREG = sreg;
    return now;
}

void avr_clock_init(void)
{
    TCCR1A = 0;
    TCCR1B = TIMER1_PRESCALE_8;
    TIMSK1 = (uint8_t)(1u << TOIE1);
}
