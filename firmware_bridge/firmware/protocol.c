#include "protocol.h"

#include <avr/io.h>
#include <stdbool.h>
#include <string.h>

#include "board.h"
#include "buttons.h"
#include "buzzer.h"
#include "display.h"
#include "max7219.h"
#include "tick.h"
#include "uart.h"

static display_state_t state;
static bool display_dirty;
static uint16_t shown_tenths; /* the clock as last rendered */
static uint8_t shown_flags, shown_blink;
static uint32_t message_until_ms; /* 0: shown until replaced */
static uint32_t last_valid_ms;
static uint16_t garbage_frames;

static bool handshaken; /* a HELLO was answered since power-up or reset */
static bool have_last_seq;
static uint8_t last_seq;

static uint8_t my_seq;
static bool event_outstanding;
static button_event_t event;
static uint8_t event_seq;
static uint8_t event_sends;
static uint32_t event_sent_ms;

static uint16_t be16(const uint8_t *p) { return (uint16_t)((uint16_t)p[0] << 8) | p[1]; }

static void send(uint8_t type, uint8_t seq, const uint8_t *payload, uint8_t length)
{
    uint8_t wire[FRAME_MAX_ENCODED + 1u];
    uint8_t n = frame_encode(type, seq, payload, length, wire);
    uart_write(wire, n);
}

static void ack(uint8_t seq) { send(MSG_ACK, seq, 0, 0); }

static void nack(uint8_t seq, uint8_t reason) { send(MSG_NACK, seq, &reason, 1); }

static void send_status_reply(uint8_t seq, uint32_t now_ms)
{
    uint16_t tenths;
    uint8_t flags;
    uint32_t age_ms;
    clock_get(&tenths, &flags, &age_ms);
    uint16_t uptime = (uint16_t)(now_ms / 1000u);
    uint8_t reply[7] = {
        (uint8_t)(tenths >> 8), (uint8_t)tenths, flags, (uint8_t)(garbage_frames >> 8),
        (uint8_t)garbage_frames, (uint8_t)(uptime >> 8), (uint8_t)uptime,
    };
    send(MSG_STATUS_REPLY, seq, reply, sizeof reply);
}

static void set_leds(uint8_t mask)
{
    /* protocol bits 0,1 = green, red; bits 4..7 = seat markers -> PC0, PC1, PC2..PC5 */
    uint8_t pins = (uint8_t)((mask & 0x03u) | ((mask >> 2) & 0x3Cu));
    PORTC = (uint8_t)((PORTC & (uint8_t)~LED_PORT_MASK) | pins);
}

static void set_message(uint16_t tenths, const uint8_t *text, uint8_t length, uint32_t now_ms)
{
    memcpy(state.message, text, length);
    state.message_length = length;
    message_until_ms = (tenths && length) ? now_ms + 100UL * tenths : 0;
    if (message_until_ms == 0 && tenths && length) {
        message_until_ms = 1; /* keep 0 for "until replaced" even at the millis wrap */
    }
}

static bool printable(const uint8_t *text, uint8_t length)
{
    for (uint8_t i = 0; i < length; i++) {
        if (text[i] < 0x20u || text[i] > 0x7Eu) {
            return false;
        }
    }
    return true;
}

static bool valid_seat(uint8_t seat) { return seat < 4u || seat == SEAT_NONE; }

