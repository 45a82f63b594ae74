/*
 * From head.S to the guest: rt_start, and the command-line helper.
 */
#include "rt.h"

const struct start_info *rt_start_info;

void rt_start(const struct start_info *si) __attribute__((noreturn));

void rt_start(const struct start_info *si)
{
    rt_start_info = si;
    guest_main(si);
    xen_shutdown(SHUTDOWN_poweroff);
}

/* A private copy of cmd_line with every separator turned into a NUL, so the
 * values cmdline_get returns are NUL-terminated and stay valid. */
static char cmd_words[MAX_GUEST_CMDLINE + 1];
static size_t cmd_len;
static const struct start_info *cmd_of;

const char *cmdline_get(const struct start_info *si, const char *key)
{
    size_t klen = strlen(key);
    const char *found = NULL;

    if (si != cmd_of) {
        cmd_len = strnlen(si->cmd_line, MAX_GUEST_CMDLINE);
        memcpy(cmd_words, si->cmd_line, cmd_len);
        cmd_words[cmd_len] = '\0';
        for (size_t i = 0; i < cmd_len; i++)
            if (cmd_words[i] == ' ' || cmd_words[i] == '\t' ||
                cmd_words[i] == '\n')
                cmd_words[i] = '\0';
        cmd_of = si;
    }
    for (const char *w = cmd_words; w < cmd_words + cmd_len;
         w += strlen(w) + 1) {
        if (klen && !strncmp(w, key, klen) &&
            (w[klen] == '=' || w[klen] == '\0'))
            found = w[klen] == '=' ? w + klen + 1 : w + klen;
    }
    return found;
}

const struct rt_case *rt_case_chosen(const struct start_info *si, const char *key,
                                     const struct rt_case *cases, size_t n)
{
    const char *which = cmdline_get(si, key);

    if (!which) {
        test_fail(key, "no %s=NAME on the command line", key);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!strcmp(which, cases[i].name))
            return &cases[i];
    test_fail(key, "unknown %s=%s", key, which);
    return NULL;
}
