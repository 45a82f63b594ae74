/*
 * usermode: a tiny guest kernel with a user mode. It builds a user address
 * space (its own L4, pinned and made the user base pointer), registers its
 * trap table, syscall callback and kernel stack, takes exceptions in kernel
 * mode, and then runs user programs (user.S) one after the other:
 *
 *   - system calls that return, with registers preserved, and a timed loop;
 *   - hostile programs that read or write guest-kernel, Host, Switcher, M2P
 *     and alias memory, execute privileged instructions, load ring-0
 *     segments, forge hypercalls: each must fault into this kernel (with
 *     the vector and error code checked) and never succeed.
 */
#include "rt.h"
#include "../../abi/layout.h"
#include "usermode.h"

const char guest_name[] = "usermode";

#define PTE_USER_RO             (PTE_P | PTE_US | PTE_A)
#define PTE_TABLE               (PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)

struct uframe {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t error, rip, cs, rflags, rsp, ss;
};


extern char _user_start[], _user_end[];
extern char trap_0[], trap_3[], trap_6[], trap_13[], trap_14[], syscall_entry[];
extern char user_echo[], user_syscall_loop[], user_forged_hypercall[];
extern char user_read_kernel[], user_write_kernel[], user_read_host[],
    user_read_alias[], user_read_m2p[], user_read_gdt[], user_read_ist_stack[],
    user_write_ist_stack[], user_exec_switcher[], user_cli[], user_hlt[],
    user_mov_cr3[], user_wrmsr[], user_out_port[], user_lgdt[],
    user_load_ring0_ds[], user_far_ret_ring0[], user_iret_to_ring0[],
    user_int3[], user_ud2[], user_jump_lstar_page[], user_read_lstar_page[],
    user_gs_base[];
_Noreturn void iret_to(struct iret_context *ctx);
_Noreturn void iret_with_frame(const struct uframe *f, struct iret_context *ctx);

static uint8_t user_tables[4][4096] __attribute__((aligned(4096)));
static uint8_t user_stack[4096] __attribute__((aligned(4096)));
static uint8_t kernel_stack[16384] __attribute__((aligned(16)));
static uint8_t shinfo_window[4096] __attribute__((aligned(4096)));
static struct iret_context next;   /* iret_to's stack: static, like a TSS */

/* What each program must end with: DONE(value), or a fault. */
#define ENDS_WITH_DONE (-1)
#define ANY_FAULT      (-2)   /* the CPU's choice of vector varies */
struct program {
    const char *name;
    const char *entry;
    int vector;            /* ENDS_WITH_DONE, ANY_FAULT or the vector */
    uint64_t value;        /* DONE value, or the error code */
    uint64_t rip;          /* where the fault is reported; 0: in user code */
};

static const struct program programs[] = {
    { "syscall_echo_preserves_registers", user_echo, ENDS_WITH_DONE, 42, 0 },
    { "forged_hypercall_is_a_syscall", user_forged_hypercall, ENDS_WITH_DONE, SYS_FORGED_SEEN, 0 },
    { "syscall_loop", user_syscall_loop, ENDS_WITH_DONE, 0, 0 },
    /* The one Host-region page a user view maps: int3s, nothing of the Host. */
    { "lstar_page_holds_only_int3", user_read_lstar_page, ENDS_WITH_DONE, 0xccccccccccccccccull, 0 },
    { "user_sees_its_gs_base", user_gs_base, ENDS_WITH_DONE, USER_GS_BASE, 0 },
    { "read_kernel_faults", user_read_kernel, 14, 4, 0 },
    { "write_kernel_faults", user_write_kernel, 14, 6, 0 },
    { "read_host_faults", user_read_host, 14, 4, 0 },
    { "read_alias_faults", user_read_alias, 14, 4, 0 },
    { "read_m2p_faults", user_read_m2p, 14, 4, 0 },
    { "read_gdt_faults", user_read_gdt, 14, 5, 0 },
    { "read_ist_stack_faults", user_read_ist_stack, 14, 5, 0 },
    { "write_ist_stack_faults", user_write_ist_stack, 14, 7, 0 },
    { "exec_switcher_faults", user_exec_switcher, 14, 0x15, SW_CODE_VA },
    { "cli_faults", user_cli, 13, 0, 0 },
    { "hlt_faults", user_hlt, 13, 0, 0 },
    { "mov_cr3_faults", user_mov_cr3, 13, 0, 0 },
    { "wrmsr_faults", user_wrmsr, 13, 0, 0 },
    { "out_faults", user_out_port, 13, 0, 0 },
    { "lgdt_faults", user_lgdt, 13, 0, 0 },
    { "load_ring0_ds_faults", user_load_ring0_ds, 13, SW_DS0_SEL, 0 },
    /* #GP(0xe008) on bare metal; PVM reports a user #PF: a fault either way. */
    { "far_ret_to_ring0_faults", user_far_ret_ring0, ANY_FAULT, 0, 0 },
    { "iret_to_ring0_faults", user_iret_to_ring0, 13, SW_CS0_SEL, 0 },
    { "int3_is_a_breakpoint", user_int3, 3, 0, 0 },
    { "jump_into_lstar_page_is_a_breakpoint", user_jump_lstar_page, 3, 0, HOST_IMAGE_VA + 1 },
    { "ud2_faults", user_ud2, 6, 0, 0 },
};
#define NR_PROGRAMS (sizeof(programs) / sizeof(programs[0]))

