/* The CPU perch describes to the Host: read, parsed, merged, written (see
 * cpu_profile.h). */
#include "cpu_profile.h"

#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/cpuid_table.h"
#include "../base/file.h"
#include "../base/status.h"

#define MSR_UCODE_REV   0x8bu
#define MSR_MISC_ENABLE 0x1a0u
#define MISC_ENABLE_FAST_STRING 1ull
#define PROFILE_MAX_BYTES (1u << 20)

/* ---- Reading the machine ---------------------------------------------------- */

static bool add_leaf(struct perch_cpu *cpu, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
    __cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
    return cpuid_table_write(cpu, leaf, subleaf, r);
}

/* How many subleaves of leaf to record: until the CPU says there are no
 * more, where it has a way to say so. */
static bool add_subleaves(struct perch_cpu *cpu, uint32_t leaf)
{
    uint32_t r[4];
    bool ok = add_leaf(cpu, leaf, 0, r);
    uint32_t last = leaf == 7 ? r[0] : 1;

    switch (leaf) {
    case 0x4: case 0x8000001d:            /* caches, until type 0 */
        for (uint32_t s = 1; ok && (r[0] & 0x1f) && s < 16; s++)
            ok = add_leaf(cpu, leaf, s, r);
        return ok;
    case 0xb: case 0x1f:                  /* topology, until level type 0 */
        for (uint32_t s = 1; ok && (r[2] & 0xff00) && s < 8; s++)
            ok = add_leaf(cpu, leaf, s, r);
        return ok;
    case 0xd:                             /* XSAVE: 1, and each component */
        ok = ok && add_leaf(cpu, leaf, 1, r);
        for (uint32_t s = 2; ok && s < 64; s++) {
            __cpuid_count(leaf, s, r[0], r[1], r[2], r[3]);
            if (r[0])
                ok = cpuid_table_write(cpu, leaf, s, r);
        }
        return ok;
    }
    for (uint32_t s = 1; ok && s <= last && s < 8; s++)
        ok = add_leaf(cpu, leaf, s, r);
    return ok;
}

static bool add_range(struct perch_cpu *cpu, uint32_t first)
{
    uint32_t r[4], max;

    __cpuid(first, r[0], r[1], r[2], r[3]);
    max = r[0] - first < 0x40 ? r[0] : first;
    for (uint32_t leaf = first; leaf <= max; leaf++) {
        bool ok = cpuid_leaf_has_subleaves(leaf) ? add_subleaves(cpu, leaf)
                                                 : add_leaf(cpu, leaf, 0, r);
        if (!ok)
            return false;
    }
    return true;
}

static uint64_t read_xcr0(const struct perch_cpu *cpu)
{
    uint32_t r[4], lo, hi;

    cpuid_table_read(cpu, 1, 0, r);
    if (!(r[2] & (1u << 27)))             /* OSXSAVE: xgetbv is there */
        return 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

/* The first "microcode : 0x..." line of /proc/cpuinfo; 0 if none. */
static uint64_t read_ucode_rev(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    uint64_t rev = 0;

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (!strncmp(line, "microcode", 9) && strchr(line, ':')) {
            rev = strtoull(strchr(line, ':') + 1, NULL, 0);
            break;
        }
    fclose(f);
    return rev;
}

static uint64_t read_misc_enable(void)
{
    uint64_t v = MISC_ENABLE_FAST_STRING;
    int fd = open("/dev/cpu/0/msr", O_RDONLY | O_CLOEXEC);

    if (fd >= 0) {
        if (pread(fd, &v, sizeof(v), MSR_MISC_ENABLE) != (ssize_t)sizeof(v))
            v = MISC_ENABLE_FAST_STRING;
        close(fd);
    }
    return v;
}

/* Run on the first CPU this process may use while it reads CPUID: the
 * APIC IDs differ from CPU to CPU, and a profile is one CPU's. Returns
 * whether the old set was saved (to give back); where the kernel refuses,
 * the reading goes on wherever it runs. */
static bool pin_to_one_cpu(cpu_set_t *old)
{
    cpu_set_t one;

    if (sched_getaffinity(0, sizeof(*old), old))
        return false;
    CPU_ZERO(&one);
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, old)) {
            CPU_SET(i, &one);
            break;
        }
    return sched_setaffinity(0, sizeof(one), &one) == 0;
}

