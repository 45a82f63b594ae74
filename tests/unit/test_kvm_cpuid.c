/*
 * Unit tests of the vCPU's CPUID table (launcher/vm/kvm.c): on an Intel host
 * guest processes read KVM's table, so the state the guest kernel cannot
 * save (PKRU, AMX's tiles) must not be enumerated there. The table is the
 * Intel Xeon 06a7's recorded CPUID, as KVM_GET_SUPPORTED_CPUID would give
 * it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../launcher/cpu/cpu_profile.h"
#include "../../launcher/vm/kvm.h"

static struct kvm_cpuid2 *table;

static void load_intel(void)
{
    struct perch_cpu cpu;
    struct error e;

    free(table);
    table = calloc(1, sizeof(*table) + PERCH_CPUID_ENTRIES * sizeof(table->entries[0]));
    if (!table || cpu_profile_load("tests/cpus/intel-xeon-06a7.txt", &cpu, &e))
        abort();
    for (uint32_t i = 0; i < cpu.nr_entries; i++) {
        struct kvm_cpuid_entry2 *c = &table->entries[table->nent++];

        c->function = cpu.entries[i].leaf;
        c->index = cpu.entries[i].subleaf;
        c->eax = cpu.entries[i].reg[0], c->ebx = cpu.entries[i].reg[1];
        c->ecx = cpu.entries[i].reg[2], c->edx = cpu.entries[i].reg[3];
    }
}

static struct kvm_cpuid_entry2 *entry(uint32_t leaf, uint32_t subleaf)
{
    for (uint32_t i = 0; i < table->nent; i++)
        if (table->entries[i].function == leaf && table->entries[i].index == subleaf)
            return &table->entries[i];
    abort();
}

static void pkru_and_amx_hidden(void)
{
    load_intel();
    CHECK(entry(7, 0)->ecx & (1u << 3));               /* the CPU has PKU */
    CHECK(entry(0xd, 0x12)->eax == 0x2000);            /* and AMX tile data */
    kvm_cpuid_hide_unsaved_state(table);
    CHECK(!(entry(7, 0)->ecx & (3u << 3)));            /* PKU, OSPKE */
    CHECK(!(entry(7, 0)->edx & ((1u << 22) | (1u << 24) | (1u << 25))));
    CHECK(entry(0xd, 0)->eax == 0xe7 && entry(0xd, 0)->edx == 0);
    CHECK(!(entry(0xd, 1)->eax & (1u << 4)));          /* XFD */
    CHECK(entry(0xd, 9)->eax == 0 && entry(0xd, 0x11)->eax == 0 && entry(0xd, 0x12)->ebx == 0);
    CHECK(entry(0x1d, 1)->eax == 0 && entry(0x1e, 0)->ebx == 0);
}

/* What the guest kernel is offered stays: AVX-512 and its layout. */
static void offered_state_kept(void)
{
    load_intel();
    kvm_cpuid_hide_unsaved_state(table);
    CHECK(entry(7, 0)->ebx & (1u << 16));              /* AVX512F */
    CHECK(entry(0xd, 5)->eax == 64 && entry(0xd, 5)->ebx == 0x440);
    CHECK(entry(0xd, 2)->eax == 256 && entry(0xd, 2)->ebx == 576);
    CHECK(entry(1, 0)->ecx == 0xfffa3203);             /* leaf 1 untouched */
}

int main(void)
{
    RUN(pkru_and_amx_hidden);
    RUN(offered_state_kept);
    free(table);
    return check_exit_status();
}
