/* What the usermode guest's kernel side and its user programs share. */
#ifndef PERCH_USERMODE_H
#define PERCH_USERMODE_H

/* The guest kernel's toy system calls. */
#define SYS_ECHO  1     /* returns rdi + 1 */
#define SYS_DONE  60    /* the program's result in rdi */
#define SYS_FORGED_SEEN 0x5eed   /* what the kernel returns for a number it does not know */

#define USER_CODE_VA   0x400000ull
#define USER_STACK_VA  0x5ff000ull   /* one page below the 2 MiB line */
#define USER_LOOPS     2000
#define USER_GS_BASE   0x7f0000002000ull
#define KERNEL_GS_BASE 0xffffffff82000000ull

#endif
