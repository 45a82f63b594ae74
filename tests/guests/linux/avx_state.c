/*
 * Guest processes use AVX whatever the guest kernel is told (their `cpuid`
 * is the real CPU's here, and glibc picks ymm string functions), so the
 * kernel must switch all 256 bits of each ymm register between them. N
 * processes each fill ymm0-15 with their own values, spin long enough to
 * be preempted many times by the others, and check every quarter. Built
 * static with -mavx by tests/guests/linux_avx.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define REGS 16
#define WORDS (REGS * 4)

static void load_spin_store(const unsigned long *in, unsigned long *out, unsigned spins)
{
    __asm__ volatile(
        "vmovdqu 0x000(%0),%%ymm0\n vmovdqu 0x020(%0),%%ymm1\n vmovdqu 0x040(%0),%%ymm2\n"
        "vmovdqu 0x060(%0),%%ymm3\n vmovdqu 0x080(%0),%%ymm4\n vmovdqu 0x0a0(%0),%%ymm5\n"
        "vmovdqu 0x0c0(%0),%%ymm6\n vmovdqu 0x0e0(%0),%%ymm7\n vmovdqu 0x100(%0),%%ymm8\n"
        "vmovdqu 0x120(%0),%%ymm9\n vmovdqu 0x140(%0),%%ymm10\n vmovdqu 0x160(%0),%%ymm11\n"
        "vmovdqu 0x180(%0),%%ymm12\n vmovdqu 0x1a0(%0),%%ymm13\n vmovdqu 0x1c0(%0),%%ymm14\n"
        "vmovdqu 0x1e0(%0),%%ymm15\n"
        "1: dec %2\n jnz 1b\n"
        "vmovdqu %%ymm0,0x000(%1)\n vmovdqu %%ymm1,0x020(%1)\n vmovdqu %%ymm2,0x040(%1)\n"
        "vmovdqu %%ymm3,0x060(%1)\n vmovdqu %%ymm4,0x080(%1)\n vmovdqu %%ymm5,0x0a0(%1)\n"
        "vmovdqu %%ymm6,0x0c0(%1)\n vmovdqu %%ymm7,0x0e0(%1)\n vmovdqu %%ymm8,0x100(%1)\n"
        "vmovdqu %%ymm9,0x120(%1)\n vmovdqu %%ymm10,0x140(%1)\n vmovdqu %%ymm11,0x160(%1)\n"
        "vmovdqu %%ymm12,0x180(%1)\n vmovdqu %%ymm13,0x1a0(%1)\n vmovdqu %%ymm14,0x1c0(%1)\n"
        "vmovdqu %%ymm15,0x1e0(%1)\n vzeroupper\n"
        : "+r"(in), "+r"(out), "+r"(spins)
        :
        : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
          "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}

/* One process's rounds: 0 if every quarter of every register came back. */
static int check_process(unsigned id, unsigned rounds)
{
    unsigned long want[WORDS], got[WORDS];

    for (unsigned round = 0; round < rounds; round++) {
        for (unsigned i = 0; i < WORDS; i++)
            want[i] = 0x0101010101010101ul * (i + 1) ^ (unsigned long)id << 56 ^ round;
        load_spin_store(want, got, 3000000);
        for (unsigned i = 0; i < WORDS; i++)
            if (got[i] != want[i]) {
                printf("avx_state: process %u round %u: ymm%u bits %u-%u are %#lx, not %#lx\n",
                       id, round, i / 4, i % 4 * 64, i % 4 * 64 + 63, got[i], want[i]);
                return 1;
            }
    }
    return 0;
}

int main(int argc, char **argv)
{
    unsigned processes = argc > 1 ? (unsigned)atoi(argv[1]) : 4, failed = 0;

    for (unsigned id = 0; id < processes; id++)
        if (fork() == 0)
            _exit(check_process(id, 40));
    for (unsigned id = 0; id < processes; id++) {
        int status;

        if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
            failed++;
    }
    printf("avx_state: %u of %u processes kept their ymm registers\n", processes - failed, processes);
    return failed != 0;
}
