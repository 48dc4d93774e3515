/* Timer0 square wave on OC0A, sequenced by the 1 kHz tick: beeps never block the main loop. */
#ifndef BUZZER_H
#define BUZZER_H

#include <stdbool.h>
#include <stdint.h>

#define BEEP_CUSTOM 0
#define BEEP_OK 1
#define BEEP_WARNING 2
#define BEEP_ERROR 3
#define BEEP_TIMEOUT 4
#define BEEP_MATCH_END 5

void buzzer_init(void);
/* Starts a built-in pattern (1..5), replacing whatever plays; false for an unknown pattern. */
bool buzzer_pattern(uint8_t pattern);
/* count tones of on_ms at frequency_hz, separated by off_ms; 0 Hz is a rest, below 31 Hz sounds 31 Hz. */
void buzzer_custom(uint8_t count, uint16_t on_ms, uint16_t off_ms, uint16_t frequency_hz);
/* Called from the tick interrupt. */
void buzzer_tick(void);

#endif
