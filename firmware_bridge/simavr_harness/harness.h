/* Shared by the harness's parts: the simulated MCU, the clocks and the report lines. */
#ifndef HARNESS_H
#define HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include <simavr/sim_avr.h>

extern avr_t *avr;

double monotonic_now(void);            /* CLOCK_MONOTONIC seconds, as Python's time.monotonic() */
uint64_t sim_us(void);                 /* simulated microseconds since power-up */
uint64_t cycles_to_ns(uint64_t cycles);
/* One report line: KIND <sim us> <wall s> [format...] */
void report(const char *kind, uint64_t at_us, const char *format, ...);

/* observe.c: the display chain, the buzzer and the LEDs */
void observe_outputs(bool trace_spi);
void outputs_reset(void); /* the MCU restarted: a tone sounding then stops */

#endif
