/*
 * What the firmware drives, turned into reports: the MAX7219 chain (SPI bytes and the LOAD pin,
 * decoded per chip into the 24 digits shown), the buzzer pin (tones and their frequency from its
 * edges) and the LED pins.
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

/* the buzzer pin */
static bool tone_sounding;
static uint64_t tone_start;        /* ns: when the current tone began (its first edge less a half period) */
static uint64_t tone_first_edge, tone_last_edge, tone_last_regular, tone_suspect_edge;
static uint64_t tone_half;         /* ns between edges of the current tone; 0 until its second edge */
static uint32_t tone_regular_edges;
static bool tone_suspect;          /* the last edge broke the rhythm: the tone stopped or changed */

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

static double tone_hz(void)
{
    if (tone_regular_edges < 2 || tone_last_regular <= tone_first_edge) {
        return 0.0;
    }
    double seconds = (double)(tone_last_regular - tone_first_edge) / 1e9;
    return (tone_regular_edges - 1) / (2.0 * seconds);
}

static void tone_begins(uint64_t first_edge, uint64_t half)
{
    tone_sounding = true;
    tone_first_edge = tone_last_edge = tone_last_regular = first_edge;
    tone_half = half;
    tone_start = first_edge - half;
    tone_regular_edges = 1;
    tone_suspect = false;
    report("TONE_ON", tone_start / 1000, NULL);
}

static void tone_ends(uint64_t end)
{
    report("TONE_OFF", end / 1000, "%llu %.1f", (unsigned long long)(tone_start / 1000), tone_hz());
    tone_sounding = false;
}

static bool on_rhythm(uint64_t interval)
{
    uint64_t slack = tone_half / 20 + 1000; /* 5 %: Timer0's edges are exact */
    return interval + slack >= tone_half && interval <= tone_half + slack;
}

/*
 * Timer0 toggles the pin every half period.  A tone ends when the edges stop (the firmware's
 * stop forces the pin low: that edge is the end); a new tone that follows without a pause shows
 * as two intervals in a row off the old rhythm, the second one the new half period.
 */
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
    uint64_t now = cycles_to_ns(avr->cycle);
    if (!tone_sounding) {
        tone_begins(now, 0);
        return;
    }
    uint64_t interval = now - tone_last_edge;
    if (tone_half == 0) {
        tone_half = interval;
        tone_start = tone_first_edge - interval;
        tone_regular_edges = 2;
        tone_last_regular = now;
    } else if (on_rhythm(interval)) {
        tone_suspect = false;
        tone_regular_edges++;
        tone_last_regular = now;
    } else if (!tone_suspect) {
        tone_suspect = true;
        tone_suspect_edge = now;
    } else {
        uint64_t changed_at = tone_suspect_edge - interval; /* the new tone's start */
        tone_ends(changed_at > tone_last_regular ? changed_at : tone_last_regular);
        tone_begins(tone_suspect_edge, interval);
        tone_regular_edges = 2;
        tone_last_regular = now;
    }
    tone_last_edge = now;
}

void check_tone_stopped(void)
{
    if (!tone_sounding) {
        return;
    }
    uint64_t now = cycles_to_ns(avr->cycle);
    uint64_t quiet = 3 * tone_half > 2000000 ? 3 * tone_half : 2000000;
    if (now - tone_last_edge > quiet) {
        tone_ends(tone_last_edge);
    }
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
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('C'), IOPORT_IRQ_PIN_ALL), on_port_c,
                            NULL);
}