/* Checks and applies a frame that carries a new command; returns a NACK reason or 0. */
static uint8_t apply(const frame_t *f, uint32_t now_ms)
{
    const uint8_t *p = f->payload;
    uint8_t n = f->length;
    switch (f->type) {
    case MSG_SET_SCORES: {
        if (n < 1) return NACK_BAD_LENGTH;
        if (p[0] < 1 || p[0] > 4) return NACK_BAD_VALUE;
        if (n != 1u + 2u * p[0]) return NACK_BAD_LENGTH;
        state.score_count = p[0];
        for (uint8_t i = 0; i < p[0]; i++) {
            state.scores[i] = (int16_t)be16(p + 1 + 2 * i);
        }
        return 0;
    }
    case MSG_SET_CLOCK:
        if (n != 4) return NACK_BAD_LENGTH;
        if (!valid_seat(p[0])) return NACK_BAD_VALUE;
        state.clock_seat = p[0];
        clock_set(be16(p + 1), p[3] & CLOCK_FLAGS_KNOWN);
        return 0;
    case MSG_MESSAGE:
        if (n < 2 || n > 2u + MESSAGE_MAX) return NACK_BAD_LENGTH;
        if (!printable(p + 2, (uint8_t)(n - 2u))) return NACK_BAD_VALUE;
        set_message(be16(p), p + 2, (uint8_t)(n - 2u), now_ms);
        return 0;
    case MSG_BEEP:
        if (n < 1) return NACK_BAD_LENGTH;
        if (p[0] == BEEP_CUSTOM) {
            if (n != 8) return NACK_BAD_LENGTH;
            if (p[1] == 0) return NACK_BAD_VALUE;
            buzzer_custom(p[1], be16(p + 2), be16(p + 4), be16(p + 6));
            return 0;
        }
        if (n != 1) return NACK_BAD_LENGTH;
        return buzzer_pattern(p[0]) ? 0 : NACK_BAD_VALUE;
    case MSG_LEDS:
        if (n != 1) return NACK_BAD_LENGTH;
        if (p[0] & 0x0Cu) return NACK_BAD_VALUE;
        set_leds(p[0]);
        return 0;
    case MSG_SYNC: {
        /* count (0 before any score), scores, seat, tenths, flags, leds, message tenths, length,
         * text: all checked before anything is applied */
        if (n < 1) return NACK_BAD_LENGTH;
        uint8_t count = p[0];
        if (count > 4) return NACK_BAD_VALUE;
        uint8_t at = (uint8_t)(1u + 2u * count);
        if (n < at + 7u) return NACK_BAD_LENGTH;
        uint8_t seat = p[at], clock_flags = p[at + 3u], leds = p[at + 4u], length = p[at + 7u];
        if (length > MESSAGE_MAX) return NACK_BAD_VALUE;
        if (n != at + 8u + length) return NACK_BAD_LENGTH;
        if (!valid_seat(seat) || (leds & 0x0Cu) || !printable(p + at + 8u, length)) {
            return NACK_BAD_VALUE;
        }
        state.score_count = count;
        for (uint8_t i = 0; i < count; i++) {
            state.scores[i] = (int16_t)be16(p + 1 + 2 * i);
        }
        state.clock_seat = seat;
        clock_set(be16(p + at + 1u), clock_flags & CLOCK_FLAGS_KNOWN);
        set_leds(leds);
        set_message(be16(p + at + 5u), p + at + 8u, length, now_ms);
        return 0;
    }
    case MSG_HEARTBEAT:
        return n == 0 ? 0 : NACK_BAD_LENGTH;
#ifdef TEST_HOOKS
    case MSG_TEST_STALL:
        for (;;) { /* a hung main loop, for the tests: the watchdog must reset the board */
        }
#endif
    default:
        return NACK_UNKNOWN_TYPE;
    }
}

static void handle_hello(const frame_t *f)
{
    if (f->length != 1) {
        nack(f->seq, NACK_BAD_LENGTH);
        return;
    }
    if (f->payload[0] != PROTOCOL_VERSION) {
        nack(f->seq, NACK_UNSUPPORTED_VERSION);
        return;
    }
    /* a (re)starting host counts from 0 again: HELLO is never a duplicate and forgets the last seq */
    have_last_seq = false;
    handshaken = true;
    uint8_t reply[4] = {PROTOCOL_VERSION, FIRMWARE_MAJOR, FIRMWARE_MINOR, DIGIT_COUNT};
    send(MSG_HELLO_REPLY, f->seq, reply, sizeof reply);
}

