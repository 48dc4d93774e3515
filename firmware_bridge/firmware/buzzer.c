#include "buzzer.h"

#include <avr/io.h>
#include <util/atomic.h>

#include "board.h"

#define MAX_STEPS 4

typedef struct {
    uint8_t prescaler_bits; /* TCCR0B clock select */
    uint8_t top;            /* OCR0A */
    uint16_t on_ms;
    uint16_t off_ms;
} tone_t;

static volatile tone_t steps[MAX_STEPS];
static volatile uint8_t step_count;
static volatile uint8_t repeats_left; /* passes through steps[] still to play */
static volatile uint8_t step_index;
static volatile bool sounding;
static volatile uint16_t remaining_ms; /* of the current on or off phase; 0 = idle */

static const uint16_t prescalers[] = {1, 8, 64, 256, 1024};

/* CTC toggle: f = F_CPU / (2 * N * (top + 1)); the smallest prescaler that fits is the most exact. */
static void tone_for(uint16_t hz, uint16_t on_ms, uint16_t off_ms, tone_t *tone)
{
    uint8_t bits = 5; /* below 31 Hz: the slowest Timer0 can toggle, 30.5 Hz */
    uint32_t top = 255;
    for (uint8_t i = 0; i < 5 && hz > 0; i++) {
        uint32_t divisor = 2UL * prescalers[i] * hz;
        uint32_t t = (F_CPU + divisor / 2) / divisor;
        if (t >= 1 && t <= 256) {
            bits = (uint8_t)(i + 1);
            top = t - 1;
            break;
        }
    }
    tone->prescaler_bits = hz > 0 ? bits : 0; /* 0 Hz: a rest, the timer stays stopped */
    tone->top = (uint8_t)top;
    tone->on_ms = on_ms > 0 ? on_ms : 1;
    tone->off_ms = off_ms;
}

static void sound_off(void)
{
    TCCR0B = 0;
    TCCR0A = 0; /* OC0A disconnected: the pin is PORTD6 again */
    PORTD &= (uint8_t)~_BV(BUZZER_BIT);
    sounding = false;
}

static void sound_on(volatile const tone_t *tone)
{
    TCCR0B = 0;
    TCNT0 = 0;
    OCR0A = tone->top;
    TCCR0A = _BV(COM0A0) | _BV(WGM01); /* toggle OC0A on compare match, CTC */
    TCCR0B = tone->prescaler_bits;
    sounding = true;
}

void buzzer_init(void)
{
    DDRD |= _BV(BUZZER_BIT);
    sound_off();
    remaining_ms = 0;
}

/* Replaces whatever plays; the divisions happen before interrupts are held off. */
static void play(const tone_t *tones, uint8_t count, uint8_t repeats)
{
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        for (uint8_t i = 0; i < count; i++) {
            steps[i] = tones[i];
        }
        step_count = count;
        repeats_left = repeats;
        step_index = 0;
        sound_on(&steps[0]);
        remaining_ms = steps[0].on_ms;
    }
}

bool buzzer_pattern(uint8_t pattern)
{
    tone_t tones[MAX_STEPS];
    switch (pattern) {
    case BEEP_OK: /* one short */
        tone_for(2000, 100, 0, &tones[0]);
        play(tones, 1, 1);
        break;
    case BEEP_WARNING: /* two short */
        tone_for(2000, 100, 100, &tones[0]);
        play(tones, 1, 2);
        break;
    case BEEP_ERROR: /* long low */
        tone_for(400, 600, 0, &tones[0]);
        play(tones, 1, 1);
        break;
    case BEEP_TIMEOUT: /* three long */
        tone_for(1000, 400, 200, &tones[0]);
        play(tones, 1, 3);
        break;
    case BEEP_MATCH_END: /* rising */
        tone_for(1000, 150, 50, &tones[0]);
        tone_for(1500, 150, 50, &tones[1]);
        tone_for(2000, 150, 50, &tones[2]);
        play(tones, 3, 1);
        break;
    default:
        return false;
    }
    return true;
}

void buzzer_custom(uint8_t count, uint16_t on_ms, uint16_t off_ms, uint16_t frequency_hz)
{
    tone_t tone;
    tone_for(frequency_hz, on_ms, off_ms, &tone);
    play(&tone, 1, count);
}

void buzzer_tick(void)
{
    if (remaining_ms == 0 || --remaining_ms > 0) {
        return;
    }
    if (sounding) {
        sound_off();
        remaining_ms = steps[step_index].off_ms;
        if (remaining_ms > 0) {
            return;
        }
    }
    /* the off phase ended (or there was none): next step, next pass, or silence */
    if (++step_index >= step_count) {
        if (--repeats_left == 0) {
            remaining_ms = 0;
            return;
        }
        step_index = 0;
    }
    sound_on(&steps[step_index]);
    remaining_ms = steps[step_index].on_ms;
}
