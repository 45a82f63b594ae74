/*
 * perch_op: run one of perch's slow paths on purpose, so that a test guest
 * can count it and time it (guests/costs). Each call is exactly one ring-0
 * visit or one exit, and shows in --stats as such.
 */
#include "../core/env.h"
#include "../core/host.h"
#include "../core/stats.h"

static const uint64_t probe_gates[PERCH_PROBES] = {
    [PERCH_PROBE_IRETQ] = SW_GATE_PROBE_IRETQ,
    [PERCH_PROBE_SYSRETQ] = SW_GATE_PROBE_SYSRETQ,
    [PERCH_PROBE_SWAPGS] = SW_GATE_PROBE_SWAPGS,
    [PERCH_PROBE_CR3] = SW_GATE_PROBE_CR3,
    [PERCH_PROBE_IRETQ_END] = SW_GATE_PROBE_IRETQ_END,
};

long do_perch_op(uint64_t cmd, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    (void)a3, (void)a4, (void)a5;
    switch (cmd) {
    case PERCH_OP_switcher_probe:
        if (a2 >= PERCH_PROBES)
            return -XEN_EINVAL;
        count_visit_of(PERCH_VISIT_SERVICE_RESUME);
        env_switcher_probe(probe_gates[a2]);
        return 0;
    case PERCH_OP_switcher_roundtrip:
        count_visit_of(PERCH_VISIT_SERVICE_RESUME);
        env_switcher_roundtrip();
        return 0;
    case PERCH_OP_launcher_roundtrip:
        launcher_request(PERCH_REQ_PING, 0);
        return 0;
    default:
        return -XEN_ENOSYS;
    }
}
