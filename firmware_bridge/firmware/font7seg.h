/*
 * Seven-segment forms of printable ASCII (0x20..0x7E) in MAX7219 no-decode bit order:
 * bit 7 DP, 6 A, 5 B, 4 C, 3 D, 2 E, 1 F, 0 G.  Shared by the firmware and the simavr harness
 * (which turns recorded segments back into characters), so both read one table.
 * It is the font of firmware_bridge/display.py (the emulator's), so both show the same: a letter
 * with one form is shown so in either case, a character without a form is blank, and '.' is no
 * character but lights the previous digit's point.
 */
#ifndef FONT7SEG_H
#define FONT7SEG_H

#include <stdint.h>

#ifndef FONT7SEG_STORAGE
#define FONT7SEG_STORAGE
#endif

#define FONT7SEG_FIRST 0x20
#define FONT7SEG_LAST 0x7E
#define SEG_DP 0x80

static const uint8_t font7seg[FONT7SEG_LAST - FONT7SEG_FIRST + 1] FONT7SEG_STORAGE = {
    /* ' '  !     "     #     $     %     &     '  */
    0x00, 0x00, 0x22, 0x00, 0x00, 0x00, 0x00, 0x02,
    /* (    )     *     +     ,     -     .     /  */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
    /* 0    1     2     3     4     5     6     7  */
    0x7E, 0x30, 0x6D, 0x79, 0x33, 0x5B, 0x5F, 0x70,
    /* 8    9     :     ;     <     =     >     ?  */
    0x7F, 0x7B, 0x00, 0x00, 0x00, 0x09, 0x00, 0x65,
    /* @    A     B     C     D     E     F     G  */
    0x00, 0x77, 0x1F, 0x4E, 0x3D, 0x4F, 0x47, 0x5E,
    /* H    I     J     K     L     M     N     O  */
    0x37, 0x06, 0x3C, 0x00, 0x0E, 0x00, 0x15, 0x7E,
    /* P    Q     R     S     T     U     V     W  */
    0x67, 0x73, 0x05, 0x5B, 0x0F, 0x3E, 0x00, 0x00,
    /* X    Y     Z     [     \     ]     ^     _  */
    0x00, 0x3B, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08,
    /* `    a     b     c     d     e     f     g  */
    0x00, 0x77, 0x1F, 0x0D, 0x3D, 0x4F, 0x47, 0x5E,
    /* h    i     j     k     l     m     n     o  */
    0x17, 0x10, 0x3C, 0x00, 0x0E, 0x00, 0x15, 0x1D,
    /* p    q     r     s     t     u     v     w  */
    0x67, 0x73, 0x05, 0x5B, 0x0F, 0x1C, 0x00, 0x00,
    /* x    y     z     {     |     }     ~        */
    0x00, 0x3B, 0x00, 0x00, 0x00, 0x00, 0x00,
};

#endif
