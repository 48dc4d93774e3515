#include "tick.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "board.h"
#include "buttons.h"
#include "buzzer.h"

static volatile uint32_t millis;
static volatile bool ticked;
static volatile uint16_t clock_tenths;
static volatile uint8_t clock_flags;
static volatile uint8_t clock_phase_ms;
static volatile uint32_t clock_set_ms;

void tick_init(void)
{
    /* CTC on OCR1A: 16 MHz / 64 / 250 = exactly 1000 Hz. */
    TCCR1A = 0;
    TCCR1B = _BV(WGM12) | _BV(CS11) | _BV(CS10);
    OCR1A = (uint16_t)(F_CPU / 64UL / 1000UL - 1UL);
    TIMSK1 = _BV(OCIE1A);
}

ISR(TIMER1_COMPA_vect)
{
    millis++;
    ticked = true;
    if (clock_flags & CLOCK_RUNNING) {
        if (++clock_phase_ms >= TICKS_PER_TENTH) {
            clock_phase_ms = 0;
            if (clock_tenths > 0) {
                clock_tenths--; /* it stays "running" at 0, as the host set it */
            }
        }
    }
    buzzer_tick();
    buttons_tick();
}

uint32_t tick_millis(void)
{
    uint32_t now;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { now = millis; }
    return now;
}

bool tick_take(void)
{
    bool was;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        was = ticked;
        ticked = false;
    }
    return was;
}

bool tick_pending(void)
{
    return ticked;
}

void clock_set(uint16_t tenths, uint8_t flags)
{
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        clock_tenths = tenths;
        clock_flags = flags;
        clock_phase_ms = 0; /* the next tenth is gone 100 ms after the host's update */
        clock_set_ms = millis;
    }
}

void clock_get(uint16_t *tenths, uint8_t *flags, uint32_t *age_ms)
{
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        *tenths = clock_tenths;
        *flags = clock_flags;
        *age_ms = millis - clock_set_ms;
    }
}
