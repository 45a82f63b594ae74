/* libFuzzer harness of event_channel_op (host/events/evtchn.c): operations, their structs, shared_info, and the back-end lines the Launcher's interrupt connects and raises (host/events/backend.c). */
#include "fuzz.h"
#include "machine.h"
#include "host_env.h"

#include "../../host/events/backend.h"
#include "../../host/events/evtchn.h"

/* Command 0x7f is no hypercall: the Launcher's interrupt, with the lines
 * words (connect, raised, one line's port) from the argument bytes, as a
 * guest that scribbles on them or a Launcher asking for any port would. */
#define BACKEND_INTERRUPT 0x7f

static void backend_interrupt_from(struct fuzz_in *args)
{
    unsigned line = (unsigned)fuzz_uint(args, 1) % PERCH_LINES;

    perch_shared.lines.connect = fuzz_uint(args, 2);
    perch_shared.lines.raised = fuzz_uint(args, 2);
    perch_shared.lines.port[line] = (uint32_t)fuzz_uint(args, 2);
    backend_interrupt();
}

#define MAX_OPS   8
#define ARG_BYTES 24      /* the largest evtchn_* argument struct, and more */
#define OP_BYTES  (3 + ARG_BYTES)   /* command, where its struct is, the struct */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    unsigned head = (unsigned)fuzz_uint(&in, 1);
    unsigned ops = 1 + head % MAX_OPS;
    struct fuzz_in args;
    const uint8_t *p;
    size_t n;
    long rc;

    if (!fuzz_machine_boot(false))
        abort();
    /* The operations first; the rest is shared_info, where the guest
     * writes its masks and pending bits itself. */
    args.p = fuzz_bytes(&in, ops * OP_BYTES, &args.n);
    p = fuzz_bytes(&in, 4096, &n);
    fuzz_machine_fill(FUZZ_SHARED_INFO, p, n);
    for (unsigned i = 0; i < ops; i++) {
        unsigned cmd = (unsigned)fuzz_uint(&args, 1);
        uint64_t arg = FUZZ_BUF_VA + fuzz_uint(&args, 2) % (FUZZ_BUF_PAGES * 4096);
        uint8_t *slot = (uint8_t *)host_env_frame(FUZZ_BUF_MFN) +
                        (arg - FUZZ_BUF_VA);
        size_t room = FUZZ_BUF_PAGES * 4096 - (arg - FUZZ_BUF_VA);

        if ((cmd & 0x7f) == BACKEND_INTERRUPT) {
            backend_interrupt_from(&args);
            continue;
        }
        p = fuzz_bytes(&args, ARG_BYTES, &n);
        memcpy(slot, p, n < room ? n : room);
        /* Bit 7: the old hypercall, whose struct starts with the command. */
        if (cmd & 0x80 ? !FUZZ_HYPERCALL(do_event_channel_op_compat(arg, 0, 0, 0, 0), rc)
                       : !FUZZ_HYPERCALL(do_event_channel_op(cmd & 0x7f, arg, 0, 0, 0), rc))
            break;
    }
    return 0;
}
