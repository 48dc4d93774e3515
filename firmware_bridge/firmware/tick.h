/* The 1 kHz Timer1 tick: milliseconds, the board's own countdown, buzzer and button sampling. */
#ifndef TICK_H
#define TICK_H

#include <stdbool.h>
#include <stdint.h>

#define CLOCK_RUNNING 0x01u
#define CLOCK_WARNING 0x02u
#define CLOCK_AWAY 0x04u
#define CLOCK_FLAGS_KNOWN 0x07u

void tick_init(void);
uint32_t tick_millis(void);
/* True once per tick since the last call (the main loop's reason to work after waking). */
bool tick_take(void);
bool tick_pending(void);

/* The running clock, counted down in the tick interrupt in exact tenths. */
void clock_set(uint16_t tenths, uint8_t flags);
/* The clock now, and the milliseconds since the host last set it. */
void clock_get(uint16_t *tenths, uint8_t *flags, uint32_t *age_ms);

#endif
