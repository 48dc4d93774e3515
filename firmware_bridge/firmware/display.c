#include "display.h"

#include <avr/pgmspace.h>
#include <string.h>

#define FONT7SEG_STORAGE PROGMEM
#include "font7seg.h"
#include "tick.h"

static const char no_host_text[] = "no HoSt";

static uint8_t glyph(char c)
{
    if ((uint8_t)c < FONT7SEG_FIRST || (uint8_t)c > FONT7SEG_LAST) {
        return 0;
    }
    return pgm_read_byte(&font7seg[(uint8_t)c - FONT7SEG_FIRST]);
}

/* Left-aligned, one character per digit; a '.' lights the previous digit's point instead. */
static void put_text(uint8_t *digits, uint8_t width, const char *text, uint8_t length)
{
    uint8_t at = 0;
    memset(digits, 0, width);
    for (uint8_t i = 0; i < length; i++) {
        char c = text[i];
        if (c == '.' && at > 0 && !(digits[at - 1] & SEG_DP)) {
            digits[at - 1] |= SEG_DP;
            continue;
        }
        if (at >= width) {
            break;
        }
        digits[at++] = c == '.' ? SEG_DP : glyph(c);
    }
}

/* Right-aligned in four digits; outside -999..9999 it shows "----". */
static void put_score(uint8_t *digits, int16_t score)
{
    memset(digits, 0, 4);
    if (score < -999 || score > 9999) {
        memset(digits, glyph('-'), 4);
        return;
    }
    bool negative = score < 0;
    uint16_t value = (uint16_t)(negative ? -score : score);
    int8_t at = 3;
    do {
        digits[at--] = glyph((char)('0' + value % 10u));
        value /= 10u;
    } while (value > 0 && at >= 0);
    if (negative && at >= 0) {
        digits[at] = glyph('-');
    }
}

/* MM.SS from 10 minutes (capped at 99.59), " M.SS" from 1 minute, "SS.t" below, right-aligned. */
static void put_clock(uint8_t *digits, uint16_t tenths)
{
    uint16_t seconds = tenths / 10u;
    char text[4] = {' ', ' ', ' ', ' '};
    uint8_t dot_at;
    if (seconds >= 60u) {
        uint16_t minutes = seconds / 60u;
        uint16_t rest = seconds % 60u;
        if (minutes > 99u) {
            minutes = 99u;
            rest = 59u;
        }
        if (minutes >= 10u) {
            text[0] = (char)('0' + minutes / 10u);
        }
        text[1] = (char)('0' + minutes % 10u);
        text[2] = (char)('0' + rest / 10u);
        text[3] = (char)('0' + rest % 10u);
        dot_at = 1;
    } else {
        if (seconds >= 10u) {
            text[1] = (char)('0' + seconds / 10u);
        }
        text[2] = (char)('0' + seconds % 10u);
        text[3] = (char)('0' + tenths % 10u);
        dot_at = 2;
    }
    for (uint8_t i = 0; i < 4; i++) {
        digits[i] = glyph(text[i]);
    }
    digits[dot_at] |= SEG_DP;
}

void display_render(const display_state_t *state, uint16_t tenths, uint8_t clock_flags,
                    uint32_t clock_age_ms, uint8_t segments[DIGIT_COUNT])
{
    memset(segments, 0, DIGIT_COUNT);
    if (state->no_host) {
        put_text(segments, 16, no_host_text, (uint8_t)(sizeof no_host_text - 1u));
    } else if (state->message_length > 0) {
        put_text(segments, 16, state->message, state->message_length);
    } else {
        for (uint8_t seat = 0; seat < state->score_count; seat++) {
            put_score(segments + 4u * seat, state->scores[seat]);
        }
    }
    if (state->clock_seat == SEAT_NONE) {
        return;
    }
    /* the blink starts "on" when the host sets the clock: 250 ms on, 250 ms off */
    bool blank = (clock_flags & CLOCK_WARNING) && ((clock_age_ms / BLINK_HALF_PERIOD_MS) & 1u);
    if (!blank) {
        put_clock(segments + 16, tenths);
    }
    segments[20] = glyph('P');
    segments[21] = glyph((char)('1' + state->clock_seat));
    if (clock_flags & CLOCK_AWAY) {
        segments[23] = glyph('A');
    } else if (!(clock_flags & CLOCK_RUNNING)) {
        segments[22] = glyph('-');
        segments[23] = glyph('-');
    }
}
