/*
 * privileged: what a PV kernel running at CPL3 gets from the Host for the
 * privileged things it still does, checked one by one:
 *
 *   - Xen's forced-emulation CPUID (ud2; "xen"; cpuid): the Xen leaves and
 *     the PV policy (hypervisor bit set, PSE and PGE hidden);
 *   - wrmsr/rdmsr of the segment-base MSRs, and #GP for an unknown MSR;
 *   - port I/O: #GP without I/O privilege, all-ones reads after set_iopl;
 *   - CR0.TS as fpu_taskswitch leaves it; CR4 writes filtered;
 *   - set_segment_base for FS and the kernel's GS;
 *   - update_descriptor and set_gdt with Xen's descriptor checks: code and
 *     data descriptors raised to DPL 3, system descriptors refused, and a
 *     data segment of the guest's own GDT that can then be loaded.
 */
#include "../../abi/xen/physdev.h"
#include "rt.h"

const char guest_name[] = "privileged";

#define MSR_FS_BASE        0xc0000100u
#define MSR_GS_BASE        0xc0000101u


extern char gp_trap[];
extern volatile uint64_t gp_count, gp_error;

static uint64_t gdt_frame[512] __attribute__((aligned(4096)));

static void forced_cpuid(uint32_t leaf, uint32_t out[4])
{
    __asm__ volatile("ud2; .ascii \"xen\"; cpuid"
                     : "=a"(out[0]), "=b"(out[1]), "=c"(out[2]), "=d"(out[3])
                     : "a"(leaf), "c"(0));
}

static void check_cpuid(void)
{
    uint32_t r[4];
    char sig[13];

    forced_cpuid(0x40000000, r);
    __builtin_memcpy(sig, &r[1], 4);
    __builtin_memcpy(sig + 4, &r[2], 4);
    __builtin_memcpy(sig + 8, &r[3], 4);
    sig[12] = 0;
    check("cpuid_xen_signature", !strcmp(sig, "XenVMMXenVMM"), "got \"%s\"", sig);
    forced_cpuid(0x40000001, r);
    check_eq("cpuid_xen_version", r[0], (4 << 16) | 17);
    forced_cpuid(1, r);
    check("cpuid_hypervisor_bit", r[2] & (1u << 31), "ecx %#x", r[2]);
    check("cpuid_pse_pge_hidden", !(r[3] & ((1u << 3) | (1u << 13))), "edx %#x", r[3]);
}

static uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;

    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return (uint64_t)hi << 32 | lo;
}

