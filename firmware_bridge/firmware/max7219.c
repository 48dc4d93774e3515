#include "max7219.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#define REG_DIGIT0 0x01
#define REG_DECODE_MODE 0x09
#define REG_INTENSITY 0x0A
#define REG_SCAN_LIMIT 0x0B
#define REG_SHUTDOWN 0x0C
#define REG_DISPLAY_TEST 0x0F

#define TRANSFER_BYTES (2u * MAX7219_CHIPS)
#define QUEUE_SIZE 16u /* transfers: eight digit rows and the five set-up registers fit */

/* One transfer loads the same register in every chip: the farthest chip's bytes go first. */
static volatile uint8_t queue[QUEUE_SIZE][TRANSFER_BYTES];
static volatile uint8_t queue_head, queue_tail;
static volatile uint8_t byte_index;
static volatile uint8_t busy;
static uint8_t shown[DIGIT_COUNT];
static uint8_t known; /* shown[] is only trusted after the first full write */

static void load_low(void) { PORTB &= (uint8_t)~_BV(MAX_LOAD_BIT); }
static void load_high(void) { PORTB |= _BV(MAX_LOAD_BIT); }

/* Starts the transfer at the queue tail; interrupts are off or we are in the SPI ISR. */
static void start_transfer(void)
{
    busy = 1;
    byte_index = 0;
    load_low();
    SPDR = queue[queue_tail][0];
}

ISR(SPI_STC_vect)
{
    if (++byte_index < TRANSFER_BYTES) {
        SPDR = queue[queue_tail][byte_index];
        return;
    }
    load_high(); /* the rising edge latches the 16 bits in each chip */
    queue_tail = (uint8_t)((queue_tail + 1u) & (QUEUE_SIZE - 1u));
    if (queue_tail != queue_head) {
        start_transfer();
    } else {
        busy = 0;
    }
}

/* Queues register reg of chip c = values[c]; false when the queue is full. */
static uint8_t enqueue(uint8_t reg, const uint8_t values[MAX7219_CHIPS])
{
    uint8_t ok = 0;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        uint8_t next = (uint8_t)((queue_head + 1u) & (QUEUE_SIZE - 1u));
        if (next != queue_tail) {
            for (uint8_t chip = 0; chip < MAX7219_CHIPS; chip++) {
                uint8_t slot = (uint8_t)(2u * (MAX7219_CHIPS - 1u - chip));
                queue[queue_head][slot] = reg;
                queue[queue_head][slot + 1u] = values[chip];
            }
            queue_head = next;
            if (!busy) {
                start_transfer();
            }
            ok = 1;
        }
    }
    return ok;
}

static void enqueue_all(uint8_t reg, uint8_t value)
{
    uint8_t values[MAX7219_CHIPS];
    for (uint8_t chip = 0; chip < MAX7219_CHIPS; chip++) {
        values[chip] = value;
    }
    enqueue(reg, values);
}

void max7219_init(void)
{
    DDRB |= _BV(MAX_LOAD_BIT) | _BV(MAX_MOSI_BIT) | _BV(MAX_SCK_BIT);
    load_high();
    /* master, mode 0, F_CPU / 16 = 1 MHz (safe on long ribbon cables; the chips take 10 MHz) */
    SPCR = _BV(SPIE) | _BV(SPE) | _BV(MSTR) | _BV(SPR0);
    enqueue_all(REG_DISPLAY_TEST, 0);
    enqueue_all(REG_SCAN_LIMIT, 7);
    enqueue_all(REG_DECODE_MODE, 0);
    enqueue_all(REG_INTENSITY, 8);
    enqueue_all(REG_SHUTDOWN, 1);
    known = 0;
}

void max7219_show(const uint8_t segments[DIGIT_COUNT])
{
    for (uint8_t row = 0; row < 8; row++) {
        uint8_t values[MAX7219_CHIPS];
        uint8_t differs = !known;
        for (uint8_t chip = 0; chip < MAX7219_CHIPS; chip++) {
            uint8_t digit = (uint8_t)(8u * chip + row);
            values[chip] = segments[digit];
            differs |= (uint8_t)(segments[digit] != shown[digit]);
        }
        if (!differs) {
            continue;
        }
        if (!enqueue((uint8_t)(REG_DIGIT0 + row), values)) {
            return; /* queue full: the rest goes out on the next call */
        }
        for (uint8_t chip = 0; chip < MAX7219_CHIPS; chip++) {
            shown[8u * chip + row] = values[chip];
        }
    }
    known = 1;
}
