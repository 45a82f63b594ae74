/*
 * Whether r11's value can still matter after an instruction of the guest
 * kernel's text: what lets host/cpu/insn_patch.c give up r11 in a patch too
 * short to save it.
 */
#ifndef PERCH_HOST_INSN_LIVENESS_H
#define PERCH_HOST_INSN_LIVENESS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * True only if no path from `from` can read the value r11 holds there:
 * every path, followed through the kernel's text (jumps and both ways of
 * each conditional branch), writes all of r11 before any read of it,
 * returns, or calls a function (r11 is no argument and is not preserved
 * across a call, by the x86-64 ABI), unless the callee is one of
 * perch_shared.boot.r11_readers (and any callee may, without the
 * kernel's symbols). Anything it cannot follow (an indirect
 * jump, a nop that may be a jump label, int3, ud2, a VEX form, a path out
 * of the text, more than a bounded number of instructions or paths) makes
 * the answer false. No instruction uses r11 implicitly but syscall and
 * sysret, which end the scan too.
 */
bool insn_r11_dead_after(uint64_t from);

#endif
