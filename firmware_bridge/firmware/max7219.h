/* Three MAX7219s daisy-chained on hardware SPI, written by the SPI interrupt from a queue. */
#ifndef MAX7219_H
#define MAX7219_H

#include <stdint.h>

#include "board.h"

void max7219_init(void);
/* Sends the digits that differ from what the chips already hold (segments, bit 7 = point). */
void max7219_show(const uint8_t segments[DIGIT_COUNT]);

#endif