static const struct start_info *si;
static unsigned current;
static int kernel_trap_seen = -1;

static uint64_t mfn_of(const void *va)
{
    return ((const uint64_t *)si->mfn_list)[((uint64_t)va - RT_VIRT_BASE) >> 12];
}

static uint64_t user_va(const char *entry)
{
    return USER_CODE_VA + (uint64_t)(entry - _user_start);
}

static long mmuext(unsigned cmd, uint64_t arg1)
{
    struct mmuext_op op = { .cmd = cmd, .arg1 = arg1 };

    return hypercall4(HYPERVISOR_mmuext_op, (unsigned long)&op, 1, 0, DOMID_SELF);
}

static long remap(const void *va, uint64_t pte)
{
    return hypercall3(HYPERVISOR_update_va_mapping, (unsigned long)va, pte, UVMF_INVLPG);
}

static volatile struct vcpu_info *vcpu_info0(void)
{
    return &((volatile struct shared_info *)shinfo_window)->vcpu_info[0];
}

/* User code at USER_CODE_VA, the user stack below 6 MiB, nothing else. */
static bool build_user_space(void)
{
    uint64_t *l4 = (uint64_t *)user_tables[0], *l3 = (uint64_t *)user_tables[1];
    uint64_t *l2 = (uint64_t *)user_tables[2], *l1 = (uint64_t *)user_tables[3];
    uint64_t pages = (uint64_t)(_user_end - _user_start) / 4096;

    l4[0] = mfn_of(l3) << 12 | PTE_TABLE;
    l3[0] = mfn_of(l2) << 12 | PTE_TABLE;
    l2[(USER_CODE_VA >> 21) & 511] = mfn_of(l1) << 12 | PTE_TABLE;
    for (uint64_t i = 0; i < pages; i++)
        l1[((USER_CODE_VA >> 12) & 511) + i] = mfn_of(_user_start + i * 4096) << 12 | PTE_USER_RO;
    l1[(USER_STACK_VA >> 12) & 511] = mfn_of(user_stack) << 12 | PTE_TABLE | PTE_NX;
    /* Page tables are read-only to their owner before they are pinned. */
    for (int i = 0; i < 4; i++)
        if (remap(user_tables[i], mfn_of(user_tables[i]) << 12 | PTE_USER_RO))
            return false;
    return mmuext(MMUEXT_PIN_L4_TABLE, mfn_of(l4)) == 0 &&
           mmuext(MMUEXT_NEW_USER_BASEPTR, mfn_of(l4)) == 0;
}

static bool register_kernel(void)
{
    static const struct trap_info traps[] = {
        { .vector = 0, .flags = 0, .cs = FLAT_KERNEL_CS64, .address = (uint64_t)trap_0 },
        { .vector = 3, .flags = 3, .cs = FLAT_KERNEL_CS64, .address = (uint64_t)trap_3 },
        { .vector = 6, .flags = 0, .cs = FLAT_KERNEL_CS64, .address = (uint64_t)trap_6 },
        { .vector = 13, .flags = 0, .cs = FLAT_KERNEL_CS64, .address = (uint64_t)trap_13 },
        { .vector = 14, .flags = 0, .cs = FLAT_KERNEL_CS64, .address = (uint64_t)trap_14 },
        { .address = 0 },   /* the end */
    };

    return hypercall1(HYPERVISOR_set_trap_table, (unsigned long)traps) == 0 &&
           hypercall2(HYPERVISOR_stack_switch, FLAT_KERNEL_SS64,
                      (unsigned long)(kernel_stack + sizeof(kernel_stack))) == 0 &&
           hypercall3(HYPERVISOR_set_callbacks, 0, 0, (unsigned long)syscall_entry) == 0 &&
           hypercall2(HYPERVISOR_set_segment_base, 2 /* GS kernel */, KERNEL_GS_BASE) == 0 &&
           hypercall2(HYPERVISOR_set_segment_base, 1 /* GS user */, USER_GS_BASE) == 0;
}

