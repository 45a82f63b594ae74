/*
 * hcpage: a guest that calls its hypervisor as Linux did before 6.1.121,
 * through the hypercall page its HYPERCALL_PAGE note names: a hypercall is
 * a `call` to slot nr, the iret a jump to slot 23 with the flags word
 * pushed (page.S). Whether the slots hold the Launcher's `syscall` stubs
 * (--trap-hypercalls, --gdb) or the Host's jumps (the default), each
 * answer must be the one the `syscall` road gives, and rcx and r11 must
 * come back as they went, as Xen's stubs keep them.
 */
#include "rt.h"
#include "notes.h"

const char guest_name[] = "hcpage";

extern uint8_t hypercall_page[];
extern char ud_trap[];
extern uint64_t ud_count;

U64_NOTE(note_hypercall_page, XEN_ELFNOTE_HYPERCALL_PAGE, (uint64_t)(uintptr_t)hypercall_page);

#define RCX_MARK 0x1111222233334444ul
#define R11_MARK 0x5555666677778888ul

struct page_answer {
    long ret;
    unsigned long rcx, r11;   /* as they came back */
};

static struct page_answer page_call(unsigned nr, unsigned long a1, unsigned long a2,
                                    unsigned long a3)
{
    register unsigned long rcx __asm__("rcx") = RCX_MARK;
    register unsigned long r11 __asm__("r11") = R11_MARK;
    const uint8_t *slot = hypercall_page + nr * XEN_HYPERCALL_SLOT_SIZE;
    long ret;

    __asm__ volatile("call *%[slot]"
                     : "=a"(ret), "+D"(a1), "+S"(a2), "+d"(a3), "+r"(rcx), "+r"(r11)
                     : [slot] "r"(slot)
                     : "r8", "r9", "r10", "memory", "cc");
    return (struct page_answer){ ret, rcx, r11 };
}

/* Hypercall nr through the page answers as through `syscall`, registers
 * kept. */
static void check_same(const char *name, unsigned nr, unsigned long a1, unsigned long a2,
                       unsigned long a3)
{
    struct page_answer p = page_call(nr, a1, a2, a3);
    long want = hypercall3(nr, a1, a2, a3);

    check(name, p.ret == want && p.rcx == RCX_MARK && p.r11 == R11_MARK,
          "through the page %ld (rcx %#lx, r11 %#lx), by syscall %ld", p.ret, p.rcx, p.r11,
          want);
}

static void check_hypercalls(void)
{
    static const char hello[] = "hcpage: a line through the hypercall page\n";
    unsigned wrong = 0;

    check_same("xen_version", HYPERVISOR_xen_version, XENVER_version, 0, 0);
    check_same("unknown_hypercall", 60, 0, 0, 0);
    check_same("sched_yield", HYPERVISOR_sched_op, SCHEDOP_yield, 0, 0);
    check("console_write",
          page_call(HYPERVISOR_console_io, CONSOLEIO_write, sizeof(hello) - 1,
                    (unsigned long)hello).ret == 0,
          "console_io write through the page failed");
    for (unsigned i = 0; i < 1000; i++)
        wrong += page_call(HYPERVISOR_xen_version, XENVER_version, 0, 0).ret !=
                 hypercall1(HYPERVISOR_xen_version, XENVER_version);
    check("a_thousand_calls", !wrong, "%u of 1000 answers differed", wrong);
}

/* A ud2 with rcx and r11 marked; what they held after it came back. The
 * marks are set by the asm itself: a call in between would clobber them. */
static struct page_answer ud2_with_marks(void)
{
    unsigned long rcx, r11;

    __asm__ volatile("mov %[rcx_mark], %%rcx; mov %[r11_mark], %%r11; ud2; "
                     "mov %%rcx, %[rcx]; mov %%r11, %[r11]"
                     : [rcx] "=r"(rcx), [r11] "=r"(r11)
                     : [rcx_mark] "i"(RCX_MARK), [r11_mark] "i"(R11_MARK)
                     : "rcx", "r11", "memory");
    return (struct page_answer){ 0, rcx, r11 };
}

/* A #UD returns through the page's iret slot to the instruction after
 * the ud2, rcx and r11 as they were. */
static void check_iret(void)
{
    static const struct trap_info traps[] = {
        { .vector = 6, .flags = 0, .cs = FLAT_KERNEL_CS64, .address = (uint64_t)ud_trap },
        { .address = 0 },   /* the end */
    };
    unsigned kept = 0;

    check("set_trap_table", hypercall1(HYPERVISOR_set_trap_table, (unsigned long)traps) == 0,
          "set_trap_table refused");
    for (unsigned i = 0; i < 100; i++) {
        struct page_answer a = ud2_with_marks();

        kept += a.rcx == RCX_MARK && a.r11 == R11_MARK;
    }
    check("iret_through_the_page", ud_count == 100 && kept == 100,
          "%lu of 100 returns, rcx and r11 kept in %u", (unsigned long)ud_count, kept);
}

void guest_main(const struct start_info *si)
{
    (void)si;
    check_hypercalls();
    check_iret();
    printk("hcpage: %u passed, %u failed\n", tests_passed, tests_failed);
}
