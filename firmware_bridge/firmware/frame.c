#include "frame.h"

#include <string.h>
#include <util/crc16.h>

static uint8_t assembly[FRAME_MAX_ENCODED];
static uint8_t assembled;
static bool overlong;

uint16_t frame_crc(const uint8_t *data, uint8_t n)
{
    /* CRC-16/CCITT-FALSE = the XMODEM polynomial 0x1021 started from 0xFFFF. */
    uint16_t crc = 0xFFFFu;
    while (n--) {
        crc = _crc_xmodem_update(crc, *data++);
    }
    return crc;
}

/* Returns the decoded size, or -1 when the bytes are not valid COBS. */
static int16_t cobs_decode(const uint8_t *in, uint8_t n, uint8_t *out)
{
    uint8_t i = 0, o = 0;
    while (i < n) {
        uint8_t code = in[i++];
        if ((uint16_t)i + code - 1u > n) {
            return -1;
        }
        for (uint8_t k = 1; k < code; k++) {
            out[o++] = in[i++];
        }
        if (code != 0xFFu && i < n) {
            out[o++] = 0;
        }
    }
    return o;
}

static frame_status_t finish(frame_t *out)
{
    uint8_t decoded[FRAME_MAX_DECODED];
    uint8_t n = assembled;
    bool was_overlong = overlong;
    assembled = 0;
    overlong = false;
    if (was_overlong) {
        return FRAME_GARBAGE;
    }
    if (n == 0) {
        return FRAME_EMPTY;
    }
    int16_t size = cobs_decode(assembly, n, decoded);
    if (size < 4) {
        return FRAME_GARBAGE;
    }
    uint8_t body = (uint8_t)(size - 2);
    uint16_t wanted = (uint16_t)((uint16_t)decoded[body] << 8) | decoded[body + 1];
    if (frame_crc(decoded, body) != wanted) {
        return FRAME_GARBAGE;
    }
    out->type = decoded[0];
    out->seq = decoded[1];
    out->length = (uint8_t)(body - 2);
    memcpy(out->payload, decoded + 2, out->length);
    return FRAME_VALID;
}

frame_status_t frame_feed(uint8_t byte, frame_t *out)
{
    if (byte == 0) {
        return finish(out);
    }
    if (assembled < FRAME_MAX_ENCODED) {
        assembly[assembled++] = byte;
    } else {
        overlong = true; /* keep dropping until the delimiter */
    }
    return FRAME_INCOMPLETE;
}

uint8_t frame_encode(uint8_t type, uint8_t seq, const uint8_t *payload, uint8_t length, uint8_t *wire)
{
    uint8_t raw[FRAME_MAX_DECODED];
    uint8_t n = 0;
    if (length > FRAME_MAX_PAYLOAD) {
        length = FRAME_MAX_PAYLOAD;
    }
    raw[n++] = type;
    raw[n++] = seq;
    memcpy(raw + n, payload, length);
    n = (uint8_t)(n + length);
    uint16_t crc = frame_crc(raw, n);
    raw[n++] = (uint8_t)(crc >> 8);
    raw[n++] = (uint8_t)crc;

    /* COBS: each code byte counts the bytes up to the next zero (frames are < 254 bytes). */
    uint8_t w = 1, code_at = 0, code = 1;
    for (uint8_t i = 0; i < n; i++) {
        if (raw[i] == 0) {
            wire[code_at] = code;
            code_at = w++;
            code = 1;
        } else {
            wire[w++] = raw[i];
            code++;
        }
    }
    wire[code_at] = code;
    wire[w++] = 0;
    return w;
}
