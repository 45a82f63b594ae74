/*
 * Unit tests of the CPU perch describes to the Host (launcher/cpu/cpu_profile.c):
 * the profile format read and written, bad profiles refused with the line
 * that is wrong, the merge of a replayed profile with the real CPU, the
 * recorded profiles in tests/cpus/, and this machine read as a profile.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../launcher/cpu/cpu_profile.h"
#include "../../lib/cpuid_table.h"

#define INTEL "tests/cpus/intel-xeon-06a7.txt"
#define AMD   "tests/cpus/amd-epyc-19-11.txt"

static struct perch_cpu cpu, other, merged;
static struct error e;

static int parse(const char *text)
{
    e.msg[0] = '\0';
    return cpu_profile_parse(text, strlen(text), &cpu, &e);
}

static uint32_t reg(const struct perch_cpu *c, uint32_t leaf, uint32_t subleaf, int r)
{
    uint32_t out[4];

    cpuid_table_read(c, leaf, subleaf, out);
    return out[r];
}

static const char minimal[] =
    "# a comment\n"
    "CPU 0:\n"
    "   0x00000000 0x00: eax=0x0000000d ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69\n"
    "   0x00000001 0x00: eax=0x000a0678 ebx=0x00020800 ecx=0xfffa3203 edx=0x1f8bfbff\n"
    "   0x00000007 0x01: eax=0x00001c30 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n"
    "\n"
    "xcr0=0x2e7\n"
    "msr 0x8b=0x2b000603\n"
    "msr 0x1a0=0x850089\n"
    "CPU 1:\n"
    "   0x00000000 0x00: eax=0x00000001 ebx=0x0 ecx=0x0 edx=0x0\n"
    "this line is never read\n";

static void parses_cpuid_r_layout(void)
{
    CHECK(parse(minimal) == 0);
    CHECK(cpu.nr_entries == 3);
    CHECK(reg(&cpu, 0, 0, 1) == 0x756e6547 && reg(&cpu, 1, 0, 0) == 0x000a0678);
    CHECK(reg(&cpu, 7, 1, 0) == 0x1c30 && reg(&cpu, 7, 0, 0) == 0);
    /* A leaf without subleaves ignores ecx, as the CPU does. */
    CHECK(reg(&cpu, 1, 5, 0) == 0x000a0678);
    CHECK(cpu.xcr0 == 0x2e7 && cpu.ucode_rev == 0x2b000603 && cpu.misc_enable == 0x850089);
}

static void bad_profiles_name_their_line(void)
{
    CHECK(parse("   0x00000000 0x00: eax=0x1 ebx=0x2 ecx=0x3\n") == -1);
    CHECK_CONTAINS(e.msg, "line 1: not a CPUID leaf");
    CHECK(parse("# ok\n   0x00000001 0x03: eax=0x1 ebx=0x2 ecx=0x3 edx=0x4\n") == -1);
    CHECK_CONTAINS(e.msg, "line 2: a subleaf of a leaf that has none");
    CHECK(parse("msr 0x10=0x5\n") == -1);
    CHECK_CONTAINS(e.msg, "line 1: an MSR perch takes no value for");
    CHECK(parse("xcr0=0x7 junk\n") == -1);
    CHECK_CONTAINS(e.msg, "line 1:");
    CHECK(parse("# nothing\nxcr0=0x7\n") == -1);
    CHECK_CONTAINS(e.msg, "no CPUID leaves 0 and 1");
}

static void too_many_leaves_refused(void)
{
    size_t size = (PERCH_CPUID_ENTRIES + 2) * 80;
    char *text = malloc(size), *at = text;

    CHECK(text);
    for (uint32_t i = 0; i <= PERCH_CPUID_ENTRIES; i++)
        at += sprintf(at, "   0x%08x 0x00: eax=0x1 ebx=0x2 ecx=0x3 edx=0x4\n", 0x80000000u + i);
    CHECK(parse(text) == -1);
    free(text);
    CHECK_CONTAINS(e.msg, "more CPUID leaves than perch takes");
}

/* What cpu_profile_write writes, cpu_profile_parse reads back the same. */
static void write_then_parse(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    CHECK(parse(minimal) == 0);
    other = cpu;
    CHECK(f);
    cpu_profile_write(f, &other, "a test");
    fclose(f);
    CHECK(parse(text) == 0);
    free(text);
    CHECK(memcmp(&cpu, &other, sizeof(cpu)) == 0);
}

