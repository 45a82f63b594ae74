/* The Host fuzz harnesses' booted machine on host_env's memory (see machine.h). */
#include "machine.h"

#include <setjmp.h>
#include <string.h>

#include "host_env.h"
#include "../../host/events/backend.h"
#include "../../host/cpu/emulate.h"
#include "../../host/events/evtchn.h"
#include "../../host/xen/grant_table.h"
#include "../../host/core/guest_mode.h"
#include "../../host/mm/mm.h"
#include "../../host/events/time.h"

/* Wake-ups a sleeping vCPU gets before it counts as hung. */
#define IDLE_MAX 64

static struct mm_frame_info frame_table[FUZZ_FRAMES];
static unsigned idles;

/*
 * The vCPU sleeps (SCHEDOP_block, SCHEDOP_poll): the console back end's
 * interrupt wakes it, as typed input would. A guest that sleeps on
 * through IDLE_MAX of them (all its ports masked) is stopped, as perch's
 * watchdog would stop it.
 */
void env_idle(void)
{
    if (++idles > IDLE_MAX && host_env_stop_jmp) {
        host_env_exit_kind = HOST_ENV_EXIT_STOP;
        longjmp(*host_env_stop_jmp, 1);
    }
    evtchn_raise(PERCH_CONSOLE_PORT);
}

bool fuzz_machine_boot(bool strict)
{
    host_env_reset(FUZZ_FRAMES);
    idles = 0;
    perch_shared.boot.guest_mfn_base = FUZZ_GUEST_BASE;
    perch_shared.boot.guest_nr_pages = FUZZ_FRAMES - FUZZ_GUEST_BASE;
    perch_shared.boot.kernel_slot_257 = 0x1000ull | PTE_P | PTE_RW;
    perch_shared.boot.kernel_slot_258 = 0x2000ull | PTE_P | PTE_RW;
    perch_shared.boot.user_slot_257 = 0x3000ull | PTE_P;
    host_env_map_range(FUZZ_BUF_VA, FUZZ_BUF_MFN, FUZZ_BUF_PAGES, HOST_ENV_RW);
    host_env_map_range(FUZZ_DATA_VA, FUZZ_DATA_MFN, FUZZ_DATA_PAGES, HOST_ENV_RW);

    guest_mode_start(perch_shared.boot.kernel_cr3, false);
    emulate_reset();
    evtchn_shared_info_mfn = FUZZ_SHARED_INFO;
    evtchn_init();
    memset(&perch_shared.lines, 0, sizeof(perch_shared.lines));
    backend_init(PERCH_CONSOLE_PORT, PERCH_XENSTORE_PORT);
    time_tsc_khz = 2000000;
    time_init();
    memset(frame_table, 0, sizeof(frame_table));
    mm_frames = frame_table;
    mm_strict = strict;
    mm_shared_info_mfn = FUZZ_SHARED_INFO;
    mm_m2p_maddr = FUZZ_M2P * 4096;
    return grant_table_boot(FUZZ_GRANT_MFN, FUZZ_GRANT_FRAMES) && mm_boot() == 0;
}

size_t fuzz_machine_fill(uint64_t mfn, const uint8_t *bytes, size_t n)
{
    size_t room = (FUZZ_FRAMES - mfn) * 4096;

    if (n > room)
        n = room;
    memcpy(host_env_frame(mfn), bytes, n);
    return n;
}