static _Noreturn void enter_user(const char *entry)
{
    next = (struct iret_context){
        .rip = user_va(entry), .cs = FLAT_USER_CS64, .rflags = 0x202,
        .rsp = USER_STACK_VA + 4096, .ss = FLAT_USER_SS64,
    };
    iret_to(&next);
}

static _Noreturn void return_to_user(const struct uframe *f, uint64_t rax)
{
    next = (struct iret_context){
        .rax = rax, .r11 = f->r11, .rcx = f->rcx, .flags = VGCF_in_syscall,
        .rip = f->rip, .cs = f->cs, .rflags = f->rflags, .rsp = f->rsp, .ss = f->ss,
    };
    iret_with_frame(f, &next);
}

static _Noreturn void next_program(void)
{
    if (++current < NR_PROGRAMS)
        enter_user(programs[current].entry);
    printk("usermode: %u passed, %u failed\n", tests_passed, tests_failed);
    xen_shutdown(SHUTDOWN_poweroff);
}

static _Noreturn void program_done(uint64_t value)
{
    const struct program *p = &programs[current];

    if (p->entry == user_syscall_loop) {
        printk("usermode: user syscall round trip cycles %lu, %u calls\n",
               (unsigned long)value, USER_LOOPS);
        check(p->name, value > 0, "no time measured");
    } else if (p->vector != ENDS_WITH_DONE) {
        test_fail(p->name, "ran to the end (DONE %#lx) instead of faulting",
                  (unsigned long)value);
    } else {
        check_eq(p->name, (long)value, (long)p->value);
    }
    if (p->entry == user_gs_base) {
        uint64_t gs;

        __asm__ volatile("rdgsbase %0" : "=r"(gs));
        check_eq("kernel_gs_base_back_after_syscall", (long)gs, (long)KERNEL_GS_BASE);
    }
    next_program();
}

static _Noreturn void program_faulted(const struct uframe *f, unsigned vector)
{
    const struct program *p = &programs[current];
    bool rip_ok = p->rip ? f->rip == p->rip
                         : f->rip >= USER_CODE_VA &&
                           f->rip < USER_CODE_VA + (uint64_t)(_user_end - _user_start);

    if (p->vector == ENDS_WITH_DONE)
        test_fail(p->name, "faulted with vector %u at %#lx", vector, (unsigned long)f->rip);
    else if (p->vector == ANY_FAULT && (f->cs & 3) == 3)
        test_pass(p->name);
    else if ((int)vector != p->vector || f->error != p->value || !rip_ok ||
             (f->cs & 3) != 3)
        test_fail(p->name, "vector %u error %#lx rip %#lx cs %#lx, want vector %d "
                  "error %#lx from user code", vector, (unsigned long)f->error,
                  (unsigned long)f->rip, (unsigned long)f->cs, p->vector,
                  (unsigned long)p->value);
    else
        test_pass(p->name);
    next_program();
}

static _Noreturn void system_call(struct uframe *f)
{
    switch (f->rax) {
    case SYS_ECHO:
        return_to_user(f, f->rdi + 1);
    case SYS_DONE:
        program_done(f->rdi);
    default:
        return_to_user(f, SYS_FORGED_SEEN);
    }
}

/* A kernel-mode exception: record it and carry on after the instruction. */
static _Noreturn void kernel_trap(const struct uframe *f, unsigned vector)
{
    kernel_trap_seen = vector;
    next = (struct iret_context){
        .rax = f->rax, .r11 = f->r11, .rcx = f->rcx,
        .rip = f->rip + (vector == 6 ? 2 : 0),   /* int3 already points past */
        .cs = f->cs, .rflags = f->rflags, .rsp = f->rsp, .ss = f->ss,
    };
    iret_with_frame(f, &next);
}

_Noreturn void kernel_event(struct uframe *f, unsigned vector)
{
    if (vector == 256)
        system_call(f);
    if ((f->cs & 3) == 0)
        kernel_trap(f, vector);
    program_faulted(f, vector);
}

static void kernel_mode_traps(void)
{
    kernel_trap_seen = -1;
    __asm__ volatile("ud2" ::: "memory");
    check_eq("kernel_ud2_bounced", kernel_trap_seen, 6);
    kernel_trap_seen = -1;
    __asm__ volatile("int3" ::: "memory");
    check_eq("kernel_int3_bounced", kernel_trap_seen, 3);
}

void guest_main(const struct start_info *start)
{
    si = start;
    check("map_shared_info", remap(shinfo_window, si->shared_info | PTE_TABLE) == 0,
          "update_va_mapping of shared_info failed");
    if (!check("register_kernel", register_kernel(), "a registration hypercall failed"))
        return;
    kernel_mode_traps();
    if (!check("build_user_space", build_user_space(), "pin or base pointer refused"))
        return;
    (void)vcpu_info0;
    current = 0;
    enter_user(programs[0].entry);
}