int cpu_profile_read_host(struct perch_cpu *cpu, struct error *e)
{
    uint32_t r[4];
    cpu_set_t old;
    bool pinned = pin_to_one_cpu(&old);
    bool all_read;

    memset(cpu, 0, sizeof(*cpu));
    all_read = add_range(cpu, 0) && add_range(cpu, 0x80000000u);
    if (pinned)
        sched_setaffinity(0, sizeof(old), &old);
    if (!all_read)
        return fail(e, "this CPU has more CPUID leaves than perch records (%u)",
                    PERCH_CPUID_ENTRIES);
    cpu->xcr0 = read_xcr0(cpu);
    cpu->ucode_rev = read_ucode_rev();
    /* MISC_ENABLE is Intel's; elsewhere no profile needs it. */
    cpuid_table_read(cpu, 0, 0, r);
    cpu->misc_enable = r[1] == 0x756e6547u ? read_misc_enable() : 0;   /* "Genu" */
    return 0;
}

/* ---- The profile format ------------------------------------------------------- */

static bool blank(const char *s)
{
    return s[strspn(s, " \t\r")] == '\0';
}

/* One line; 1 to go on, 0 at "CPU 1:" (the end of CPU 0), -1 if wrong. */
static int parse_line(char *line, struct perch_cpu *cpu, const char **why)
{
    uint32_t leaf, sub, r[4], msr;
    uint64_t value;
    unsigned cpu_no;
    int used = 0;

    if (line[0] == '#' || blank(line))
        return 1;
    if (sscanf(line, "CPU %u:%n", &cpu_no, &used) == 1 && used && blank(line + used))
        return cpu_no == 0 ? 1 : 0;
    if (sscanf(line, " 0x%" SCNx32 " 0x%" SCNx32 ": eax=0x%" SCNx32 " ebx=0x%" SCNx32
               " ecx=0x%" SCNx32 " edx=0x%" SCNx32 "%n",
               &leaf, &sub, &r[0], &r[1], &r[2], &r[3], &used) == 6 && blank(line + used)) {
        if (!cpuid_leaf_has_subleaves(leaf) && sub != 0)
            return *why = "a subleaf of a leaf that has none", -1;
        if (!cpuid_table_write(cpu, leaf, sub, r))
            return *why = "more CPUID leaves than perch takes", -1;
        return 1;
    }
    if (sscanf(line, "xcr0=0x%" SCNx64 "%n", &value, &used) == 1 && blank(line + used))
        return cpu->xcr0 = value, 1;
    if (sscanf(line, "msr 0x%" SCNx32 "=0x%" SCNx64 "%n", &msr, &value, &used) == 2 &&
        blank(line + used)) {
        if (msr == MSR_UCODE_REV)
            return cpu->ucode_rev = value, 1;
        if (msr == MSR_MISC_ENABLE)
            return cpu->misc_enable = value, 1;
        return *why = "an MSR perch takes no value for (only 0x8b and 0x1a0)", -1;
    }
    return *why = "not a CPUID leaf, xcr0= or msr line", -1;
}

int cpu_profile_parse(const char *text, size_t len, struct perch_cpu *cpu,
                      struct error *e)
{
    unsigned line_no = 0;
    size_t at = 0;

