/*
 * Guest processes run vector instructions natively, whatever the guest
 * kernel is told (guest code runs with the machine's XCR0, and glibc picks
 * ymm string functions where its cpuid says AVX), so the kernel must switch
 * every bit of that state between them. N processes each fill their
 * registers with their own values, spin long enough to be preempted many
 * times by the others, and check every 64-bit piece: ymm0-15 always, and
 * where the CPU runs AVX-512 (cpuid and XCR0 both say so) zmm0-31 and the
 * opmask registers k0-7 too. Built static with -mavx by
 * tests/guests/linux_avx.sh; the AVX-512 part is compiled for AVX-512 by
 * its function attribute and runs only where it is there.
 */
#include <cpuid.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define YMM_WORDS (16 * 4)
#define ZMM_WORDS (32 * 8)
#define K_WORDS   8

static void ymm_load_spin_store(const unsigned long *in, unsigned long *out, unsigned spins)
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

/* zmm0-31 from in[0..255], k0-7 from k_in[0..7] (k0 too: it is state,
 * though no instruction can use it as a mask), spin, store them back. */
#define Z(n) "vmovdqu64 " #n "*64(%0),%%zmm" #n "\n"
#define S(n) "vmovdqu64 %%zmm" #n "," #n "*64(%1)\n"
#define KL(n) "kmovq " #n "*8(%2),%%k" #n "\n"
#define KS(n) "kmovq %%k" #n "," #n "*8(%3)\n"
__attribute__((target("avx512f,avx512bw")))
static void zmm_load_spin_store(const unsigned long *in, unsigned long *out,
                                const unsigned long *k_in, unsigned long *k_out,
                                unsigned spins)
{
    __asm__ volatile(
        Z(0) Z(1) Z(2) Z(3) Z(4) Z(5) Z(6) Z(7) Z(8) Z(9) Z(10) Z(11) Z(12) Z(13) Z(14) Z(15)
        Z(16) Z(17) Z(18) Z(19) Z(20) Z(21) Z(22) Z(23) Z(24) Z(25) Z(26) Z(27) Z(28) Z(29)
        Z(30) Z(31)
        KL(0) KL(1) KL(2) KL(3) KL(4) KL(5) KL(6) KL(7)
        "1: dec %4\n jnz 1b\n"
        S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7) S(8) S(9) S(10) S(11) S(12) S(13) S(14) S(15)
        S(16) S(17) S(18) S(19) S(20) S(21) S(22) S(23) S(24) S(25) S(26) S(27) S(28) S(29)
        S(30) S(31)
        KS(0) KS(1) KS(2) KS(3) KS(4) KS(5) KS(6) KS(7)
        "vzeroupper\n"
        : "+r"(in), "+r"(out), "+r"(k_in), "+r"(k_out), "+r"(spins)
        :
        : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
          "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
          "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",
          "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31",
          "k1", "k2", "k3", "k4", "k5", "k6", "k7");
}

/* AVX-512F and BW (kmovq) in cpuid, and all three of its state
 * components enabled in XCR0 (bits 5-7) with AVX's. */
/* Does guest code run with AVX-512: the CPU has it (cpuid) and the XCR0
 * guest code runs with enables it? xgetbv is asked whatever cpuid says of
 * OSXSAVE: where guest processes read a CPUID table rather than the CPU,
 * its OSXSAVE can be off while the CPU runs them with it on (docs/kvm.md);
 * a real #UD there says no. */
static sigjmp_buf no_xgetbv;

static void xgetbv_refused(int sig)
{
    (void)sig;
    siglongjmp(no_xgetbv, 1);
}

static int cpu_runs_avx512(void)
{
    unsigned a, b, c, d, lo, hi;
    int runs = 0;

    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 16)) || !(b & (1u << 30)))
        return 0;
    signal(SIGILL, xgetbv_refused);
    if (sigsetjmp(no_xgetbv, 1) == 0) {
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        runs = (lo & 0xe6) == 0xe6;
    }
    signal(SIGILL, SIG_DFL);
    return runs;
}

static unsigned long pattern(unsigned id, unsigned round, unsigned i)
{
    return 0x0101010101010101ul * (i + 1) ^ (unsigned long)id << 56 ^ round;
}

/* The first word of got[] that is not want[]'s, or -1. */
static int first_difference(const unsigned long *want, const unsigned long *got, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (got[i] != want[i])
            return (int)i;
    return -1;
}

/* One process's rounds: 0 if every piece of every register came back. */
static int check_process(unsigned id, unsigned rounds, int avx512)
{
    unsigned long want[ZMM_WORDS], got[ZMM_WORDS], k_want[K_WORDS], k_got[K_WORDS];
    int bad;

    for (unsigned round = 0; round < rounds; round++) {
        for (unsigned i = 0; i < ZMM_WORDS; i++)
            want[i] = pattern(id, round, i);
        for (unsigned i = 0; i < K_WORDS; i++)
            k_want[i] = pattern(id, round, 1000 + i);
        ymm_load_spin_store(want, got, 3000000);
        if ((bad = first_difference(want, got, YMM_WORDS)) >= 0) {
            printf("avx_state: process %u round %u: ymm%d bits %d-%d are %#lx, not %#lx\n",
                   id, round, bad / 4, bad % 4 * 64, bad % 4 * 64 + 63, got[bad], want[bad]);
            return 1;
        }
        if (!avx512)
            continue;
        zmm_load_spin_store(want, got, k_want, k_got, 3000000);
        if ((bad = first_difference(want, got, ZMM_WORDS)) >= 0) {
            printf("avx_state: process %u round %u: zmm%d bits %d-%d are %#lx, not %#lx\n",
                   id, round, bad / 8, bad % 8 * 64, bad % 8 * 64 + 63, got[bad], want[bad]);
            return 1;
        }
        if ((bad = first_difference(k_want, k_got, K_WORDS)) >= 0) {
            printf("avx_state: process %u round %u: k%d is %#lx, not %#lx\n",
                   id, round, bad, k_got[bad], k_want[bad]);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    unsigned processes = argc > 1 ? (unsigned)atoi(argv[1]) : 4, failed = 0;
    int avx512 = cpu_runs_avx512();

    printf("avx_state: checking %s\n", avx512 ? "ymm0-15, zmm0-31 and k0-7" : "ymm0-15");
    fflush(stdout);
    for (unsigned id = 0; id < processes; id++)
        if (fork() == 0)
            _exit(check_process(id, 40, avx512));
    for (unsigned id = 0; id < processes; id++) {
        int status;

        if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
            failed++;
    }
    printf("avx_state: %u of %u processes kept their %s registers\n", processes - failed,
           processes, avx512 ? "ymm, zmm and opmask" : "ymm");
    return failed != 0;
}
