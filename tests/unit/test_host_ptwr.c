/*
 * Unit tests of the writable-page-table assist (host/mm/ptwr.c): a guest-kernel
 * store to a read-only L1 table, decoded from the instruction bytes at rip
 * (placed in guest memory here), checked like an mmu_update entry and done
 * through the alias, with the registers and flags the instruction defines.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../host/mm/mm.h"

#define FRAMES     512
#define GUEST_BASE 64
#define PRIVATE    10
#define CODE_MFN   100              /* two pages of instructions */
#define PT_MFN     120              /* the L1 table the guest stores into */
#define DATA_MFN   130
#define CODE_VA    0xffffffff81000000ull
#define PT_VA      0xffffffff81200000ull
#define SLOT       3
#define FAULT      (PT_VA + SLOT * 8)    /* where the store faults */
#define OLD        ((DATA_MFN << 12) | PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)
#define NEW        (((DATA_MFN + 1ull) << 12) | PTE_P | PTE_RW)
#define PF_W       7                 /* present, write, user (CPL3) */
#define FL_CF      0x001ull
#define FL_PF      0x004ull
#define FL_AF      0x010ull
#define FL_ZF      0x040ull
#define FL_SF      0x080ull
#define FL_OF      0x800ull

static struct mm_frame_info frame_table[FRAMES];
static struct cpu_regs regs;

static uint64_t *pte(void)
{
    return (uint64_t *)host_env_frame(PT_MFN) + SLOT;
}

/* PT_MFN is a pinned L1, mapped read-only at PT_VA; its entry SLOT maps
 * DATA_MFN; two pages of code at CODE_VA. */
static long setup(bool strict)
{
    long rc;

    host_env_reset(FRAMES);
    perch_shared.boot.guest_mfn_base = GUEST_BASE;
    perch_shared.boot.guest_nr_pages = FRAMES - GUEST_BASE;
    memset(frame_table, 0, sizeof(frame_table));
    mm_frames = frame_table;
    mm_strict = strict;
    mm_shared_info_mfn = INVALID_MFN;
    vm_assist_enabled = 1ull << VMASST_TYPE_writable_pagetables;
    host_env_map_range(CODE_VA, CODE_MFN, 2, HOST_ENV_RO);
    host_env_map(PT_VA, PT_MFN, HOST_ENV_RO);
    *pte() = OLD;
    rc = mm_boot();
    if (!rc)
        rc = mm_pin(PT_MFN, MM_L1);
    memset(&regs, 0, sizeof(regs));
    regs.rflags = 0x202;
    return rc;
}

/* Emulate the store `code` makes from CODE_VA + offset, faulting at fault. */
static int run_at(uint64_t offset, const uint8_t *code, size_t len, uint64_t fault,
                  uint64_t error_code)
{
    memcpy((uint8_t *)host_env_frame(CODE_MFN) + offset, code, len);
    regs.rip = CODE_VA + offset;
    return ptwr_emulate(&regs, fault, error_code);
}

#define RUN_CODE(fault, ...)                                                 \
    __extension__({                                                          \
        static const uint8_t code_[] = { __VA_ARGS__ };                      \
        run_at(0, code_, sizeof(code_), (fault), PF_W);                      \
    })

/* Nothing happened: a refusal leaves memory and registers alone. */
static bool untouched(const struct cpu_regs *before)
{
    return *pte() == OLD && !memcmp(&regs, before, sizeof(regs)) &&
           perch_shared.stats.ptwr_emulations == 0;
}

/* ---- The forms ------------------------------------------------------------------ */

static void mov_register(void)
{
    CHECK(setup(false) == 0);
    regs.rdi = FAULT;
    regs.rax = NEW;
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x07) == 0);       /* mov %rax,(%rdi) */
    CHECK(*pte() == (NEW | PTE_US));
    CHECK(regs.rip == CODE_VA + 3 && regs.rflags == 0x202 && regs.rax == NEW);
    CHECK(perch_shared.stats.ptwr_emulations == 1);
}

