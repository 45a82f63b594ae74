/*
 * What gdb looks at while the guest is stopped for it: the registers the
 * Host saved (a copy, written back when the guest goes on), guest memory
 * through the guest's own page tables, and software breakpoints (int3 in
 * guest text, the original byte kept here).
 */
#ifndef PERCH_GDB_TARGET_H
#define PERCH_GDB_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../abi/layout.h"
#include "../vm/guest_memory.h"
#include "../symbols/kernel_symbols.h"
#include "../vm/kvm.h"

/* The g packet: gdb's amd64 registers 0-23, rax ... r15, rip, eflags, cs,
 * ss, ds, es, fs, gs (164 bytes). perch's target description numbers the
 * rest as gdb's own amd64 one does: st0-7, the x87 control registers,
 * xmm0-15 and mxcsr (24-56, from the vCPU's FXSAVE image: the Host never
 * touches them), then fs_base and gs_base. */
#define GDB_NR_REGS 24
#define GDB_REG_FS_BASE 57
#define GDB_REG_GS_BASE 58
#define GDB_REG_MAX 16          /* bytes of the widest (an xmm) */

/* The target description (qXfer:features:read:target.xml), NUL-ended. */
extern const char gdb_target_xml[];

/* Bytes of register n in that description; 0: no such register. */
size_t gdb_target_reg_size(unsigned n);

struct gdb_breakpoint {
    uint64_t va;
    uint64_t maddr;       /* where the int3 went: restored there */
    uint8_t original;
    bool used;
};

/* What gdb sees of one vCPU at a stop. */
struct gdb_vcpu_view {
    struct perch_gdb_regs regs;    /* taken at the stop */
    bool has_regs;                 /* false: not up, or it has not stopped */
    bool regs_changed;
    struct kvm_fpu fpu;            /* the vCPU's, taken at the stop */
    bool has_fpu;
};

/* What a resume packet asks of each vCPU (gdb_target.go). */
enum gdb_go { GDB_GO_STAY, GDB_GO_CONTINUE, GDB_GO_STEP };

struct gdb_target {
    struct perch_shared *shared;
    struct guest_memory *gm;
    unsigned nr_vcpus;
    unsigned cpu;                  /* Hg: whose registers and page tables */
    int step_cpu;                  /* Hc: which one `s` steps; -1: the Hg one */
    struct gdb_vcpu_view vcpu[PERCH_MAX_VCPUS];
    uint8_t go[PERCH_MAX_VCPUS];   /* the last resume packet's enum gdb_go */
    bool swbreak;                  /* the client takes swbreak stop reasons */
    const struct kernel_symbols *syms;   /* the kernel's, for monitor; NULL: none */
    struct gdb_breakpoint bp[PERCH_GDB_BREAKPOINTS];
};

/* vCPU cpu has stopped: take its registers (none if it is not up). */
void gdb_target_stopped(struct gdb_target *t, unsigned cpu, bool has_regs);

/* Let vCPU cpu go on (PERCH_GDB_CONTINUE or _STEP), with gdb's register
 * changes. */
void gdb_target_resume(struct gdb_target *t, unsigned cpu, uint64_t how);

/* Register n (gdb's numbering) of the Hg vCPU into out, little-endian;
 * returns its size in bytes, 0 for a register perch does not have a value
 * of. */
size_t gdb_target_get_reg(const struct gdb_target *t, unsigned n,
                          uint8_t out[GDB_REG_MAX]);

/* Set the Hg vCPU's register n from size bytes; -1 for one perch does
 * not have or a wrong size. */
int gdb_target_set_reg(struct gdb_target *t, unsigned n, const uint8_t *in, size_t size);

/* Copy guest memory at va, through the Hg vCPU's page tables (the first
 * vCPU's with registers when it has none): returns the bytes done from
 * the start, which stop at the first page that is not the guest's
 * (unmapped, Xen's hole, perch's). Reads show the original bytes under
 * breakpoints. */
size_t gdb_target_read(const struct gdb_target *t, uint64_t va, uint8_t *out, size_t len);
size_t gdb_target_write(struct gdb_target *t, uint64_t va, const uint8_t *in, size_t len);

/* Software breakpoints: 0, or -1 (no such page, table full, none there). */
int gdb_target_insert(struct gdb_target *t, uint64_t va);
int gdb_target_remove(struct gdb_target *t, uint64_t va);

/* Every breakpoint out again (detach, a lost connection). */
void gdb_target_remove_all(struct gdb_target *t);

#endif
