/*
 * What the firmware drives, turned into reports: the MAX7219 chain (SPI bytes and the LOAD pin,
 * decoded per chip into the 24 digits shown), the buzzer (each tone timed by its timer's start and
 * stop, its frequency measured on the pin) and the LED pins.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <simavr/avr_ioport.h>
#include <simavr/avr_spi.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_irq.h>

#include "font7seg.h"
#include "harness.h"

#define CHIPS 3
#define DIGITS 24
#define BUZZER_PIN 6 /* PD6 */
#define LOAD_PIN 2   /* PB2 */

static bool trace_spi;

/* the MAX7219 chain: a 48-bit shift register and each chip's latched registers */
static uint8_t chain[2 * CHIPS];
static uint8_t chip_digit[CHIPS][8];
static uint8_t chip_decode[CHIPS], chip_scan_limit[CHIPS], chip_on[CHIPS], chip_test[CHIPS];
static uint8_t reported[DIGITS];
static bool reported_once;

/* the buzzer: Timer0 in CTC mode toggles OC0A (PD6) every half period while it is clocked */
#define TCCR0B_ADDRESS 0x45 /* data space: Timer0's control register B, whose bits 0..2 select the clock */
#define TIMER0_CLOCK_SELECT 0x07
static uint8_t timer0_clock;       /* the clock-select bits last written: 0 = stopped */
static uint64_t tone_start;        /* ns: when the timer was started */
static uint64_t tone_first_edge, tone_last_edge;
static uint32_t tone_edges;        /* pin edges since the tone started */

static uint8_t leds_reported = 0xFF;

/* ---- display ---------------------------------------------------------------------------- */

static uint8_t code_b(uint8_t value)
{
    static const uint8_t forms[16] = {0x7E, 0x30, 0x6D, 0x79, 0x33, 0x5B, 0x5F, 0x70,
                                      0x7F, 0x7B, 0x01, 0x4F, 0x37, 0x0E, 0x67, 0x00};
    return (uint8_t)(forms[value & 0x0F] | (value & 0x80));
}

static char character_of(uint8_t segments)
{
    /* the first character of this order that the font draws this way: digits before letters,
     * then each letter in the form the font gives it (b not B, n not N, t not T, ...) */
    static const char order[] =
        " 0123456789-AbCcdEFGHhIiJLnoPqrtUuy_=?()[]'\"^~`/\\|!$,BDKMNOQRSTVWXYZaefgjklmpsvwxz";
    uint8_t wanted = (uint8_t)(segments & 0x7F);
    for (const char *c = order; *c; c++) {
        if ((font7seg[*c - FONT7SEG_FIRST] & 0x7F) == wanted) {
            return *c;
        }
    }
    return '#';
}

static void visible_digits(uint8_t out[DIGITS])
{
    for (int chip = 0; chip < CHIPS; chip++) {
        for (int d = 0; d < 8; d++) {
            uint8_t value = chip_digit[chip][d];
            if (chip_test[chip]) {
                value = 0xFF;
            } else if (!chip_on[chip] || d > chip_scan_limit[chip]) {
                value = 0;
            } else if (chip_decode[chip] & (1u << d)) {
                value = code_b(value);
            }
            out[chip * 8 + d] = value;
        }
    }
}

static void report_display_if_changed(void)
{
    uint8_t now[DIGITS];
    visible_digits(now);
    if (reported_once && memcmp(now, reported, DIGITS) == 0) {
        return;
    }
    memcpy(reported, now, DIGITS);
    reported_once = true;
    char hex[2 * DIGITS + 1], text[DIGITS + 1];
    for (int i = 0; i < DIGITS; i++) {
        snprintf(hex + 2 * i, 3, "%02x", now[i]);
        text[i] = character_of(now[i]);
    }
    text[DIGITS] = 0;
    report("DISPLAY", sim_us(), "%s |%s|", hex, text);
}