/* Every register as the source, through REX.R. */
static void mov_every_register(void)
{
    uint64_t *r[16] = { &regs.rax, &regs.rcx, &regs.rdx, &regs.rbx, &regs.rsp,
                        &regs.rbp, &regs.rsi, &regs.rdi, &regs.r8, &regs.r9,
                        &regs.r10, &regs.r11, &regs.r12, &regs.r13, &regs.r14,
                        &regs.r15 };

    CHECK(setup(false) == 0);
    for (unsigned n = 0; n < 16; n++) {
        uint8_t code[3] = { (uint8_t)(0x48 | (n >= 8 ? 4 : 0)), 0x89,
                            (uint8_t)(((n & 7) << 3) | 3) };  /* mov %rN,(%rbx) */
        uint64_t val = ((DATA_MFN + 1ull + n) << 12) | PTE_P;

        if (n == 3)
            continue;                     /* rbx holds the address */
        regs.rbx = FAULT;
        *r[n] = val;
        CHECK(run_at(0, code, sizeof(code), FAULT, PF_W) == 0);
        CHECK(*pte() == (val | PTE_US));
    }
}

static void mov_extended_base_and_displacement(void)
{
    CHECK(setup(false) == 0);
    regs.rbx = FAULT - 8;
    regs.r8 = NEW;
    CHECK(RUN_CODE(FAULT, 0x4c, 0x89, 0x43, 0x08) == 0);   /* mov %r8,8(%rbx) */
    CHECK(*pte() == (NEW | PTE_US) && regs.rip == CODE_VA + 4);
    regs.r12 = FAULT;
    regs.rax = 0;
    CHECK(RUN_CODE(FAULT, 0x49, 0x89, 0x04, 0x24) == 0);   /* mov %rax,(%r12) */
    CHECK(*pte() == 0);
    regs.r13 = FAULT - 0x1000;
    regs.rdx = OLD;
    /* mov %rdx,0x1000(%r13): mod 10, base r13 */
    CHECK(RUN_CODE(FAULT, 0x49, 0x89, 0x95, 0x00, 0x10, 0x00, 0x00) == 0);
    CHECK(*pte() == OLD && regs.rip == CODE_VA + 7);
}

static void mov_sib_index_rip_and_absolute(void)
{
    uint64_t rel = FAULT - (CODE_VA + 7);
    uint32_t abs = (uint32_t)FAULT;

    CHECK(setup(false) == 0);
    regs.rsi = PT_VA;
    regs.rcx = SLOT;
    regs.rax = NEW;
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x04, 0xce) == 0);   /* mov %rax,(%rsi,%rcx,8) */
    CHECK(*pte() == (NEW | PTE_US));
    regs.r9 = SLOT * 4;
    regs.rax = 0;
    CHECK(RUN_CODE(FAULT, 0x4a, 0x89, 0x04, 0x4e) == 0);   /* mov %rax,(%rsi,%r9,2) */
    CHECK(*pte() == 0);
    {
        uint8_t code[7] = { 0x48, 0x89, 0x05, (uint8_t)rel, (uint8_t)(rel >> 8),
                            (uint8_t)(rel >> 16), (uint8_t)(rel >> 24) };

        regs.rax = NEW;                                      /* mov %rax,rel(%rip) */
        CHECK(run_at(0, code, sizeof(code), FAULT, PF_W) == 0);
        CHECK(*pte() == (NEW | PTE_US) && regs.rip == CODE_VA + 7);
    }
    {
        uint8_t code[8] = { 0x48, 0x89, 0x04, 0x25, (uint8_t)abs, (uint8_t)(abs >> 8),
                            (uint8_t)(abs >> 16), (uint8_t)(abs >> 24) };

        regs.rax = 0;                                        /* mov %rax,abs32 */
        CHECK(run_at(0, code, sizeof(code), FAULT, PF_W) == 0);
        CHECK(*pte() == 0 && regs.rip == CODE_VA + 8);
    }
}

static void mov_immediate(void)
{
    CHECK(setup(false) == 0);
    regs.rdi = FAULT;
    CHECK(RUN_CODE(FAULT, 0x48, 0xc7, 0x07, 0x00, 0x00, 0x00, 0x00) == 0);  /* movq $0,(%rdi) */
    CHECK(*pte() == 0 && regs.rip == CODE_VA + 7);
}

