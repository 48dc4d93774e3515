/* Frames on the wire: COBS(type | seq | payload | crc16 big-endian) 0x00. */
#ifndef FRAME_H
#define FRAME_H

#include <stdbool.h>
#include <stdint.h>

#define FRAME_MAX_DECODED 60u
#define FRAME_MAX_ENCODED 61u /* before the 0x00 delimiter */
#define FRAME_MAX_PAYLOAD (FRAME_MAX_DECODED - 4u)
#define SEQ_UNKNOWN 255u

typedef struct {
    uint8_t type;
    uint8_t seq;
    uint8_t length; /* payload bytes */
    uint8_t payload[FRAME_MAX_PAYLOAD];
} frame_t;

typedef enum {
    FRAME_INCOMPLETE, /* keep feeding bytes */
    FRAME_EMPTY,      /* a lone delimiter: ignored, lets a sender flush a partial frame */
    FRAME_VALID,      /* *out holds the frame */
    FRAME_GARBAGE,    /* too long, COBS broken, too short or bad CRC */
} frame_status_t;

/* Feeds one received byte into the assembler. */
frame_status_t frame_feed(uint8_t byte, frame_t *out);

/* Encodes a frame with its CRC and delimiter into wire[] (at least 62 bytes); returns its size. */
uint8_t frame_encode(uint8_t type, uint8_t seq, const uint8_t *payload, uint8_t length, uint8_t *wire);

uint16_t frame_crc(const uint8_t *data, uint8_t n);

#endif
