/* Hex digits, as the formats perch reads write them (System.map, gdb's
 * packets, xenstore's MAC addresses): header-only, for the Launcher and
 * the freestanding test guests alike. */
#ifndef PERCH_HEX_H
#define PERCH_HEX_H

/* The value of one hex digit, either case; -1 for any other byte. */
static inline int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif
