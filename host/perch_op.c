/*
 * perch_op: run one of perch's slow paths on purpose, so that a test guest
 * can count it and time it (guests/costs). Each call is exactly one ring-0
 * visit or one exit, and shows in --stats as such.
 */
#include "env.h"
#include "host.h"

long do_perch_op(uint64_t cmd, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    (void)a2, (void)a3, (void)a4, (void)a5;
    switch (cmd) {
    case PERCH_OP_switcher_roundtrip:
        perch_shared.stats.visits[PERCH_VISIT_SERVICE_RESUME]++;
        env_switcher_roundtrip();
        return 0;
    case PERCH_OP_launcher_roundtrip:
        launcher_request(PERCH_REQ_PING, 0);
        return 0;
    default:
        return -XEN_ENOSYS;
    }
}