static void xchg_returns_the_old_value(void)
{
    CHECK(setup(false) == 0);
    regs.rdi = FAULT;
    regs.rax = 0;
    CHECK(RUN_CODE(FAULT, 0x48, 0x87, 0x07) == 0);        /* xchg %rax,(%rdi) */
    CHECK(*pte() == 0 && regs.rax == OLD && regs.rip == CODE_VA + 3);
    regs.r9 = NEW;
    CHECK(RUN_CODE(FAULT, 0xf0, 0x4c, 0x87, 0x0f) == 0);  /* lock xchg %r9,(%rdi) */
    CHECK(*pte() == (NEW | PTE_US) && regs.r9 == 0 && regs.rip == CODE_VA + 4);
    CHECK(regs.rflags == 0x202);
}

static void cmpxchg_success(void)
{
    CHECK(setup(false) == 0);
    regs.rdi = FAULT;
    regs.rax = OLD;
    regs.rdx = NEW;
    regs.rflags = 0x202 | FL_CF;
    CHECK(RUN_CODE(FAULT, 0xf0, 0x48, 0x0f, 0xb1, 0x17) == 0);  /* lock cmpxchg %rdx,(%rdi) */
    CHECK(*pte() == (NEW | PTE_US));
    CHECK(regs.rax == OLD && regs.rip == CODE_VA + 5);
    CHECK(regs.rflags == (0x202 | FL_ZF | FL_PF));
}

static void cmpxchg_failure(void)
{
    CHECK(setup(false) == 0);
    regs.rdi = FAULT;
    regs.rax = OLD - 1;
    regs.rdx = NEW;
    CHECK(RUN_CODE(FAULT, 0xf0, 0x48, 0x0f, 0xb1, 0x17) == 0);
    CHECK(*pte() == OLD);
    CHECK(regs.rax == OLD && regs.rip == CODE_VA + 5);
    /* rax - old = -1, borrowing from bit 4: CF, SF, PF, AF set; ZF clear. */
    CHECK(regs.rflags == (0x202 | FL_CF | FL_SF | FL_PF | FL_AF));
    CHECK(perch_shared.stats.ptwr_emulations == 1);
}

static void btr_immediate(void)
{
    CHECK(setup(false) == 0);
    regs.rdi = FAULT;
    CHECK(RUN_CODE(FAULT, 0xf0, 0x48, 0x0f, 0xba, 0x37, 0x05) == 0);  /* lock btrq $5,(%rdi) */
    CHECK(*pte() == (OLD & ~PTE_A) && (regs.rflags & FL_CF));
    CHECK(regs.rip == CODE_VA + 6);
    CHECK(RUN_CODE(FAULT, 0xf0, 0x48, 0x0f, 0xba, 0x37, 0x05) == 0);
    CHECK(*pte() == (OLD & ~PTE_A) && !(regs.rflags & FL_CF));
    /* An immediate bit number wraps within the qword: 65 is bit 1. */
    CHECK(RUN_CODE(FAULT, 0xf0, 0x48, 0x0f, 0xba, 0x37, 0x41) == 0);
    CHECK(*pte() == (OLD & ~(PTE_A | PTE_RW)) && (regs.rflags & FL_CF));
}

static void btr_register(void)
{
    CHECK(setup(false) == 0);
    regs.rdi = FAULT;
    regs.rax = 1;
    CHECK(RUN_CODE(FAULT, 0xf0, 0x48, 0x0f, 0xb3, 0x07) == 0);  /* lock btr %rax,(%rdi) */
    CHECK(*pte() == (OLD & ~PTE_RW) && (regs.rflags & FL_CF) && regs.rip == CODE_VA + 5);
    /* A register bit offset reaches other qwords, both ways. */
    regs.rdi = FAULT - 8;
    regs.rax = 64 + 6;
    CHECK(RUN_CODE(FAULT, 0xf0, 0x48, 0x0f, 0xb3, 0x07) == 0);
    CHECK(*pte() == (OLD & ~(PTE_RW | PTE_D)));
    regs.rdi = FAULT + 16;
    regs.rax = (uint64_t)-128 + 5;
    CHECK(RUN_CODE(FAULT, 0xf0, 0x48, 0x0f, 0xb3, 0x07) == 0);
    CHECK(*pte() == (OLD & ~(PTE_RW | PTE_D | PTE_A)) && (regs.rflags & FL_CF));
}