static void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ volatile("wrmsr" :: "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static uint64_t rdgsbase(void)
{
    uint64_t v;

    __asm__ volatile("rdgsbase %0" : "=r"(v));
    return v;
}

static uint64_t rdfsbase(void)
{
    uint64_t v;

    __asm__ volatile("rdfsbase %0" : "=r"(v));
    return v;
}

static void check_msrs(void)
{
    uint64_t before = gp_count;

    wrmsr(MSR_GS_BASE, 0xffffffff81234000ull);
    check_eq("wrmsr_gs_base_loads_gs", (long)rdgsbase(), (long)0xffffffff81234000ull);
    check_eq("rdmsr_gs_base", (long)rdmsr(MSR_GS_BASE), (long)0xffffffff81234000ull);
    (void)rdmsr(0x12345);
    check_eq("rdmsr_unknown_gp", (long)(gp_count - before), 1);
    wrmsr(0x12345, 1);
    check_eq("wrmsr_unknown_gp", (long)(gp_count - before), 2);
}

static void check_segment_bases(void)
{
    check_eq("set_fs_base", hypercall2(HYPERVISOR_set_segment_base, SEGBASE_FS, 0x7f0000001000), 0);
    check_eq("fs_base_loaded", (long)rdfsbase(), 0x7f0000001000);
    check_eq("set_gs_kernel_base", hypercall2(HYPERVISOR_set_segment_base, SEGBASE_GS_KERNEL,
                                              0xffffffff82000000ull), 0);
    check_eq("gs_kernel_base_loaded", (long)rdgsbase(), (long)0xffffffff82000000ull);
    check_eq("non_canonical_base_refused",
             hypercall2(HYPERVISOR_set_segment_base, SEGBASE_FS, 0x0000800000000000ull),
             -XEN_EINVAL);
}

static void check_ports(void)
{
    uint64_t before = gp_count;
    uint32_t iopl = 1;
    uint8_t v;

    __asm__ volatile("inb $0x80, %0" : "=a"(v));
    check_eq("in_without_iopl_gp", (long)(gp_count - before), 1);
    check_eq("set_iopl", hypercall2(HYPERVISOR_physdev_op, PHYSDEVOP_set_iopl,
                                    (unsigned long)&iopl), 0);
    v = 0;
    __asm__ volatile("inb $0x80, %0" : "=a"(v));
    check_eq("in_reads_all_ones", v, 0xff);
    __asm__ volatile("outb %0, $0x80" :: "a"((uint8_t)1));
    check_eq("out_dropped_no_gp", (long)(gp_count - before), 1);
}

static void check_control_registers(void)
{
    uint64_t cr0;

    hypercall1(HYPERVISOR_fpu_taskswitch, 1);
    __asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
    check("cr0_ts_after_fpu_taskswitch", cr0 & 8, "cr0 %#lx", (unsigned long)cr0);
    hypercall1(HYPERVISOR_fpu_taskswitch, 0);
    __asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
    check("cr0_ts_cleared", !(cr0 & 8), "cr0 %#lx", (unsigned long)cr0);
}

static uint64_t maddr_of(const void *va, const struct start_info *si)
{
    uint64_t pfn = ((uint64_t)va - RT_VIRT_BASE) >> 12;

    return ((const uint64_t *)si->mfn_list)[pfn] << 12 | ((uint64_t)va & 0xfff);
}

/* A flat 4 GiB data segment, DPL 0: the check must make it DPL 3. */
#define DATA_DPL0  0x00cf93000000ffffull
#define TSS_DESC   0x00008b000000ffffull   /* a 64-bit TSS: refused */
#define INT_GATE   0x00008e0000000000ull   /* an interrupt gate: refused */

static void check_descriptors(const struct start_info *si)
{
    uint64_t slot = maddr_of(&gdt_frame[6], si), frame_mfn = maddr_of(gdt_frame, si) >> 12;
    uint16_t sel = 6 * 8 | 3;

    check_eq("update_descriptor_data", hypercall2(HYPERVISOR_update_descriptor, slot, DATA_DPL0), 0);
    check("data_descriptor_raised_to_dpl3", gdt_frame[6] == (DATA_DPL0 | (3ull << 45)),
          "stored %#lx", (unsigned long)gdt_frame[6]);
    check_eq("update_descriptor_tss_refused",
             hypercall2(HYPERVISOR_update_descriptor, maddr_of(&gdt_frame[7], si), TSS_DESC), -XEN_EINVAL);
    check_eq("update_descriptor_gate_refused",
             hypercall2(HYPERVISOR_update_descriptor, maddr_of(&gdt_frame[7], si), INT_GATE), -XEN_EINVAL);
    check_eq("update_descriptor_unaligned_refused",
             hypercall2(HYPERVISOR_update_descriptor, slot + 4, DATA_DPL0), -XEN_EINVAL);
    check_eq("set_gdt_too_many_entries",
             hypercall2(HYPERVISOR_set_gdt, (unsigned long)&frame_mfn, 14 * 512 + 1), -XEN_EINVAL);
    check_eq("set_gdt", hypercall2(HYPERVISOR_set_gdt, (unsigned long)&frame_mfn, 512), 0);
    __asm__ volatile("mov %0, %%ds; mov %%ds, %%ax; xor %%eax, %%eax; mov %%eax, %%ds"
                     :: "r"((uint32_t)sel) : "rax", "memory");
    test_pass("guest_gdt_segment_loads");
    gdt_frame[8] = INT_GATE;   /* directly: the frame is ours, not yet checked */
    check_eq("set_gdt_with_gate_refused",
             hypercall2(HYPERVISOR_set_gdt, (unsigned long)&frame_mfn, 512), -XEN_EINVAL);
}

void guest_main(const struct start_info *si)
{
    static const struct trap_info traps[] = {
        { .vector = 13, .flags = 0, .cs = FLAT_KERNEL_CS64, .address = (uint64_t)gp_trap },
        { .address = 0 },   /* the end */
    };

    check_eq("set_trap_table", hypercall1(HYPERVISOR_set_trap_table, (unsigned long)traps), 0);
    check_cpuid();
    check_msrs();
    check_segment_bases();
    check_ports();
    check_control_registers();
    check_descriptors(si);
    printk("privileged: %u passed, %u failed\n", tests_passed, tests_failed);
}
