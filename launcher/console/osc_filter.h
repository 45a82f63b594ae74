/*
 * What a guest tells perch through its console: OSC sequences
 *
 *     ESC ] p e r c h - KIND ; PAYLOAD BEL      ("\033]perch-exit;7\007")
 *
 * which a terminal would swallow anyway. perch knows two kinds:
 *   - exit: PAYLOAD is N, one to three digits, 0-255: the status perch
 *     exits with when the guest then powers off (perch's /init writes it);
 *   - mark: PAYLOAD is NAME;begin or NAME;end, NAME 1 to OSC_MARK_NAME_MAX
 *     of [A-Za-z0-9_.-]: counter brackets that perchbench --marks writes
 *     around each benchmark (bench.h).
 *
 * The filter sees the output in whatever pieces the rings hand over, so a
 * sequence may be split anywhere: it holds back a possible beginning of one
 * until the bytes after it complete it (taken out and handed to its kind's
 * callback) or rule it out (the held bytes go out unchanged, in order).
 * Anything that is not exactly a known sequence with a payload its kind
 * accepts passes through byte for byte.
 */
#ifndef PERCH_OSC_FILTER_H
#define PERCH_OSC_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OSC_PREFIX       "\033]perch-"
#define OSC_PREFIX_LEN   (sizeof(OSC_PREFIX) - 1)
#define OSC_END          '\007'
#define OSC_KIND_MAX     8     /* the longest KIND name */
#define OSC_PAYLOAD_MAX  40    /* the longest payload any kind takes */
/* The most bytes a filter holds back: prefix, KIND, ';' and PAYLOAD. */
#define OSC_HELD_MAX     (OSC_PREFIX_LEN + OSC_KIND_MAX + 1 + OSC_PAYLOAD_MAX)

/* A complete sequence of one kind, its payload NUL-ended (printable ASCII
 * only). Returns true if the payload is well-formed: the sequence is taken
 * out; false: it passes through as it came. */
typedef bool osc_take_fn(void *arg, const char *payload);

struct osc_kind {
    const char *name;          /* KIND, at most OSC_KIND_MAX bytes */
    size_t payload_max;        /* at most OSC_PAYLOAD_MAX */
    osc_take_fn *take;
};

struct osc_filter {
    const struct osc_kind *kinds;
    size_t nkinds;
    void *arg;                 /* for the kinds' take() */
    const struct osc_kind *kind;   /* named by the held "KIND;"; NULL: not yet */
    uint8_t held[OSC_HELD_MAX];
    size_t nheld;
};

void osc_filter_init(struct osc_filter *f, const struct osc_kind *kinds,
                     size_t nkinds, void *arg);

/* Pass n bytes through the filter into out, which needs room for
 * n + OSC_HELD_MAX bytes. Returns the bytes put into out. */
size_t osc_filter_feed(struct osc_filter *f, const uint8_t *in, size_t n,
                       uint8_t *out);

/* The output ended: give back what is held (a beginning that never got
 * its end) into out (room for OSC_HELD_MAX). Returns its length. */
size_t osc_filter_flush(struct osc_filter *f, uint8_t *out);

/* ---- The payloads of perch's two kinds ---- */

#define OSC_EXIT_PAYLOAD_MAX 3
#define OSC_MARK_NAME_MAX    32
#define OSC_MARK_PAYLOAD_MAX (OSC_MARK_NAME_MAX + 6)   /* NAME;begin */

/* perch-exit's N (0-255), or -1 if the payload is not one. */
int osc_exit_status(const char *payload);

/* perch-mark's NAME (into name) and whether it is the end; false if the
 * payload is not NAME;begin or NAME;end. */
bool osc_mark(const char *payload, char name[OSC_MARK_NAME_MAX + 1],
              bool *end);

/* What the guest said through the two kinds, for every console that
 * listens (perch's, and QEMU's serial in perch bench): the filter's arg. */
struct osc_guest_said {
    int exit_status;           /* the last "perch-exit" N; -1: none */
    void (*on_mark)(void *arg, const char *name, bool end);   /* or NULL */
    void *mark_arg;
};

/* The exit and mark kinds, taking into a struct osc_guest_said. */
#define OSC_GUEST_KINDS 2
extern const struct osc_kind osc_guest_kinds[OSC_GUEST_KINDS];

#endif
