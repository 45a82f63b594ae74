/* The xenbus half of a split device (xenbus.h). */
#include "xenbus.h"

#include "../../abi/xen/io/xenbus.h"
#include "events.h"
#include "gnttab.h"
#include "rt.h"
#include "xs.h"

bool rt_xenbus_init(const struct start_info *si)
{
    return rt_events_init(si) && check("xs_init", rt_xs_init(si), "no store page or port") &&
           rt_gnttab_init(1);
}

static uint64_t parse_u64(const char *s, bool *ok)
{
    uint64_t v = 0;

    *ok = *s != 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            *ok = false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    return v;
}

uint64_t rt_xenbus_read_u64(const char *dir, const char *key, uint64_t dflt)
{
    char path[160], value[32];
    bool ok;
    uint64_t v;

    fmt_snprintf(path, sizeof(path), "%s/%s", dir, key);
    const char *err = rt_xs_read(path, value, sizeof(value));

    if (err) {
        printk("%s: read %s: %s\n", guest_name, path, err);
        return dflt;
    }
    v = parse_u64(value, &ok);
    return ok ? v : dflt;
}

const char *rt_xenbus_printf(const char *dir, const char *key, const char *fmt, ...)
{
    char path[160], value[64];
    va_list ap;

    va_start(ap, fmt);
    fmt_vsnprintf(value, sizeof(value), fmt, ap);
    va_end(ap);
    fmt_snprintf(path, sizeof(path), "%s/%s", dir, key);
    return rt_xs_write(path, value);
}

int rt_xenbus_state(const char *dir)
{
    return (int)rt_xenbus_read_u64(dir, "state", 0);
}

int rt_xenbus_wait_state(const char *dir, int want_a, int want_b, uint64_t ms)
{
    uint64_t deadline = rt_now_ns() + ms * RT_NS_PER_MS;
    int s;

    for (;;) {
        s = rt_xenbus_state(dir);
        if (s == want_a || s == want_b || rt_now_ns() > deadline)
            return s;
        rt_xs_wait_event(100);
    }
}

int rt_xenbus_frontend_start(const char *be, uint32_t *port)
{
    int s = rt_xenbus_wait_state(be, XenbusStateInitWait, XenbusStateInitWait, 5000);

    if (s != XenbusStateInitWait) {
        test_fail("backend_initwait", "back end state %d, want 2", s);
        return s;
    }
    if (!*port && rt_evtchn_alloc_unbound(0, port)) {
        test_fail("alloc_unbound", "EVTCHNOP_alloc_unbound(self, 0) failed");
        return -1;
    }
    rt_evtchn_unmask(*port);
    return s;
}