static void bts(void)
{
    CHECK(setup(false) == 0);
    regs.rdi = FAULT;
    CHECK(RUN_CODE(FAULT, 0xf0, 0x48, 0x0f, 0xba, 0x2f, 0x3f) == 0);  /* lock btsq $63,(%rdi) */
    CHECK(*pte() == (OLD | PTE_NX) && !(regs.rflags & FL_CF));
    regs.rcx = 63;
    CHECK(RUN_CODE(FAULT, 0xf0, 0x48, 0x0f, 0xab, 0x0f) == 0);        /* lock bts %rcx,(%rdi) */
    CHECK(*pte() == (OLD | PTE_NX) && (regs.rflags & FL_CF));
}

static void and_byte(void)
{
    CHECK(setup(false) == 0);
    regs.rdi = FAULT;
    regs.rflags = 0x202 | FL_CF | FL_OF | FL_ZF;
    CHECK(RUN_CODE(FAULT, 0xf0, 0x80, 0x27, 0xfd) == 0);    /* lock andb $0xfd,(%rdi) */
    CHECK(*pte() == (OLD & ~PTE_RW) && regs.rip == CODE_VA + 4);
    /* 0x67 & 0xfd = 0x65: four bits set, even parity; CF, OF, ZF clear. */
    CHECK(regs.rflags == (0x202 | FL_PF));
}

/* A uniprocessor Linux's ptep_set_wrprotect: its lock patched into ds, the
 * table pointer in r15 (copy_page_range at fork). */
static void and_byte_ds_prefix_r15(void)
{
    CHECK(setup(false) == 0);
    regs.r15 = FAULT;
    CHECK(RUN_CODE(FAULT, 0x3e, 0x41, 0x80, 0x27, 0xfd) == 0);  /* ds andb $0xfd,(%r15) */
    CHECK(*pte() == (OLD & ~PTE_RW) && regs.rip == CODE_VA + 5);
}

/* A byte op on another byte of the entry (NX is in byte 7). */
static void and_byte_high(void)
{
    CHECK(setup(false) == 0);
    *pte() = OLD | PTE_NX;
    regs.rdi = FAULT;
    CHECK(RUN_CODE(FAULT + 7, 0xf0, 0x80, 0x67, 0x07, 0x7f) == 0);  /* lock andb $0x7f,7(%rdi) */
    CHECK(*pte() == OLD && (regs.rflags & FL_ZF));
}

static void or_byte_and_qword(void)
{
    CHECK(setup(false) == 0);
    *pte() = OLD & ~PTE_RW;
    regs.rdi = FAULT;
    CHECK(RUN_CODE(FAULT, 0xf0, 0x80, 0x0f, 0x02) == 0);    /* lock orb $2,(%rdi) */
    CHECK(*pte() == OLD);
    *pte() = (OLD & ~PTE_RW) | PTE_NX;
    CHECK(RUN_CODE(FAULT, 0xf0, 0x48, 0x83, 0x0f, 0x02) == 0);  /* lock orq $2,(%rdi) */
    CHECK(*pte() == (OLD | PTE_NX) && (regs.rflags & FL_SF) && regs.rip == CODE_VA + 5);
    /* and $-3: the imm32 is sign-extended, NX stays. */
    CHECK(RUN_CODE(FAULT, 0xf0, 0x48, 0x81, 0x27, 0xfd, 0xff, 0xff, 0xff) == 0);
    CHECK(*pte() == ((OLD & ~PTE_RW) | PTE_NX) && regs.rip == CODE_VA + 8);
    CHECK(RUN_CODE(FAULT, 0x48, 0x83, 0x27, 0x00) == 0);    /* andq $0,(%rdi) */
    CHECK(*pte() == 0 && (regs.rflags & FL_ZF) && !(regs.rflags & FL_SF));
    CHECK(perch_shared.stats.ptwr_emulations == 4);
}

/* The new value is checked and adjusted as an mmu_update entry's. */
static void new_value_checked(void)
{
    struct cpu_regs before;

    CHECK(setup(false) == 0);
    regs.rdi = FAULT;
    regs.rax = (PRIVATE << 12) | PTE_P;
    before = regs;
    before.rip = CODE_VA;
    CHECK(RUN_CODE(FAULT, 0x48, 0x87, 0x07) == -1);
    CHECK(untouched(&before));
    regs.rax = (DATA_MFN << 12) | PTE_P | PTE_PCD;
    before = regs;
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x07) == -1);
    CHECK(untouched(&before));
    /* shared_info may be mapped. */
    mm_shared_info_mfn = 5;
    regs.rax = (5ull << 12) | PTE_P | PTE_RW;
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x07) == 0);
    CHECK(*pte() == ((5ull << 12) | PTE_P | PTE_RW | PTE_US));
}

