/*
 * traps: takes one exception, chosen by the command line (trap=NAME), to
 * show that the vector goes through the Switcher into the Host with the
 * CPU's frame intact. Until the guest can register a trap table, the Host
 * stops the guest and names the vector, rip and error code; it first prints
 * where the faulting instruction is, which tests/guests/traps.sh compares
 * with perch's message.
 */
#include "rt.h"

const char guest_name[] = "traps";

/* Each one: a global label at the faulting instruction. */
#define FAULT_AT(label, insn) \
    __asm__ volatile(".global " #label "\n" #label ": " insn ::: "memory")

extern char fault_ud[], fault_bp[], fault_gp[], fault_pf[], fault_de[];

static void report(const char *name, const void *rip)
{
    printk("traps: taking %s at rip %lx\n", name, (unsigned long)rip);
}

void guest_main(const struct start_info *si)
{
    const char *which = cmdline_get(si, "trap");

    if (!which) {
        test_fail("trap", "no trap=NAME on the command line");
        return;
    }
    if (!strcmp(which, "ud")) {
        report("#UD", fault_ud);
        FAULT_AT(fault_ud, "ud2");
    } else if (!strcmp(which, "bp")) {
        report("#BP", fault_bp);
        FAULT_AT(fault_bp, "int3");
    } else if (!strcmp(which, "gp")) {
        report("#GP", fault_gp);
        FAULT_AT(fault_gp, "cli");          /* privileged at CPL3 */
    } else if (!strcmp(which, "pf")) {
        report("#PF", fault_pf);
        FAULT_AT(fault_pf, "movq (0x10), %%rax");   /* page 0 is unmapped */
    } else if (!strcmp(which, "de")) {
        report("#DE", fault_de);
        FAULT_AT(fault_de, "xor %%ecx, %%ecx; div %%ecx");
    }
    test_fail("trap", "%s: the guest went on after its exception", which);
}
