/*
 * console_io: the guest's early console (CONSOLEIO_write), into a ring in
 * the page shared with the Launcher. The Host rings an ioeventfd doorbell,
 * which wakes the Launcher's console thread without stopping the vCPU; only
 * a full ring costs an exit.
 */
#include "../core/env.h"
#include "../core/host.h"

#define CONSOLE_CHUNK 256

/* The bytes go in first and the producer index after, once per piece
 * that fits: the console thread, draining at any moment, sees whole
 * writes, never half a line with the other ring's output in the middle. */
void console_put(const char *bytes, size_t len)
{
    struct perch_shared *sh = &perch_shared;

    while (len) {
        uint32_t prod = sh->console_prod;
        uint32_t used = prod - *(volatile uint32_t *)&sh->console_cons;
        uint32_t space = used <= PERCH_CONSOLE_RING_BYTES
                             ? PERCH_CONSOLE_RING_BYTES - used : 0;

        if (!space) {
            launcher_request(PERCH_REQ_CONSOLE_FLUSH, 0);
            continue;
        }
        for (; space && len; space--, len--, bytes++)
            sh->console_ring[prod++ % PERCH_CONSOLE_RING_BYTES] = *bytes;
        __atomic_store_n(&sh->console_prod, prod, __ATOMIC_RELEASE);
    }
    __atomic_thread_fence(__ATOMIC_RELEASE);
    env_ring_doorbell();
}

long do_console_io(uint64_t cmd, uint64_t len, uint64_t buf, uint64_t a4, uint64_t a5)
{
    char chunk[CONSOLE_CHUNK];

    (void)a4, (void)a5;
    if (cmd != CONSOLEIO_write)
        return -XEN_ENOSYS;
    while (len) {
        size_t n = len < sizeof(chunk) ? len : sizeof(chunk);

        if (copy_from_guest(chunk, buf, n))
            return -XEN_EFAULT;
        console_put(chunk, n);
        buf += n;
        len -= n;
    }
    return 0;
}
