#include "uart.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "board.h"

#define RX_SIZE 128u /* two maximal frames; a power of two */
#define TX_SIZE 128u

static volatile uint8_t rx_ring[RX_SIZE];
static volatile uint8_t rx_head, rx_tail;
static volatile uint16_t rx_lost;
static volatile uint8_t tx_ring[TX_SIZE];
static volatile uint8_t tx_head, tx_tail;

void uart_init(void)
{
    /* U2X: 16 MHz / (8 * (16 + 1)) = 117647 baud, 2.1 % off 115200 (what Arduino boards use). */
    UCSR0A = _BV(U2X0);
    UBRR0 = (uint16_t)((F_CPU / (8UL * BAUD_RATE)) - 1UL);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

ISR(USART_RX_vect)
{
    uint8_t byte = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1u) & (RX_SIZE - 1u));
    if (next == rx_tail) {
        rx_lost++;
        return;
    }
    rx_ring[rx_head] = byte;
    rx_head = next;
}

ISR(USART_UDRE_vect)
{
    if (tx_head == tx_tail) {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
        return;
    }
    UDR0 = tx_ring[tx_tail];
    tx_tail = (uint8_t)((tx_tail + 1u) & (TX_SIZE - 1u));
}

int16_t uart_read(void)
{
    if (rx_head == rx_tail) {
        return -1;
    }
    uint8_t byte = rx_ring[rx_tail];
    rx_tail = (uint8_t)((rx_tail + 1u) & (RX_SIZE - 1u));
    return byte;
}

bool uart_rx_pending(void)
{
    return rx_head != rx_tail;
}

bool uart_write(const uint8_t *data, uint8_t n)
{
    uint8_t free_bytes = (uint8_t)((tx_tail - tx_head - 1u) & (TX_SIZE - 1u));
    if (n > free_bytes) {
        return false;
    }
    for (uint8_t i = 0; i < n; i++) {
        tx_ring[tx_head] = data[i];
        tx_head = (uint8_t)((tx_head + 1u) & (TX_SIZE - 1u));
    }
    UCSR0B |= _BV(UDRIE0);
    return true;
}

uint16_t uart_rx_overflows(void)
{
    uint16_t lost;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { lost = rx_lost; }
    return lost;
}
