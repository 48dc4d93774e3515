/* The board's side of docs/serial-protocol.md: messages, acknowledgements, button events. */
#ifndef PROTOCOL_H
#define PROTOCOL_H

#include <stdint.h>

#include "frame.h"

#define MSG_HELLO 0x01
#define MSG_SET_SCORES 0x02
#define MSG_SET_CLOCK 0x03
#define MSG_MESSAGE 0x04
#define MSG_BEEP 0x05
#define MSG_LEDS 0x06
#define MSG_SYNC 0x07
#define MSG_HEARTBEAT 0x08
#define MSG_STATUS 0x09
#define MSG_ACK 0x10
#define MSG_NACK 0x11
#define MSG_HELLO_REPLY 0x81
#define MSG_BUTTON 0x82
#define MSG_STATUS_REPLY 0x89
#define MSG_TEST_STALL 0x7F /* only in a TEST_HOOKS=1 build */

#define NACK_GARBAGE 1
#define NACK_UNKNOWN_TYPE 2
#define NACK_BAD_LENGTH 3
#define NACK_BAD_VALUE 4
#define NACK_UNSUPPORTED_VERSION 5
#define NACK_NO_HANDSHAKE 6

void protocol_init(void);
/* Feeds one received byte; acts on complete frames. */
void protocol_receive(uint8_t byte, uint32_t now_ms);
/* Once per tick: button events and their retries, the no-host timeout, message expiry, display. */
void protocol_service(uint32_t now_ms);

#endif
