#include "buttons.h"

#include <avr/io.h>
#include <util/atomic.h>

#include "board.h"

#define QUEUE_SIZE 8u

static uint8_t stable_pressed;   /* bit i: button i debounced as pressed */
static uint8_t settle_ms[BUTTON_COUNT];
static uint16_t held_ms[BUTTON_COUNT];
static volatile button_event_t queue[QUEUE_SIZE];
static volatile uint8_t queue_head, queue_tail;

void buttons_init(void)
{
    uint8_t mask = (uint8_t)(((1u << BUTTON_COUNT) - 1u) << BUTTON_FIRST_BIT);
    DDRD &= (uint8_t)~mask;
    PORTD |= mask; /* pull-ups: a released button reads high */
}

static void push(uint8_t button, uint8_t action)
{
    uint8_t next = (uint8_t)((queue_head + 1u) & (QUEUE_SIZE - 1u));
    if (next == queue_tail) {
        return; /* eight unsent events: the host is gone, older ones matter more */
    }
    queue[queue_head].button = button;
    queue[queue_head].action = action;
    queue_head = next;
}

void buttons_tick(void)
{
    uint8_t raw_pressed = (uint8_t)(~PIND >> BUTTON_FIRST_BIT);
    for (uint8_t i = 0; i < BUTTON_COUNT; i++) {
        uint8_t bit = (uint8_t)(1u << i);
        bool raw = (raw_pressed & bit) != 0;
        bool stable = (stable_pressed & bit) != 0;
        if (raw == stable) {
            settle_ms[i] = 0;
        } else if (++settle_ms[i] > BUTTON_DEBOUNCE_MS) { /* 30 ms after it was first seen */
            settle_ms[i] = 0;
            stable_pressed ^= bit;
            held_ms[i] = 0;
            if (raw) {
                push((uint8_t)(i + 1u), ACTION_PRESSED);
            }
        }
        if ((stable_pressed & bit) && held_ms[i] < BUTTON_HOLD_MS) {
            if (++held_ms[i] == BUTTON_HOLD_MS) {
                push((uint8_t)(i + 1u), ACTION_HELD);
            }
        }
    }
}

bool buttons_take(button_event_t *event)
{
    bool taken = false;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        if (queue_tail != queue_head) {
            event->button = queue[queue_tail].button;
            event->action = queue[queue_tail].action;
            queue_tail = (uint8_t)((queue_tail + 1u) & (QUEUE_SIZE - 1u));
            taken = true;
        }
    }
    return taken;
}
