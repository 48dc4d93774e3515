/* What the 24 digits show, computed from the scoreboard state (layout: docs/serial-protocol.md). */
#ifndef DISPLAY_H
#define DISPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "board.h"

#define SEAT_NONE 255u
#define MESSAGE_MAX 16u
#define BLINK_HALF_PERIOD_MS 250u

typedef struct {
    uint8_t score_count; /* 0 before the host set any */
    int16_t scores[4];
    uint8_t clock_seat;  /* 0..3 or SEAT_NONE */
    uint8_t message_length;
    char message[MESSAGE_MAX];
    bool no_host;
} display_state_t;

/* Renders state into segments[]; the clock comes from the tick (it changes in its interrupt), with
 * the time since the host last set it (the warning blink's phase). */
void display_render(const display_state_t *state, uint16_t tenths, uint8_t clock_flags,
                    uint32_t clock_age_ms, uint8_t segments[DIGIT_COUNT]);

#endif
