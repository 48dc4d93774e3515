/* Pins, clock rate and protocol constants of the scoreboard board (docs/serial-protocol.md). */
#ifndef BOARD_H
#define BOARD_H

#ifndef F_CPU
#define F_CPU 16000000UL
#endif

#define FIRMWARE_MAJOR 1
#define FIRMWARE_MINOR 0
#define PROTOCOL_VERSION 1
#define DIGIT_COUNT 24
#define MAX7219_CHIPS 3
#define BAUD_RATE 115200UL

/* MAX7219 chain on hardware SPI: DIN = PB3 (MOSI), CLK = PB5 (SCK), LOAD = PB2 (SS). */
#define MAX_LOAD_BIT PB2
#define MAX_MOSI_BIT PB3
#define MAX_SCK_BIT PB5

/* Buzzer on OC0A = PD6: Timer0 toggles it in hardware, no interrupt per edge. */
#define BUZZER_BIT PD6

/* Buttons to GND on PD2..PD4, internal pull-ups. */
#define BUTTON_FIRST_BIT PD2
#define BUTTON_COUNT 3
#define BUTTON_DEBOUNCE_MS 30
#define BUTTON_HOLD_MS 1000

/* LEDs on PORTC: green PC0, red PC1, seat turn markers PC2..PC5 (protocol mask bits 4..7). */
#define LED_PORT_MASK 0x3F

#define TICKS_PER_TENTH 100   /* the tick is 1 ms */
#define NO_HOST_MS 3000
#define RETRY_MS 100
#define BUTTON_RETRIES 3

#endif
