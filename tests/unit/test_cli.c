/*
 * Unit tests of perch run's --cpus N and QEMU's spelling -smp N, and of
 * --mem as QEMU's -m spells sizes (512M, 2G, 1.5G)
 * (launcher/run/cli.c): the count lands in struct options (1 by default),
 * wherever the option stands, and a -smp that is another option's value is
 * left as the user wrote it. tests/cli/usage.sh checks the messages.
 */
#include <string.h>

#include "check.h"

#include "../../launcher/run/cli.h"

static struct options o;
static struct error e;
/* The words outlive the parse: o.kernel and o.cmd point into them. */
static char *words[16];

/* perch run WORDS...: cli_parse's return. */
#define PARSE(...)                                                         \
    ({                                                                     \
        char *w_[] = { "perch", "run", __VA_ARGS__ };                      \
        memcpy(words, w_, sizeof(w_));                                     \
        words[sizeof(w_) / sizeof(w_[0])] = NULL;                          \
        e.msg[0] = '\0';                                                   \
        cli_parse(sizeof(w_) / sizeof(w_[0]), words, &o, &e);              \
    })

static void one_vcpu_by_default(void)
{
    CHECK(PARSE("k.elf") == 0);
    CHECK(o.command == CMD_RUN && o.cpus == 1);
}

static void cpus_is_stored(void)
{
    CHECK(PARSE("--cpus", "4", "k.elf") == 0);
    CHECK(o.cpus == 4 && !strcmp(o.kernel, "k.elf"));
    CHECK(PARSE("--cpus=64", "k.elf") == 0);
    CHECK(o.cpus == MAX_CPUS);
    CHECK(PARSE("--cpus", "1") == 0);
    CHECK(o.cpus == 1 && !o.kernel);
}

/* -smp before and after KERNEL (getopt moves KERNEL, not the option). */
static void smp_is_cpus(void)
{
    CHECK(PARSE("-smp", "3", "k.elf") == 0);
    CHECK(o.cpus == 3 && !strcmp(o.kernel, "k.elf"));
    CHECK(PARSE("k.elf", "-smp", "7", "--mem", "64") == 0);
    CHECK(o.cpus == 7 && o.mem_mib == 64 && !strcmp(o.kernel, "k.elf"));
    CHECK(PARSE("--smp", "2") == 0);
    CHECK(o.cpus == 2);
}

/* QEMU's -m spellings: MiB, or M or G with a fraction that stays whole. */
static void mem_as_qemu_spells_it(void)
{
    static const struct { const char *arg; uint64_t mib; } good[] = {
        { "256", 256 }, { "512M", 512 }, { "512m", 512 }, { "2G", 2048 },
        { "1.5G", 1536 }, { "1.5g", 1536 }, { "3.5G", 3584 }, { "0.25G", 256 },
        { "3584M", 3584 }, { "1.0M", 1 }, { "4G", 4096 }, { "16G", 16384 },
        { "64G", 65536 },
    };
    static const char *const bad[] = {
        "0", "0M", "-1", "1.5", "1.0001G", "1.25M", "2.G", ".5G", "65G", "64.5G",
        "65537", "99999999", "1G5", "1.5GB", "12x", "",
    };

    for (unsigned i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        CHECK(PARSE("-m", (char *)good[i].arg, "k.elf") == 0);
        CHECK(o.mem_mib == good[i].mib);
    }
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK(PARSE("-m", (char *)bad[i], "k.elf") == -1);
        CHECK(strstr(e.msg, "--mem") != NULL);
    }
}

/* A -smp where a value is due is the value; the next -smp is the option. */
static void smp_as_a_value_stays(void)
{
    CHECK(PARSE("--cmdline", "-smp", "-smp", "5", "k.elf") == 0);
    CHECK(!strcmp(o.cmdline, "-smp") && o.cpus == 5);
    CHECK(PARSE("--cmd", "-smp", "k.elf") == 0);   /* --cmdline abbreviated */
    CHECK(!strcmp(o.cmdline, "-smp") && o.cpus == 1);
    CHECK(PARSE("--kernel=k.elf", "-smp", "2") == 0);
    CHECK(!strcmp(o.kernel, "k.elf") && o.cpus == 2);
}

/* After --, -smp is the guest command's. */
static void smp_after_dashdash_is_the_commands(void)
{
    CHECK(PARSE("k.elf", "--", "qemu", "-smp", "2") == 0);
    CHECK(o.cpus == 1 && o.cmd_argc == 3 && !strcmp(o.cmd[1], "-smp"));
}

static void bad_counts_are_refused(void)
{
    CHECK(PARSE("--cpus", "0", "k.elf") == -1);
    CHECK_CONTAINS(e.msg, "--cpus must be at least 1 vCPU");
    CHECK(PARSE("-smp", "65", "k.elf") == -1);
    CHECK_CONTAINS(e.msg, "-smp 65 is too many vCPUs (at most 64)");
    CHECK(PARSE("--cpus", "4294967297", "k.elf") == -1);   /* 2^32 + 1 */
    CHECK_CONTAINS(e.msg, "too many vCPUs");
    CHECK(PARSE("--cpus", "2 ", "k.elf") == -1);
    CHECK_CONTAINS(e.msg, "not a number of vCPUs");
    CHECK(PARSE("--cpus", "2", "-smp", "2", "k.elf") == -1);
    CHECK_CONTAINS(e.msg, "option --cpus given twice (as --cpus and -smp)");
}

static void parse_cpus_alone(void)
{
    unsigned n = 9;

    CHECK(cli_parse_cpus("12", "--cpus", &n, &e) == 0 && n == 12);
    CHECK(cli_parse_cpus("", "--cpus", &n, &e) == -1 && n == 12);
    CHECK_CONTAINS(e.msg, "--cpus needs a number of vCPUs (1 to 64)");
}

int main(void)
{
    RUN(one_vcpu_by_default);
    RUN(cpus_is_stored);
    RUN(smp_is_cpus);
    RUN(mem_as_qemu_spells_it);
    RUN(smp_as_a_value_stays);
    RUN(smp_after_dashdash_is_the_commands);
    RUN(bad_counts_are_refused);
    RUN(parse_cpus_alone);
    return check_exit_status();
}