/* ---- Refusals ------------------------------------------------------------------------ */

static void undecodable_instructions(void)
{
    static const uint8_t forms[][8] = {
        { 3, 0x48, 0x01, 0x07 },                  /* add %rax,(%rdi) */
        { 2, 0x89, 0x07 },                        /* mov %eax,(%rdi): 32 bits */
        { 4, 0x66, 0x48, 0x89, 0x07 },            /* a prefix not handled */
        { 4, 0x65, 0x48, 0x89, 0x07 },            /* %gs: */
        { 4, 0x48, 0xf0, 0x89, 0x07 },            /* lock after REX */
        { 3, 0x48, 0x89, 0xc7 },                  /* mov %rax,%rdi: no memory */
        { 3, 0x48, 0x87, 0xc7 },
        { 4, 0x48, 0x0f, 0xb1, 0xc7 },
        { 5, 0x48, 0x0f, 0xba, 0x27, 0x05 },      /* bt: only reads */
        { 5, 0x48, 0x0f, 0xba, 0x3f, 0x05 },      /* btc */
        { 3, 0x80, 0x37, 0x01 },                  /* xor */
        { 4, 0x48, 0x83, 0x07, 0x01 },            /* add */
        { 7, 0x48, 0xc7, 0x0f, 0, 0, 0, 0 },      /* c7 /1 */
        { 3, 0x0f, 0xb1, 0x07 },                  /* cmpxchg, 32 bits */
        { 3, 0x48, 0x0f, 0xff },
        { 1, 0x48 },                              /* cut short */
    };

    CHECK(setup(false) == 0);
    regs.rdi = FAULT;
    for (unsigned i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        struct cpu_regs before = regs;

        memset(host_env_frame(CODE_MFN), 0, 4096);
        before.rip = CODE_VA;
        CHECK(run_at(0, forms[i] + 1, forms[i][0], FAULT, PF_W) == -1);
        CHECK(untouched(&before));
    }
}

static void address_must_be_the_fault(void)
{
    struct cpu_regs before;

    CHECK(setup(false) == 0);
    regs.rdi = FAULT + 8;
    before = regs;
    before.rip = CODE_VA;
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x07) == -1);
    CHECK(untouched(&before));
    /* A qword must be aligned. */
    regs.rdi = FAULT + 4;
    before = regs;
    CHECK(RUN_CODE(FAULT + 4, 0x48, 0x89, 0x07) == -1);
    CHECK(untouched(&before));
}

static void only_the_guest_kernel_with_the_assist(void)
{
    struct cpu_regs before;

    CHECK(setup(false) == 0);
    regs.rdi = FAULT;
    before = regs;
    before.rip = CODE_VA;
    current->in_kernel = false;
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x07) == -1);
    CHECK(untouched(&before));
    current->in_kernel = true;
    vm_assist_enabled = 0;
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x07) == -1);
    CHECK(untouched(&before));
    vm_assist_enabled = 1ull << VMASST_TYPE_writable_pagetables;
    static const uint64_t codes[] = { 5, 6, 3 | 8, 3 | 16 };   /* read, not present, RSVD, fetch */
    for (unsigned i = 0; i < 4; i++) {
        CHECK(run_at(0, (const uint8_t[]){ 0x48, 0x89, 0x07 }, 3, FAULT, codes[i]) == -1);
        CHECK(untouched(&before));
    }
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x07) == 0);
}

