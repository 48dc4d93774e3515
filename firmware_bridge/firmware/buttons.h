/* Three buttons to GND, debounced in the tick interrupt; presses and holds become events. */
#ifndef BUTTONS_H
#define BUTTONS_H

#include <stdbool.h>
#include <stdint.h>

#define BUTTON_START 1
#define BUTTON_PASS 2
#define BUTTON_CONTINUE 3
#define ACTION_PRESSED 1
#define ACTION_HELD 2

typedef struct {
    uint8_t button;
    uint8_t action;
} button_event_t;

void buttons_init(void);
/* Called from the tick interrupt. */
void buttons_tick(void);
/* Takes the oldest event not yet taken; false when there is none. */
bool buttons_take(button_event_t *event);

#endif
