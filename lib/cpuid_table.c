/* CPUID leaves in a struct perch_cpu (see cpuid_table.h). */
#include "cpuid_table.h"

bool cpuid_leaf_has_subleaves(uint32_t leaf)
{
    switch (leaf) {
    case 0x4: case 0x7: case 0xb: case 0xd: case 0xf: case 0x10: case 0x12:
    case 0x14: case 0x17: case 0x18: case 0x1b: case 0x1d: case 0x1f: case 0x20:
    case 0x23: case 0x24:
    case 0x8000001d: case 0x80000020: case 0x80000026:
        return true;
    }
    return false;
}

static struct perch_cpuid_entry *find(const struct perch_cpu *cpu, uint32_t leaf,
                                      uint32_t subleaf)
{
    uint32_t n = cpu->nr_entries < PERCH_CPUID_ENTRIES ? cpu->nr_entries
                                                       : PERCH_CPUID_ENTRIES;

    if (!cpuid_leaf_has_subleaves(leaf))
        subleaf = 0;
    for (uint32_t i = 0; i < n; i++)
        if (cpu->entries[i].leaf == leaf && cpu->entries[i].subleaf == subleaf)
            return (struct perch_cpuid_entry *)&cpu->entries[i];
    return 0;
}

bool cpuid_table_read(const struct perch_cpu *cpu, uint32_t leaf, uint32_t subleaf,
                      uint32_t out[4])
{
    const struct perch_cpuid_entry *e = find(cpu, leaf, subleaf);

    for (int i = 0; i < 4; i++)
        out[i] = e ? e->reg[i] : 0;
    return e != 0;
}

bool cpuid_table_write(struct perch_cpu *cpu, uint32_t leaf, uint32_t subleaf,
                       const uint32_t reg[4])
{
    struct perch_cpuid_entry *e = find(cpu, leaf, subleaf);

    if (!e) {
        if (cpu->nr_entries >= PERCH_CPUID_ENTRIES)
            return false;
        e = &cpu->entries[cpu->nr_entries++];
        e->leaf = leaf;
        e->subleaf = cpuid_leaf_has_subleaves(leaf) ? subleaf : 0;
    }
    for (int i = 0; i < 4; i++)
        e->reg[i] = reg[i];
    return true;
}
