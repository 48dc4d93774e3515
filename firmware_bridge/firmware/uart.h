/* Interrupt-driven UART0: received bytes go into a ring buffer, frames leave from another. */
#ifndef UART_H
#define UART_H

#include <stdbool.h>
#include <stdint.h>

void uart_init(void);
/* Next received byte, or -1 when the ring is empty. */
int16_t uart_read(void);
bool uart_rx_pending(void);
/* Queues all n bytes or none (false when the TX ring has no room: the frame is dropped). */
bool uart_write(const uint8_t *data, uint8_t n);
/* Bytes lost because the RX ring was full (their frame then fails its CRC). */
uint16_t uart_rx_overflows(void);

#endif