static void recorded_profiles_load(void)
{
    CHECK(cpu_profile_load(INTEL, &cpu, &e) == 0);
    CHECK(reg(&cpu, 1, 0, 0) == 0x000a0678 && cpu.xcr0 == 0x602e7 && cpu.misc_enable == 1);
    CHECK(reg(&cpu, 0xd, 0x12, 0) == 0x2000);           /* AMX tile data */
    CHECK(cpu_profile_load(AMD, &cpu, &e) == 0);
    CHECK(reg(&cpu, 0, 0, 1) == 0x68747541 && cpu.xcr0 == 0xe7);
    CHECK(cpu_profile_load("tests/cpus/no-such-cpu.txt", &cpu, &e) == -1);
    CHECK_CONTAINS(e.msg, "no-such-cpu.txt");
}

/* The Intel profile replayed on the AMD EPYC: Intel's identity, AMD's
 * features where Intel has them too, the EPYC's XSAVE layout and XCR0. */
static void merge_keeps_identity_and_real_limits(void)
{
    CHECK(cpu_profile_load(INTEL, &cpu, &e) == 0);
    CHECK(cpu_profile_load(AMD, &other, &e) == 0);
    cpu_profile_merge(&other, &cpu, &merged);
    CHECK(reg(&merged, 0, 0, 1) == 0x756e6547);           /* GenuineIntel */
    CHECK(reg(&merged, 1, 0, 0) == 0x000a0678);           /* its family/model */
    CHECK(reg(&merged, 4, 0, 0) == reg(&cpu, 4, 0, 0));   /* its caches */
    CHECK(reg(&merged, 7, 0, 3) & (1u << 4));             /* FSRM: both have it */
    CHECK(!(reg(&merged, 7, 0, 3) & (1u << 24)));         /* AMX_TILE: not the EPYC's */
    CHECK(!(reg(&merged, 7, 0, 2) & (1u << 3)));          /* PKU: not the EPYC's */
    CHECK(reg(&merged, 1, 0, 2) == (reg(&cpu, 1, 0, 2) & reg(&other, 1, 0, 2)));
    CHECK(reg(&merged, 0xd, 0, 0) == 0xe7);               /* the EPYC's XSAVE */
    CHECK(reg(&merged, 0xd, 5, 1) == reg(&other, 0xd, 5, 1));
    CHECK(reg(&merged, 0xd, 0x12, 0) == 0);               /* no AMX layout */
    CHECK(reg(&merged, 0xd, 1, 0) == (reg(&cpu, 0xd, 1, 0) & reg(&other, 0xd, 1, 0)));
    CHECK(merged.xcr0 == 0xe7 && merged.misc_enable == 1 && merged.ucode_rev == cpu.ucode_rev);
}

/* perch restore on another CPU: a guest shown the Intel Xeon cannot go on
 * on the AMD EPYC (AMX, PKU, its XCR0), but one shown the Xeon replayed on
 * the EPYC can, and each CPU covers itself. */
static void a_restore_needs_what_the_guest_was_shown(void)
{
    CHECK(cpu_profile_load(INTEL, &cpu, &e) == 0);
    CHECK(cpu_profile_load(AMD, &other, &e) == 0);
    CHECK(cpu_profile_covers(&cpu, &cpu, &e) == 0);
    CHECK(cpu_profile_covers(&other, &other, &e) == 0);
    CHECK(cpu_profile_covers(&other, &cpu, &e) == -1);
    CHECK_CONTAINS(e.msg, "this CPU lacks features the guest was shown (CPUID leaf 0x");
    cpu_profile_merge(&other, &cpu, &merged);
    CHECK(cpu_profile_covers(&other, &merged, &e) == 0);
    merged.xcr0 |= 1ull << 17;                            /* AMX's tile config */
    CHECK(cpu_profile_covers(&other, &merged, &e) == -1);
    CHECK_CONTAINS(e.msg, "XCR0 bits 0x20000");
}

/* This machine, as perch run describes it without a profile. */
static void this_machine_reads(void)
{
    uint32_t r[4];

    CHECK(cpu_profile_for_guest(NULL, &cpu, &e) == 0);
    __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(0), "c"(0));
    CHECK(reg(&cpu, 0, 0, 1) == r[1] && reg(&cpu, 0, 0, 0) == r[0]);
    CHECK(cpu.nr_entries > 10 && (cpu.xcr0 & 3) == 3);
    CHECK(cpu_profile_for_guest(INTEL, &merged, &e) == 0);
    CHECK(reg(&merged, 0, 0, 1) == 0x756e6547 && merged.xcr0 == cpu.xcr0);
}

int main(void)
{
    RUN(parses_cpuid_r_layout);
    RUN(bad_profiles_name_their_line);
    RUN(too_many_leaves_refused);
    RUN(write_then_parse);
    RUN(recorded_profiles_load);
    RUN(merge_keeps_identity_and_real_limits);
    RUN(a_restore_needs_what_the_guest_was_shown);
    RUN(this_machine_reads);
    return check_exit_status();
}