static void handle_answer(const frame_t *f, uint32_t now_ms)
{
    if (!event_outstanding) {
        return;
    }
    if (f->type == MSG_NACK && f->length == 1 && f->payload[0] == NACK_GARBAGE) {
        /* the host got a garbled frame (it cannot know its seq, so 255): resend on the next tick */
        event_sent_ms = now_ms - RETRY_MS;
        return;
    }
    if (f->seq == event_seq) {
        event_outstanding = false; /* ACK, or a final NACK the host will not change its mind on */
    }
}

static void handle_frame(const frame_t *f, uint32_t now_ms)
{
    last_valid_ms = now_ms;
    if (state.no_host) {
        state.no_host = false;
        display_dirty = true;
    }
    if (f->type == MSG_ACK || f->type == MSG_NACK) {
        handle_answer(f, now_ms);
        return;
    }
    if (f->type == MSG_HELLO) {
        handle_hello(f);
        return;
    }
    if (!handshaken) {
        nack(f->seq, NACK_NO_HANDSHAKE); /* we were reset: the host must handshake and resync */
        return;
    }
    if (f->type == MSG_STATUS) {
        if (f->length != 0) {
            nack(f->seq, NACK_BAD_LENGTH);
        } else {
            send_status_reply(f->seq, now_ms);
        }
        return;
    }
    if (have_last_seq && f->seq == last_seq) {
        ack(f->seq); /* our ACK was lost: say it again, do not do it again */
        return;
    }
    uint8_t reason = apply(f, now_ms);
    if (reason) {
        nack(f->seq, reason);
        return;
    }
    have_last_seq = true;
    last_seq = f->seq;
    display_dirty = true;
    ack(f->seq);
}

void protocol_init(void)
{
    memset(&state, 0, sizeof state);
    state.clock_seat = SEAT_NONE;
    display_dirty = true;
    DDRC |= LED_PORT_MASK;
    set_leds(0);
}

void protocol_receive(uint8_t byte, uint32_t now_ms)
{
    frame_t f;
    switch (frame_feed(byte, &f)) {
    case FRAME_VALID:
        handle_frame(&f, now_ms);
        break;
    case FRAME_GARBAGE:
        garbage_frames++;
        nack(SEQ_UNKNOWN, NACK_GARBAGE);
        break;
    default:
        break;
    }
}

static void send_event(uint32_t now_ms)
{
    uint8_t payload[2] = {event.button, event.action};
    send(MSG_BUTTON, event_seq, payload, sizeof payload);
    event_sends++;
    event_sent_ms = now_ms;
}

static void service_buttons(uint32_t now_ms)
{
    if (event_outstanding && now_ms - event_sent_ms >= RETRY_MS) {
        if (event_sends > BUTTON_RETRIES) {
            event_outstanding = false; /* given up: the host resyncs after a lost link anyway */
        } else {
            send_event(now_ms);
        }
    }
    if (!event_outstanding && buttons_take(&event)) {
        event_seq = my_seq;
        my_seq = (uint8_t)((my_seq + 1u) % 255u);
        event_outstanding = true;
        event_sends = 0;
        send_event(now_ms);
    }
}

void protocol_service(uint32_t now_ms)
{
    service_buttons(now_ms);
    if (!state.no_host && now_ms - last_valid_ms >= NO_HOST_MS) {
        state.no_host = true;
        display_dirty = true;
    }
    if (message_until_ms && (int32_t)(now_ms - message_until_ms) >= 0) {
        message_until_ms = 0;
        state.message_length = 0;
        display_dirty = true;
    }
    uint16_t tenths;
    uint8_t flags;
    uint32_t clock_age_ms;
    clock_get(&tenths, &flags, &clock_age_ms);
    uint8_t blink_phase = (uint8_t)((clock_age_ms / BLINK_HALF_PERIOD_MS) & 1u);
    /* render as soon as anything shown changed: the clock's tenths tick in the timer interrupt */
    if (display_dirty || tenths != shown_tenths || flags != shown_flags || blink_phase != shown_blink) {
        uint8_t segments[DIGIT_COUNT];
        display_render(&state, tenths, flags, clock_age_ms, segments);
        max7219_show(segments);
        display_dirty = false;
        shown_tenths = tenths;
        shown_flags = flags;
        shown_blink = blink_phase;
    }
}