    memset(cpu, 0, sizeof(*cpu));
    while (at < len) {
        const char *end = memchr(text + at, '\n', len - at), *why = "";
        size_t n = (end ? (size_t)(end - text) : len) - at;
        char line[256];
        int rc;

        line_no++;
        if (n >= sizeof(line) || memchr(text + at, '\0', n))
            return fail(e, "line %u: too long, or not text", line_no);
        memcpy(line, text + at, n);
        line[n] = '\0';
        at += n + 1;
        rc = parse_line(line, cpu, &why);
        if (rc < 0)
            return fail(e, "line %u: %s", line_no, why);
        if (rc == 0)
            break;
    }
    if (!cpuid_table_read(cpu, 0, 0, (uint32_t[4]){ 0 }) ||
        !cpuid_table_read(cpu, 1, 0, (uint32_t[4]){ 0 }))
        return fail(e, "no CPUID leaves 0 and 1: not a CPU profile");
    return 0;
}

int cpu_profile_load(const char *path, struct perch_cpu *cpu, struct error *e)
{
    struct file_data f;
    struct error inner;
    int rc;

    if (file_read_all(path, &f, e))
        return -1;
    if (f.size > PROFILE_MAX_BYTES)
        rc = fail(&inner, "larger than a CPU profile can be (%u bytes)", PROFILE_MAX_BYTES);
    else
        rc = cpu_profile_parse((const char *)f.bytes, f.size, cpu, &inner);
    file_release(&f);
    return rc ? fail(e, "CPU profile %s: %s", path, inner.msg) : 0;
}

void cpu_profile_write(FILE *f, const struct perch_cpu *cpu, const char *comment)
{
    fprintf(f, "# %s\nCPU 0:\n", comment);
    for (uint32_t i = 0; i < cpu->nr_entries && i < PERCH_CPUID_ENTRIES; i++) {
        const struct perch_cpuid_entry *c = &cpu->entries[i];

        fprintf(f, "   0x%08" PRIx32 " 0x%02" PRIx32 ": eax=0x%08" PRIx32 " ebx=0x%08" PRIx32
                " ecx=0x%08" PRIx32 " edx=0x%08" PRIx32 "\n",
                c->leaf, c->subleaf, c->reg[0], c->reg[1], c->reg[2], c->reg[3]);
    }
    fprintf(f, "xcr0=0x%" PRIx64 "\n", cpu->xcr0);
    fprintf(f, "msr 0x%x=0x%" PRIx64 "\n", MSR_UCODE_REV, cpu->ucode_rev);
    fprintf(f, "msr 0x%x=0x%" PRIx64 "\n", MSR_MISC_ENABLE, cpu->misc_enable);
}

/* ---- Replaying a profile on this CPU ------------------------------------------ */

/* The registers that hold feature bits: a bit survives only where the
 * real CPU has it too. */
static const struct { uint32_t leaf, subleaf; uint8_t reg; } feature_words[] = {
    { 1, 0, 2 }, { 1, 0, 3 },
    { 7, 0, 1 }, { 7, 0, 2 }, { 7, 0, 3 },
    { 7, 1, 0 }, { 7, 1, 1 }, { 7, 1, 2 }, { 7, 1, 3 }, { 7, 2, 3 },
    { 0xd, 1, 0 },
    { 0x80000001, 0, 2 }, { 0x80000001, 0, 3 },
    { 0x80000007, 0, 3 }, { 0x80000008, 0, 1 }, { 0x80000021, 0, 0 },
};

static void and_features(const struct perch_cpu *real, struct perch_cpu *out)
{
    for (size_t i = 0; i < sizeof(feature_words) / sizeof(feature_words[0]); i++) {
        uint32_t mine[4], theirs[4];

        if (!cpuid_table_read(out, feature_words[i].leaf, feature_words[i].subleaf, mine))
            continue;
        cpuid_table_read(real, feature_words[i].leaf, feature_words[i].subleaf, theirs);
        mine[feature_words[i].reg] &= theirs[feature_words[i].reg];
        cpuid_table_write(out, feature_words[i].leaf, feature_words[i].subleaf, mine);
    }
}

int cpu_profile_covers(const struct perch_cpu *machine, const struct perch_cpu *promised,
                       struct error *e)
{
    static const char *const regs[] = { "eax", "ebx", "ecx", "edx" };

