/* The Ctrl-A keys a terminal user has for perch itself. */
#include "keys.h"

const char keys_help[] =
    "perch: Ctrl-A x        quit (stops the guest)\n"
    "perch: Ctrl-A Ctrl-A   send Ctrl-A to the guest\n"
    "perch: Ctrl-A h        this help\n";

/* The key after a Ctrl-A: a command, or (Ctrl-A) one byte for the guest. */
static unsigned command(uint8_t c, uint8_t *out, size_t *len)
{
    switch (c) {
    case KEYS_ESCAPE:
        out[(*len)++] = c;
        return KEYS_NONE;
    case 'x':
        return KEYS_QUIT;
    case 'h':
    case '?':
        return KEYS_HELP;
    default:
        return KEYS_NONE;
    }
}

size_t keys_filter(struct keys *k, const uint8_t *in, size_t n, uint8_t *out,
                   unsigned *commands)
{
    size_t len = 0;

    *commands = KEYS_NONE;
    for (size_t i = 0; i < n && !(*commands & KEYS_QUIT); i++) {
        if (k->escaped) {
            k->escaped = false;
            *commands |= command(in[i], out, &len);
        } else if (in[i] == KEYS_ESCAPE) {
            k->escaped = true;
        } else {
            out[len++] = in[i];
        }
    }
    return len;
}