static void latch_chain(void)
{
    for (int chip = 0; chip < CHIPS; chip++) {
        /* the last two bytes shifted in sit in chip 0, the two before in chip 1, ... */
        uint8_t reg = (uint8_t)(chain[2 * (CHIPS - 1 - chip)] & 0x0F);
        uint8_t value = chain[2 * (CHIPS - 1 - chip) + 1];
        switch (reg) {
        case 0x00: break; /* no-op */
        case 0x09: chip_decode[chip] = value; break;
        case 0x0A: break; /* intensity */
        case 0x0B: chip_scan_limit[chip] = value & 0x07; break;
        case 0x0C: chip_on[chip] = value & 0x01; break;
        case 0x0F: chip_test[chip] = value & 0x01; break;
        default:
            if (reg >= 0x01 && reg <= 0x08) {
                chip_digit[chip][reg - 1] = value;
            }
        }
    }
    report_display_if_changed();
}

static void on_spi_byte(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    memmove(chain, chain + 1, sizeof chain - 1);
    chain[sizeof chain - 1] = (uint8_t)value;
    if (trace_spi) {
        report("SPI", sim_us(), "%02x", value & 0xFF);
    }
}

static void on_load_pin(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)param;
    if (value && !irq->value) {
        latch_chain(); /* LOAD's rising edge */
    }
}

/* ---- buzzer and LEDs -------------------------------------------------------------------- */

/* Measured on the pin, not taken from the timer's settings: a pin that never toggles reads 0 Hz. */
static double tone_hz(void)
{
    if (tone_edges < 2 || tone_last_edge <= tone_first_edge) {
        return 0.0;
    }
    double seconds = (double)(tone_last_edge - tone_first_edge) / 1e9;
    return (tone_edges - 1) / (2.0 * seconds);
}

/*
 * A tone lasts while Timer0 is clocked: the firmware starts the timer to sound and stops it to
 * fall silent.  The pin's edges alone cannot tell a short pause from a change of tone (the first
 * interval after either is just "off the rhythm"), so the start and end come from the timer's
 * clock-select bits and the frequency from the edges in between.
 */
static void timer0_clocked(uint8_t clock)
{
    if (clock == timer0_clock) {
        return;
    }
    uint64_t now = cycles_to_ns(avr->cycle);
    if (timer0_clock != 0) {
        report("TONE_OFF", now / 1000, "%llu %.1f", (unsigned long long)(tone_start / 1000), tone_hz());
    }
    timer0_clock = clock;
    if (clock != 0) {
        tone_start = now;
        tone_edges = 0;
    }
}

static void on_timer0_control(avr_t *core, avr_io_addr_t address, uint8_t value, void *param)
{
    (void)core;
    (void)address;
    (void)param;
    timer0_clocked((uint8_t)(value & TIMER0_CLOCK_SELECT));
}

void outputs_reset(void)
{
    timer0_clocked(0); /* the reset cleared Timer0's registers behind the write callback */
}

static void on_buzzer_pin(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    /* a timer-driven edge arrives twice (from the timer, then from the port): keep our own level */
    static uint32_t level;
    if ((value & 1) == level) {
        return;
    }
    level = value & 1;
    if (timer0_clock == 0) {
        return; /* the stop forcing the pin low, not a tone's edge */
    }
    uint64_t now = cycles_to_ns(avr->cycle);
    if (tone_edges == 0) {
        tone_first_edge = now;
        report("TONE_ON", tone_start / 1000, NULL); /* heard from the first edge, dated from the start */
    }
    tone_last_edge = now;
    tone_edges++;
}

static void on_port_c(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uint8_t leds = (uint8_t)(value & 0x3F);
    if (leds != leds_reported) {
        leds_reported = leds;
        report("LEDS", sim_us(), "%02x", leds);
    }
}

void observe_outputs(bool spi_trace)
{
    trace_spi = spi_trace;
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_SPI_GETIRQ(0), SPI_IRQ_OUTPUT), on_spi_byte, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), LOAD_PIN), on_load_pin, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), BUZZER_PIN), on_buzzer_pin, NULL);
    avr_register_io_write(avr, TCCR0B_ADDRESS, on_timer0_control, NULL); /* beside the timer's own */
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('C'), IOPORT_IRQ_PIN_ALL), on_port_c,
                            NULL);
}