    for (size_t i = 0; i < sizeof(feature_words) / sizeof(feature_words[0]); i++) {
        uint32_t need[4], have[4] = { 0 }, missing;
        uint8_t reg = feature_words[i].reg;

        if (!cpuid_table_read(promised, feature_words[i].leaf, feature_words[i].subleaf, need))
            continue;
        cpuid_table_read(machine, feature_words[i].leaf, feature_words[i].subleaf, have);
        missing = need[reg] & ~have[reg];
        if (missing)
            return fail(e, "this CPU lacks features the guest was shown (CPUID leaf %#x.%u "
                        "%s bits %#x)", feature_words[i].leaf, feature_words[i].subleaf,
                        regs[reg], missing);
    }
    if (promised->xcr0 & ~machine->xcr0)
        return fail(e, "this CPU lacks state components the guest saves (XCR0 bits %#llx)",
                    (unsigned long long)(promised->xcr0 & ~machine->xcr0));
    return 0;
}

void cpu_profile_merge(const struct perch_cpu *real, const struct perch_cpu *profile,
                       struct perch_cpu *out)
{
    uint32_t xsave_ext[4];
    bool had_ext;

    memset(out, 0, sizeof(*out));
    had_ext = cpuid_table_read(profile, 0xd, 1, xsave_ext);
    for (uint32_t i = 0; i < profile->nr_entries && i < PERCH_CPUID_ENTRIES; i++)
        if (profile->entries[i].leaf != 0xd)
            cpuid_table_write(out, profile->entries[i].leaf, profile->entries[i].subleaf,
                              profile->entries[i].reg);
    for (uint32_t i = 0; i < real->nr_entries && i < PERCH_CPUID_ENTRIES; i++)
        if (real->entries[i].leaf == 0xd)
            cpuid_table_write(out, 0xd, real->entries[i].subleaf, real->entries[i].reg);
    if (!had_ext)
        cpuid_table_write(out, 0xd, 1, (uint32_t[4]){ 0 });
    and_features(real, out);
    if (had_ext) {
        uint32_t r[4];

        cpuid_table_read(out, 0xd, 1, r);
        r[0] &= xsave_ext[0];
        cpuid_table_write(out, 0xd, 1, r);
    }
    out->xcr0 = real->xcr0;
    out->ucode_rev = profile->ucode_rev;
    out->misc_enable = profile->misc_enable;
}

/* ---- perch cpu record ------------------------------------------------------------ */

static int record(const char *path, struct error *e)
{
    struct perch_cpu cpu;
    FILE *f = stdout;
    int fd;

    if (cpu_profile_read_host(&cpu, e))
        return STATUS_ERROR;
    if (path) {
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 || !(f = fdopen(fd, "w"))) {
            fail(e, "cannot create %s: %s", path, strerror(errno));
            if (fd >= 0)
                close(fd);
            return STATUS_ERROR;
        }
    }
    cpu_profile_write(f, &cpu, "perch CPU profile of this machine, by `perch cpu record`");
    if ((path ? fclose(f) : fflush(f)) != 0)
        return fail(e, "writing %s: %s", path ? path : "standard output",
                    strerror(errno)), STATUS_ERROR;
    return 0;
}

int cpu_main(int argc, char **argv, struct error *e)
{
    if (argc < 1 || strcmp(argv[0], "record"))
        return fail(e, "perch cpu: %s (perch cpu record [FILE]; try 'perch --help')",
                    argc < 1 ? "no subcommand given" : "unknown subcommand"), STATUS_USAGE;
    if (argc > 2)
        return fail(e, "perch cpu record takes one FILE at most (try 'perch --help')"),
               STATUS_USAGE;
    return record(argc == 2 ? argv[1] : NULL, e);
}

int cpu_profile_for_guest(const char *profile_path, struct perch_cpu *out, struct error *e)
{
    struct perch_cpu real, profile;

    if (cpu_profile_read_host(profile_path ? &real : out, e))
        return -1;
    if (!profile_path)
        return 0;
    if (cpu_profile_load(profile_path, &profile, e))
        return -1;
    cpu_profile_merge(&real, &profile, out);
    return 0;
}
