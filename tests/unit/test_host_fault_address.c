/*
 * Unit tests of host/cpu/fault_address.c: a #PF delivered at CPL3 gets its
 * address from the faulting instruction when the page tables prove it,
 * and from CR2 (one ring-0 visit) whenever they do not.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../host/core/env.h"
#include "../../host/cpu/fault_address.h"
#include "../../host/core/vcpu.h"

#define FRAMES     64
#define CODE_VA    0xffffffff81000000ull
#define DATA_VA    0xffffffff81200000ull   /* writable; the next page absent */
#define ABSENT_VA  (DATA_VA + 0x1000)
#define ABSENT2_VA (DATA_VA + 0x3000)
#define RO_VA      (DATA_VA + 0x2000)
#define CR2_VALUE  0x5ca1ab1e000ull        /* what READ_CR2 would give */

#define PF_W 0x2
#define PF_U 0x4
#define PF_P 0x1
#define PF_I 0x10

static struct cpu_regs regs;

static void setup(void)
{
    host_env_reset(FRAMES);
    host_env_map(CODE_VA, 1, HOST_ENV_RO);
    host_env_map(DATA_VA, 2, HOST_ENV_RW);
    host_env_map(RO_VA, 3, HOST_ENV_RO);
    memset(current, 0, sizeof(*current));
    current->in_kernel = true;
    current->kernel_cr3 = perch_shared.boot.kernel_cr3;
    optimizations_off = 0;
    host_env_fault_address[FAULT_ADDRESS_CR2] = CR2_VALUE;
    memset(&regs, 0, sizeof(regs));
    regs.rip = CODE_VA + 0x100;
}

/* The instruction at regs.rip, faulting with `error`: the address found. */
static uint64_t fault(const uint8_t *code, size_t len, uint64_t error)
{
    memcpy((uint8_t *)host_env_frame(1) + (regs.rip & 0xfff), code, len);
    regs.error_code = error;
    return fault_address_cpl3(&regs);
}

static const uint8_t store_ebx[] = { 0x89, 0x03 };          /* mov %eax,(%rbx) */
static const uint8_t store8_rbx[] = { 0x48, 0x89, 0x03 };   /* mov %rax,(%rbx) */
static const uint8_t movsb[] = { 0xa4 };

static void a_store_to_an_absent_page_is_proven(void)
{
    setup();
    regs.rbx = ABSENT_VA + 8;
    CHECK(fault(store_ebx, sizeof(store_ebx), PF_W | PF_U) == ABSENT_VA + 8);
    CHECK(perch_shared.stats.pf_address_decoded == 1);
}

static void a_store_to_a_read_only_page_is_proven(void)
{
    setup();
    regs.rbx = RO_VA + 0x40;
    CHECK(fault(store_ebx, sizeof(store_ebx), PF_P | PF_W | PF_U) == RO_VA + 0x40);
}

static void an_access_running_into_an_absent_page_faults_at_its_start(void)
{
    setup();
    regs.rbx = DATA_VA + 0xffc;
    CHECK(fault(store8_rbx, sizeof(store8_rbx), PF_W | PF_U) == ABSENT_VA);
}

static void a_page_the_tables_call_present_is_read_from_cr2(void)
{
    setup();
    regs.rbx = DATA_VA + 8;           /* present and writable: a stale TLB */
    CHECK(fault(store_ebx, sizeof(store_ebx), PF_W | PF_U) == CR2_VALUE);
    CHECK(perch_shared.stats.pf_address_decoded == 0);
}

static void two_absent_operands_are_read_from_cr2(void)
{
    setup();
    regs.rsi = ABSENT_VA;
    regs.rdi = ABSENT2_VA;
    CHECK(fault(movsb, sizeof(movsb), PF_U) == CR2_VALUE);
    regs.rsi = DATA_VA;               /* only the destination is absent */
    CHECK(fault(movsb, sizeof(movsb), PF_W | PF_U) == ABSENT2_VA);
}

static void the_same_proof_twice_in_a_row_is_read_from_cr2(void)
{
    setup();
    regs.rbx = ABSENT_VA;
    CHECK(fault(store_ebx, sizeof(store_ebx), PF_W | PF_U) == ABSENT_VA);
    CHECK(fault(store_ebx, sizeof(store_ebx), PF_W | PF_U) == CR2_VALUE);
    CHECK(fault(store_ebx, sizeof(store_ebx), PF_W | PF_U) == ABSENT_VA);
}

static void an_instruction_fetch_from_an_absent_page_is_its_rip(void)
{
    setup();
    regs.rip = ABSENT_VA + 0x10;
    regs.error_code = PF_I | PF_U;
    CHECK(fault_address_cpl3(&regs) == ABSENT_VA + 0x10);
    regs.rip = DATA_VA + 0xffe;       /* the instruction runs into it */
    CHECK(fault_address_cpl3(&regs) == ABSENT_VA);
}

static void reserved_bit_and_nx_faults_are_read_from_cr2(void)
{
    setup();
    regs.rbx = ABSENT_VA;
    CHECK(fault(store_ebx, sizeof(store_ebx), PF_P | PF_W | PF_U | 0x8) == CR2_VALUE);
    regs.rip = RO_VA;
    regs.error_code = PF_P | PF_I | PF_U;
    CHECK(fault_address_cpl3(&regs) == CR2_VALUE);
}

static void switched_off_every_address_is_read_from_cr2(void)
{
    setup();
    optimizations_off = PERCH_OPT_FAULT_DECODE;
    regs.rbx = ABSENT_VA;
    CHECK(fault(store_ebx, sizeof(store_ebx), PF_W | PF_U) == CR2_VALUE);
}

int main(void)
{
    RUN(a_store_to_an_absent_page_is_proven);
    RUN(a_store_to_a_read_only_page_is_proven);
    RUN(an_access_running_into_an_absent_page_faults_at_its_start);
    RUN(a_page_the_tables_call_present_is_read_from_cr2);
    RUN(two_absent_operands_are_read_from_cr2);
    RUN(the_same_proof_twice_in_a_row_is_read_from_cr2);
    RUN(an_instruction_fetch_from_an_absent_page_is_its_rip);
    RUN(reserved_bit_and_nx_faults_are_read_from_cr2);
    RUN(switched_off_every_address_is_read_from_cr2);
    return check_exit_status();
}
