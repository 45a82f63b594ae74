/* Back-end lines, the Launcher's side. See lines.h. */
#include "lines.h"

void lines_raise(struct perch_shared *sh, struct kvm_vm *vm, unsigned line)
{
    __atomic_fetch_or(&sh->lines.raised, 1ull << line, __ATOMIC_SEQ_CST);
    kvm_signal_msi(vm, 0, PERCH_BACKEND_VECTOR);
}

uint64_t lines_take_notified(struct perch_shared *sh)
{
    return __atomic_exchange_n(&sh->lines.notified, 0, __ATOMIC_SEQ_CST);
}

/* The answer is cleared first, so a stale one cannot pass for it. */
void lines_connect(struct perch_shared *sh, struct kvm_vm *vm, unsigned line,
                   uint32_t port)
{
    __atomic_store_n(&sh->lines.connected[line], 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&sh->lines.port[line], port, __ATOMIC_SEQ_CST);
    __atomic_fetch_or(&sh->lines.connect, 1ull << line, __ATOMIC_SEQ_CST);
    kvm_signal_msi(vm, 0, PERCH_BACKEND_VECTOR);
}

bool lines_connected(const struct perch_shared *sh, unsigned line, uint32_t port)
{
    return port && __atomic_load_n(&sh->lines.connected[line], __ATOMIC_SEQ_CST) == port;
}