/* Only read-only mappings of L1 tables. */
static void only_read_only_l1_tables(void)
{
    struct cpu_regs before;

    CHECK(setup(false) == 0);
    regs.rdi = FAULT;
    before = regs;
    before.rip = CODE_VA;
    *host_env_pte(PT_VA, 0) |= PTE_RW;              /* mapped writable: a real #PF */
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x07) == -1);
    CHECK(untouched(&before));
    *host_env_pte(PT_VA, 0) &= ~PTE_RW;
    CHECK(mm_unpin(PT_MFN) == 0);                   /* no longer known as an L1 */
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x07) == -1);
    CHECK(untouched(&before));
    CHECK(mm_pin(PT_MFN, MM_L2) == 0);               /* an L2 is Xen's no too */
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x07) == -1);
    CHECK(untouched(&before));
    /* Without a frame table, any read-only guest frame may be a table. */
    mm_frames = NULL;
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x07) == 0);
    /* Not mapped at all, or in the hole. */
    CHECK(RUN_CODE(PT_VA + 0x200000, 0x48, 0x89, 0x07) == -1);
    CHECK(RUN_CODE(PERCH_REGION_VA, 0x48, 0x89, 0x07) == -1);
    /* perch's own frames never. */
    host_env_map(PT_VA + 4096, PRIVATE, HOST_ENV_RO);
    regs.rdi = PT_VA + 4096;
    CHECK(RUN_CODE(PT_VA + 4096, 0x48, 0x89, 0x07) == -1);
}

/* The instruction's bytes may cross into the next page, if it is mapped. */
static void instruction_across_a_page(void)
{
    static const uint8_t code[] = { 0x48, 0x89, 0x07 };
    struct cpu_regs before;

    CHECK(setup(false) == 0);
    regs.rdi = FAULT;
    regs.rax = NEW;
    memcpy((uint8_t *)host_env_frame(CODE_MFN + 1), code + 2, 1);
    CHECK(run_at(4094, code, 2, FAULT, PF_W) == 0);
    CHECK(*pte() == (NEW | PTE_US) && regs.rip == CODE_VA + 4097);
    *pte() = OLD;
    perch_shared.stats.ptwr_emulations = 0;
    *host_env_pte(CODE_VA + 4096, 0) = 0;            /* next page gone */
    before = regs;
    before.rip = CODE_VA + 4094;
    CHECK(run_at(4094, code, 2, FAULT, PF_W) == -1);
    CHECK(untouched(&before));
    /* Code that cannot be read at all. */
    regs.rip = CODE_VA + 4096;
    before = regs;
    CHECK(ptwr_emulate(&regs, FAULT, PF_W) == -1);
    CHECK(untouched(&before));
}

/* ---- Strict mode ------------------------------------------------------------------------ */

static void strict_mode(void)
{
    struct cpu_regs before;

    CHECK(setup(true) == 0);
    CHECK(frame_table[PT_MFN].type == MM_TYPE_L1 && frame_table[DATA_MFN].count == 1);
    regs.rdi = FAULT;
    regs.rax = 0;
    CHECK(RUN_CODE(FAULT, 0x48, 0x87, 0x07) == 0);   /* xchg: the mapping goes */
    CHECK(*pte() == 0 && regs.rax == OLD && frame_table[DATA_MFN].count == 0);
    /* A table may not become writable through its own entries. */
    regs.rax = (PT_MFN << 12) | PTE_P | PTE_RW;
    before = regs;
    before.rip = CODE_VA;
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x07) == -1);
    CHECK(*pte() == 0 && !memcmp(&regs, &before, sizeof(regs)));
    regs.rax = (PT_MFN << 12) | PTE_P;
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x07) == 0);
    /* Unpinned, the frame is no table: its faults are the guest's. */
    CHECK(mm_unpin(PT_MFN) == 0);
    regs.rax = 0;
    CHECK(RUN_CODE(FAULT, 0x48, 0x89, 0x07) == -1);
}

int main(void)
{
    RUN(mov_register);
    RUN(mov_every_register);
    RUN(mov_extended_base_and_displacement);
    RUN(mov_sib_index_rip_and_absolute);
    RUN(mov_immediate);
    RUN(xchg_returns_the_old_value);
    RUN(cmpxchg_success);
    RUN(cmpxchg_failure);
    RUN(btr_immediate);
    RUN(btr_register);
    RUN(bts);
    RUN(and_byte);
    RUN(and_byte_ds_prefix_r15);
    RUN(and_byte_high);
    RUN(or_byte_and_qword);
    RUN(new_value_checked);
    RUN(undecodable_instructions);
    RUN(address_must_be_the_fault);
    RUN(only_the_guest_kernel_with_the_assist);
    RUN(only_read_only_l1_tables);
    RUN(instruction_across_a_page);
    RUN(strict_mode);
    host_env_reset(0);
    mm_frames = NULL;
    return check_exit_status();
}
