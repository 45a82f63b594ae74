/* perch's command line: parsing `perch run`'s options into struct options, and --help. */
#include "cli.h"

#include "../../abi/layout.h"
#include "../boot/linux_cmdline.h"
#include "../control/control.h"
#include "../gdb/gdb.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_print_help(void)
{
    printf(
"usage: perch run [OPTIONS] [KERNEL] [-- CMD [ARGS...]]\n"
"       perch bench [--quick] [--qemu] [--uml] [--cpus N] [--vs \"OPTIONS\"]\n"
"                   [--out DIR] [BENCH...]\n"
"       perch bench --seeds [--quick] [--qemu] [--uml] [--out DIR]\n"
"       perch image debian FILE [--size SIZE] [--force]\n"
"       perch cpu record [FILE]\n"
"       perch list\n"
"       perch shutdown [--wait] GUEST\n"
"       perch mem-set GUEST SIZE\n"
"       perch save [--leave-running] GUEST FILE\n"
"       perch restore [--name NAME] [--disk FILE[,ro]]... [--net VALUE]\n"
"                     [--stats] [--no-sandbox] FILE\n"
"       perch -h | --help | --version\n"
"\n"
"perch boots a Xen-PV-capable kernel as a paravirtual guest on /dev/kvm,\n"
"with the guest kernel and its processes at CPL3 (as in 64-bit Xen PV).\n"
"\n"
"With no KERNEL, perch boots Debian's cloud kernel, fetched once with apt\n"
"(with busybox-static) into $XDG_CACHE_HOME/perch or ~/.cache/perch.\n"
"A Linux kernel gets perch's own initramfs unless --initrd is given: a\n"
"shell on the console (exit or Ctrl-D powers the guest off), or with\n"
"-- CMD ARGS, just that command.\n"
"\n"
"run options:\n"
"  KERNEL, --kernel FILE  ELF64 kernel with Xen PV ELF notes\n"
"  -- CMD [ARGS...]       run CMD in the guest instead of a shell (PATH is\n"
"                         /bin:/sbin:/usr/bin:/usr/sbin) and exit with its\n"
"                         status; everything after -- belongs to CMD\n"
"  -m, --mem SIZE         guest memory: MiB, or as QEMU's -m with M or G\n"
"                         (512M, 2G, 1.5G); default %d, at most %d MiB and\n"
"                         no more than the host has\n"
"  --cpus N, -smp N       guest vCPUs, each on its own host thread (1 to %d,\n"
"                         default 1; -smp, or --smp, is QEMU's spelling).\n"
"                         More vCPUs than the host's cores is allowed: they\n"
"                         then share them (a note on stderr says so)\n"
"  --initrd FILE          initial ramdisk handed to the guest instead of\n"
"                         perch's own (so not with -- CMD)\n"
"  --cmdline STRING       guest kernel command line (default for a Linux\n"
"                         kernel: \"" LINUX_CMDLINE "\"; the second\n"
"                         spares a one-CPU boot 8.9k text pokes of two\n"
"                         ring-0 visits each, see docs/bench.md)\n"
"  --disk FILE[,ro]       attach a raw disk image as xvda, the next as xvdb,\n"
"                         ... (at most %d; ,ro: read-only); repeatable\n"
"  --root DEV             boot from a disk: perch's initramfs loads the disk\n"
"                         driver, mounts DEV (e.g. /dev/xvda or /dev/xvda1)\n"
"                         and runs its /sbin/init; with -- CMD, CMD runs once\n"
"                         the system is up\n"
"  --net user[,hostfwd=tcp::HOSTPORT-:GUESTPORT]...\n"
"                         a network card (eth0; perch's initramfs brings it\n"
"                         up by DHCP) on user-mode networking: the guest is\n"
"                         10.0.2.15 behind NAT to the host's own sockets\n"
"                         (gateway 10.0.2.2, which is also the host's\n"
"                         127.0.0.1; DNS 10.0.2.3, the host's resolver); no\n"
"                         root needed. Each hostfwd listens on 127.0.0.1:\n"
"                         HOSTPORT only (tcp:127.0.0.1:... is the same; no\n"
"                         other host address) and forwards to GUESTPORT;\n"
"                         udp:: forwards UDP. Nothing else listens\n"
"  --net tap=NAME         the card on the existing tap device NAME instead,\n"
"                         for a bridge the user made (needs CAP_NET_ADMIN,\n"
"                         or a tap made with ip tuntap add NAME mode tap\n"
"                         user USER)\n"
"  --cpu-profile FILE     show the guest kernel the CPU recorded in FILE (by\n"
"                         perch cpu record, on another machine): its vendor,\n"
"                         family, model, caches and MSR answers, with each\n"
"                         feature only where this CPU has it too; see\n"
"                         tests/cpus/ and docs/usage.md, \"CPUs\"\n"
"  --strict               apply Xen's page-type and reference-count rules to\n"
"                         the guest's page tables and return Xen's errors\n"
"                         (slower; for catching guest bugs)\n"
"  --no-native-return     switch an optimization off, to measure it: every\n"
"                         return to the guest kernel, hypercalls included,\n"
"                         goes through ring 0 instead of a jmp at CPL3\n"
"  --eager-flush          switch the lazy flush off: each TLB flush the guest\n"
"                         asks for costs its own ring-0 visit, instead of one\n"
"                         per batch at the next return (as lguest's lazy-flush\n"
"                         patch does)\n"
"  --no-cpl3-events       switch CPL3 events off: every exception and\n"
"                         interrupt of the guest kernel goes through ring 0,\n"
"                         instead of straight to the Host through DPL3 gates\n"
"  --no-fault-decode      read CR2 in ring 0 for every page fault that came\n"
"                         through a DPL3 gate, instead of proving its address\n"
"                         from the faulting instruction and the page tables\n"
"  --no-insn-patching     switch an optimization off: a kernel instruction\n"
"                         whose page-table store trapped keeps trapping,\n"
"                         instead of being patched, once, into a call to\n"
"                         the Host (--stats lists the patches); and a cli\n"
"                         or sti the kernel's I/O privilege makes a no-op\n"
"                         keeps trapping, instead of becoming a nop\n"
"  --trap-hypercalls      switch direct calls off: the guest kernel's\n"
"                         hypercalls and irets enter the Host by `syscall`,\n"
"                         a trap through the machine's hypervisor each,\n"
"                         instead of by a jump perch patches into Linux's\n"
"                         xen_hypercall_pv and xen_iret before it boots\n"
"                         (--stats counts the calls that came direct)\n"
"  --no-ipi-dest-cache    an IPI to another vCPU stores its destination in\n"
"                         the local APIC every time, a second trap, instead\n"
"                         of only when it differs from the last one\n"
"  --no-idle-spin         a vCPU with nothing to run sleeps at once, instead\n"
"                         of spinning up to 200 us first, during which an\n"
"                         event from another vCPU reaches it without an IPI\n"
"  --no-flush-elision     flush the TLB whenever the guest asks, even when\n"
"                         every change since the last flush was one KVM's\n"
"                         shadow paging shows without it (a new mapping, or\n"
"                         write access added)\n"
"  --small-disk-requests  switch an optimization off: perch's initramfs loads\n"
"                         xen-blkfront with Linux's defaults (at most 128 KiB\n"
"                         a request, a one-page ring) instead of asking for\n"
"                         1 MiB requests on a 16-page ring\n"
"  --no-guest-isolation   run guest processes on the guest kernel's own page\n"
"                         tables: a system call reaches the guest kernel with\n"
"                         no ring 0 at all, but guest processes can then read\n"
"                         and write guest-kernel and Host memory (the VM is\n"
"                         still the wall around the whole guest). Opt-in\n"
"  --no-sandbox           run without the seccomp sandbox that, once the\n"
"                         guest runs, confines perch's vCPU and console\n"
"                         threads to the system calls they need (status 7\n"
"                         if perch makes another one: a bug in perch)\n"
"  --gdb [127.0.0.1:]PORT serve the GDB remote protocol on 127.0.0.1:PORT\n"
"                         (only there): gdb vmlinux -ex 'target remote\n"
"                         :PORT' stops the guest kernel where it is, reads\n"
"                         and writes its registers and memory (through its\n"
"                         own page tables), sets breakpoints (Z0), steps\n"
"                         and continues; Ctrl-C stops it again, detach lets\n"
"                         it run on, kill ends perch (status 130). With\n"
"                         --cpus each vCPU is a thread (all-stop). See\n"
"                         docs/usage.md, \"gdb\"\n"
"  --gdb-wait             with --gdb: hold the guest at its first instruction\n"
"                         (the kernel's entry) until gdb lets it go on\n"
"  --name NAME            the name perch list shows and perch shutdown takes\n"
"                         (1 to 32 of A-Z a-z 0-9 . _ -, not all digits; one\n"
"                         running guest a name)\n"
"  --stats                when the guest ends, print to stderr hypercalls by\n"
"                         kind, Switcher (ring-0) visits by reason and their\n"
"                         ring-0 instructions, events the Host took at CPL3,\n"
"                         with several vCPUs each one's share and its waits\n"
"                         for the Host lock, exits to the Launcher by reason,\n"
"                         with --net the network card's frames, and the\n"
"                         traps KVM itself counted (every exit into it: page\n"
"                         faults, emulated table writes and instructions)\n"
"  --stats-cpu            when the guest ends, print to stderr every MSR the\n"
"                         guest kernel read or wrote and every CPUID leaf it\n"
"                         asked, with perch's answers (what a kernel reads on\n"
"                         this CPU or under --cpu-profile)\n"
"\n"
"The guest's consoles (the early console_io, then hvc0) are written to\n"
"standard output; perch's own messages go to standard error. Standard\n"
"input goes to hvc0; from a terminal, in raw mode (Ctrl-C reaches the\n"
"guest), with these keys for perch (only from a terminal):\n"
"  Ctrl-A x        quit perch (the guest is stopped; status 0)\n"
"  Ctrl-A Ctrl-A   send Ctrl-A to the guest\n"
"  Ctrl-A h        list these keys\n"
"\n"
"perch bench runs perchbench's benchmarks (carried in perch: BENCH is a\n"
"name, micro, work, disk, net, smp or all, the default: all groups but net\n"
"and smp) natively on one CPU and in the default guest, and prints ns per\n"
"operation (work: ms per run; disk: MB/s or IOPS, on a scratch image in\n"
"DIR; net: MB/s or round trips a second, TCP through a forwarded port on\n"
"127.0.0.1; smp: ms per run of two jobs one after the other and at once,\n"
"and how much faster at once was), the guest/native ratio, boot time to\n"
"/init and, per operation in the guest, traps (KVM's own count of exits\n"
"into it), Switcher visits, exits to the Launcher, Host hypercalls and\n"
"trapped page-table writes; --vs \"OPTIONS\" adds a guest column run with\n"
"those run options; --qemu adds a column of the same kernel, initramfs and\n"
"memory under QEMU TCG (qemu-system-x86_64; without it, a note and the\n"
"other columns) and guest/TCG; --uml adds a column of the same initramfs\n"
"and memory under User-Mode Linux on one CPU, not the net group (linux.uml,\n"
"from the user-mode-linux package; without it, a note and the other\n"
"columns) and guest/UML; --cpus N gives the guest N vCPUs (perch run\n"
"--cpus N) and TCG as many (-smp N; natively perchbench stays on one CPU);\n"
"--quick is a smoke run; writes DIR/bench.csv and bench.json (default\n"
"DIR build/bench-results). See README.md, \"Benchmarks\".\n"
"--seeds runs the experiments of the patch emails perch is built from\n"
"(lguest's lazy flush, lazy_hcalls, TLS and get_user_pages_fast patches,\n"
"Xen's direct mmu_update in xen_set_pte) with perch's switch for each off\n"
"and on, and natively, and prints each email's table in its own form\n"
"beside the email's figures, then a summary; --qemu and --uml add TCG's and\n"
"UML's figures for comparison; writes DIR/seeds.csv and seeds.json\n"
"(docs/bench.md, \"The seeds\").\n"
"\n"
"perch image debian FILE writes a Debian 12 root file system image (ext4,\n"
"sparse; --size SIZE: 4G by default, 256M to 16T, e.g. 512M) that boots to\n"
"a login prompt on the console (root, no password) with perch run --disk\n"
"FILE --root /dev/xvda, or runs -- CMD there and powers off. An existing\n"
"FILE is refused unless --force. The first run builds the root with\n"
"mmdebstrap (a few minutes; as root perch installs mmdebstrap with apt if\n"
"missing, as a user it needs user namespaces and /etc/subuid) and keeps it\n"
"as a tarball in perch's cache: later runs take seconds.\n"
"\n"
"perch cpu record [FILE] writes this machine's CPU profile (its CPUID\n"
"leaves, XCR0, microcode revision and MISC_ENABLE) to FILE, a new file,\n"
"or to standard output, for --cpu-profile on any other machine.\n"
"\n"
"perch list shows your running guests (pid, --name, vCPUs, memory, uptime,\n"
"disks); perch shutdown GUEST (its pid or --name) asks one to power off\n"
"cleanly, as xl shutdown does (xenstore's control/shutdown), and returns;\n"
"with --wait (-w), once that guest's perch has ended (at most 120 s).\n"
"perch mem-set GUEST SIZE (MiB, or 512M, 2G) sets the guest's memory target\n"
"(xenstore's memory/target, as xl mem-set): its balloon driver gives memory\n"
"back to the host or takes it again, between a floor (96 MiB + 1/64 of\n"
"its --mem, for the kernel and its page structures) and its --mem.\n"
"perch save GUEST FILE stops the guest at a consistent point and writes\n"
"it to FILE (memory that is not zero, compressed with zstd; its vCPUs,\n"
"xenstore and the Host's state), then that perch exits 0; with\n"
"--leave-running the guest goes on (a checkpoint). perch restore FILE runs\n"
"it on from there, on this machine or one whose CPU offers what the guest\n"
"was shown, with the same build of perch; its disks, flushed at the save,\n"
"are opened again at their paths (refused if changed since) unless\n"
"--disk gives others of the same sizes, in order (copies: two restores of\n"
"one file need two); its --net link anew, or restore's --net (open\n"
"connections are reset). Not under --gdb (refused,\n"
"saying so). The guest's clock goes on from where it stopped: it lags the\n"
"wall clock by the time it was saved.\n"
"Each perch run answers them on a UNIX socket in $XDG_RUNTIME_DIR/perch\n"
"(else /tmp/perch-UID), a folder only you may enter.\n"
"\n"
"exit status:\n"
"  0    the guest powered off        4    the guest reported a crash\n"
"  1    perch could not run it       5    the guest broke a rule and was stopped\n"
"  2    bad command line             6    the guest's watchdog fired\n"
"  3    the guest asked to reboot    7    perch's sandbox refused a call\n"
"                                    130  interrupted (SIGINT or SIGTERM)\n"
"Status 1 also when stdout cannot take the guest's output (closed or full).\n"
"With -- CMD, perch exits with CMD's status when the guest powers off\n"
"(128+N if signal N ended it, 127 if it was not found). Any guest may do\n"
"the same: \"\\033]perch-exit;N\\007\" (N 0-255) on its console, then\n"
"poweroff, makes perch exit with N.\n"
"For 4 and 5 the one line says where, after the guest's last output: the\n"
"rip (of a hypercall: where it returns) and, for a kernel with symbols,\n"
"its symbol and up to 8 kernel-text return addresses found on the guest\n"
"kernel's stack, named from the kernel's own kallsyms (else its ELF symbol\n"
"table, else a System.map beside KERNEL), e.g. \"perch: guest crashed\n"
"(SHUTDOWN_crash) at rip 0xffffffff8101ca70 (xen_reboot+0x60); stack:\n"
"panic+0x286 ...\".\n",
        DEFAULT_MEM_MIB, MAX_MEM_MIB, MAX_CPUS, MAX_DISKS);
}

/* Digits into *v, stopping past `limit`; returns where they end. */
static const char *digits(const char *p, uint64_t limit, uint64_t *v, unsigned *count)
{
    for (*v = 0, *count = 0; *p >= '0' && *p <= '9'; p++, (*count)++)
        if (*v <= limit)
            *v = *v * 10 + (uint64_t)(*p - '0');
    return p;
}

/*
 * QEMU's -m: a number of MiB, or a size with M or G (either case), a
 * fraction allowed where the size is still a whole number of MiB (1.5G,
 * not 1.0001G).
 */
static int parse_mem(const char *what, const char *s, uint64_t *mib, struct error *e)
{
    uint64_t whole, frac = 0, scale = 1, ten = 1, v;
    unsigned nwhole, nfrac = 0;
    bool dot, unit = true;
    const char *p = digits(s, MAX_MEM_MIB, &whole, &nwhole);

    if (!*s)
        return fail(e, "%s needs a number of MiB", what);
    dot = *p == '.';
    if (dot)
        p = digits(p + 1, UINT64_MAX / 100, &frac, &nfrac);
    if (*p == 'G' || *p == 'g')
        scale = 1024;
    else if (*p != 'M' && *p != 'm')
        unit = false;
    p += unit;
    /* a fraction only of a size with its unit, as 1.5G */
    if (!nwhole || *p || (dot && (!nfrac || nfrac > 9 || !unit)))
        return fail(e, "%s '%s' is not a number of MiB or a size like 512M, 2G or 1.5G",
                    what, s);
    for (unsigned i = 0; i < nfrac; i++)
        ten *= 10;
    if (frac * scale % ten)
        return fail(e, "%s %s is not a whole number of MiB", what, s);
    v = whole > MAX_MEM_MIB ? UINT64_MAX : whole * scale + frac * scale / ten;
    if (v == 0)
        return fail(e, "%s must be at least 1 MiB", what);
    if (v > MAX_MEM_MIB)
        return fail(e, "%s %s is too large (at most %d MiB)", what, s, MAX_MEM_MIB);
    *mib = v;
    return 0;
}

int cli_parse_cpus(const char *s, const char *name, unsigned *cpus,
                   struct error *e)
{
    unsigned v = 0;

    if (!*s)
        return fail(e, "%s needs a number of vCPUs (1 to %d)", name, MAX_CPUS);
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return fail(e, "%s '%s' is not a number of vCPUs (1 to %d)", name,
                        s, MAX_CPUS);
        v = v * 10 + (*p - '0');
        if (v > MAX_CPUS)
            return fail(e, "%s %s is too many vCPUs (at most %d)", name, s,
                        MAX_CPUS);
    }
    if (v == 0)
        return fail(e, "%s must be at least 1 vCPU", name);
    *cpus = v;
    return 0;
}

void cli_note_cpus(const struct options *o)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    if (cores > 0 && o->cpus > (unsigned long)cores)
        fprintf(stderr, "perch: note: %u vCPUs on %ld host core%s: they will "
                        "share them\n", o->cpus, cores, cores == 1 ? "" : "s");
}

/* FILE or FILE,ro: the flag after the last comma, so a name may hold
 * commas as long as it then ends in ",ro". */
/* --name NAME, for perch run and perch restore. */
static int take_name(const char *name, struct options *o, struct error *e)
{
    if (!control_name_ok(name))
        return fail(e, "--name '%s' is not 1 to %d letters, digits, '.', '_' "
                       "or '-' (and not all digits)", name, CONTROL_NAME_MAX);
    o->name = name;
    return 0;
}

static int parse_disk(const char *s, struct options *o, struct error *e)
{
    const char *comma = strrchr(s, ',');
    struct disk_option *d = &o->disks[o->nr_disks];

    if (o->nr_disks == MAX_DISKS)
        return fail(e, "at most %d --disk options (xvda to xvd%c)", MAX_DISKS,
                    'a' + MAX_DISKS - 1);
    if (comma && strcmp(comma + 1, "ro"))
        return fail(e, "--disk '%s': unknown flag '%s' (FILE or FILE,ro)", s, comma + 1);
    d->readonly = comma != NULL;
    d->path = comma ? strndup(s, comma - s) : s;
    if (!d->path)
        return fail(e, "out of memory");
    if (!d->path[0])
        return fail(e, "--disk needs a file name");
    o->nr_disks++;
    return 0;
}

/* getopt has passed a long option's word when it complains, but may still be
 * inside a word of grouped short options: then only optopt names it. */
static bool is_long_option(const char *word)
{
    return word[0] == '-' && word[1] == '-';
}

/* Everything after the first "--" is the guest's command: split there
 * before getopt, which would otherwise permute KERNEL and CMD together. */
static int split_command(int *argc, char **argv, struct options *o,
                         struct error *e)
{
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--"))
            continue;
        if (i + 1 == *argc)
            return fail(e, "nothing after '--': perch run [KERNEL] -- CMD [ARGS...]");
        o->cmd = argv + i + 1;
        o->cmd_argc = *argc - i - 1;
        *argc = i;
        break;
    }
    return 0;
}

/* QEMU's -smp N: one dash and a word, which getopt_long would read as -s
 * -m p. Before getopt, each -smp that is an option word (not another
 * option's value, as in --cmdline -smp) becomes this --smp, a long option
 * beside --cpus; messages spell it back as the user did. */
static const char smp_word[] = "--smp";

/* How an option is spelled: --NAME, but the -smp alias with one dash. */
static const char *dashes(const struct option *opt)
{
    return strcmp(opt->name, "smp") ? "--" : "-";
}

/* Whether word w takes the next word as its value, as getopt_long reads
 * it: a long option without '=' that is, or may abbreviate, one that takes
 * a value; or short options whose last letter takes one (-m 64, not -m64).
 * An unknown option takes nothing: getopt stops at it anyway. */
static bool takes_next_word(const struct option *longopts,
                            const char *shortopts, const char *w)
{
    bool any = false;

    if (w[0] != '-' || !w[1])
        return false;
    if (w[1] == '-') {
        size_t len = strlen(w + 2);

        if (strchr(w, '='))
            return false;
        for (const struct option *opt = longopts; opt->name; opt++) {
            if (strncmp(opt->name, w + 2, len))
                continue;
            if (!opt->name[len])
                return opt->has_arg == required_argument;
            any = any || opt->has_arg == required_argument;
        }
        return any;
    }
    for (const char *p = w + 1; *p; p++) {
        const char *s = *p == ':' ? NULL : strchr(shortopts, *p);

        if (!s)
            return false;
        if (s[1] == ':')
            return !p[1];
    }
    return false;
}

static int spell_smp(int argc, char **argv, const struct option *longopts,
                     const char *shortopts, struct error *e)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-smp"))
            argv[i] = (char *)smp_word;
        else if (!strncmp(argv[i], "-smp=", 5))
            return fail(e, "-smp takes its number as the next word, as QEMU's "
                           "does: -smp N (or --cpus=N)");
        else if (takes_next_word(longopts, shortopts, argv[i]))
            i++;
    }
    return 0;
}

/* A value option given twice is refused: last-wins would quietly drop one
 * of the user's values (--disk adds a disk each time). seen[] is indexed
 * by the option's getopt value and holds the spelling that gave it;
 * given is this spelling (NULL for a short option): --cpus and -smp are
 * one option. */
static int take_once(const struct option *longopts,
                     const struct option *seen[128], int c,
                     const struct option *given, struct error *e)
{
    const struct option *opt = longopts;

    while (opt->name && opt->val != c)
        opt++;
    if (!opt->name || opt->has_arg != required_argument || c == 'd')
        return 0;
    if (!given)
        given = opt;
    if (seen[c] && seen[c] != given)
        return fail(e, "option %s%s given twice (as %s%s and %s%s)",
                    dashes(opt), opt->name, dashes(seen[c]), seen[c]->name,
                    dashes(given), given->name);
    if (seen[c])
        return fail(e, "option %s%s given twice", dashes(given), given->name);
    seen[c] = given;
    return 0;
}

/* --root is perch's initramfs's work, on one of the disks. */
static int check_root(const struct options *o, struct error *e)
{
    if (!o->root)
        return 0;
    if (strncmp(o->root, "/dev/", 5) || !o->root[5])
        return fail(e, "--root '%s' is not a device (e.g. /dev/xvda or /dev/xvda1)", o->root);
    if (!o->nr_disks)
        return fail(e, "--root %s needs a --disk to boot from", o->root);
    if (o->initrd)
        return fail(e, "--initrd and --root cannot be used together: perch's "
                       "own initramfs mounts the root");
    return 0;
}

static int parse_run(int argc, char **argv, struct options *o, struct error *e)
{
    static const struct option longopts[] = {
        { "kernel", required_argument, NULL, 'k' },
        { "mem", required_argument, NULL, 'm' },
        { "cpus", required_argument, NULL, 'U' },
        { "smp", required_argument, NULL, 'U' },
        { "initrd", required_argument, NULL, 'i' },
        { "cmdline", required_argument, NULL, 'c' },
        { "disk", required_argument, NULL, 'd' },
        { "root", required_argument, NULL, 'r' },
        { "net", required_argument, NULL, 'n' },
        { "stats", no_argument, NULL, 's' },
        { "name", required_argument, NULL, 'A' },
        { "stats-cpu", no_argument, NULL, 'C' },
        { "strict", no_argument, NULL, 'S' },
        { "cpu-profile", required_argument, NULL, 'P' },
        { "no-native-return", no_argument, NULL, 'N' },
        { "eager-flush", no_argument, NULL, 'F' },
        { "no-ipi-dest-cache", no_argument, NULL, 'V' },
        { "no-idle-spin", no_argument, NULL, 'H' },
        { "no-cpl3-events", no_argument, NULL, 'E' },
        { "no-flush-elision", no_argument, NULL, 'L' },
        { "no-fault-decode", no_argument, NULL, 'D' },
        { "no-insn-patching", no_argument, NULL, 'T' },
        { "trap-hypercalls", no_argument, NULL, 'Y' },
        { "no-guest-isolation", no_argument, NULL, 'I' },
        { "no-sandbox", no_argument, NULL, 'Z' },
        { "small-disk-requests", no_argument, NULL, 'B' },
        { "gdb", required_argument, NULL, 'g' },
        { "gdb-wait", no_argument, NULL, 'W' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static const char shortopts[] = ":m:h";
    const struct option *seen[128] = { NULL };
    const struct option *given;
    int c, long_index;

    if (split_command(&argc, argv, o, e) ||
        spell_smp(argc, argv, longopts, shortopts, e))
        return -1;
    opterr = 0;
    optind = 1;
    for (;;) {
        long_index = -1;   /* getopt_long sets it for long options only */
        c = getopt_long(argc, argv, shortopts, longopts, &long_index);
        if (c == -1)
            break;
        given = long_index >= 0 ? &longopts[long_index] : NULL;
        if (c > 0 && c < 128 && take_once(longopts, seen, c, given, e))
            return -1;
        switch (c) {
        case 'k': o->kernel = optarg; break;
        case 'm': if (parse_mem("--mem", optarg, &o->mem_mib, e)) return -1; break;
        case 'U':
            if (cli_parse_cpus(optarg, !strcmp(given->name, "smp") ? "-smp"
                                                                   : "--cpus",
                               &o->cpus, e))
                return -1;
            break;
        case 'i': o->initrd = optarg; break;
        case 'c': o->cmdline = optarg; break;
        case 'd': if (parse_disk(optarg, o, e)) return -1; break;
        case 'r': o->root = optarg; break;
        case 'n': if (net_option_parse(optarg, &o->net, e)) return -1; break;
        case 's': o->stats = true; break;
        case 'A':
            if (take_name(optarg, o, e))
                return -1;
            break;
        case 'C': o->stats_cpu = true; break;
        case 'S': o->strict = true; break;
        case 'P': o->cpu_profile = optarg; break;
        case 'N': o->optimizations_off |= PERCH_OPT_NATIVE_RETURN; break;
        case 'F': o->optimizations_off |= PERCH_OPT_LAZY_FLUSH; break;
        case 'E': o->optimizations_off |= PERCH_OPT_CPL3_EVENTS; break;
        case 'L': o->optimizations_off |= PERCH_OPT_FLUSH_ELISION; break;
        case 'D': o->optimizations_off |= PERCH_OPT_FAULT_DECODE; break;
        case 'T': o->optimizations_off |= PERCH_OPT_INSN_PATCHING; break;
        case 'Y': o->optimizations_off |= PERCH_OPT_DIRECT_CALLS; break;
        case 'V': o->optimizations_off |= PERCH_OPT_IPI_DEST; break;
        case 'H': o->optimizations_off |= PERCH_OPT_IDLE_SPIN; break;
        case 'I': o->no_guest_isolation = true; break;
        case 'Z': o->no_sandbox = true; break;
        case 'B': o->small_disk_requests = true; break;
        case 'g': if (gdb_option_parse(optarg, &o->gdb_port, e)) return -1; break;
        case 'W': o->gdb_wait = true; break;
        case 'h': o->command = CMD_HELP; return 0;
        case ':':
            if (argv[optind - 1] == smp_word)
                return fail(e, "option -smp needs a value");
            if (is_long_option(argv[optind - 1]))
                return fail(e, "option %s needs a value", argv[optind - 1]);
            return fail(e, "option -%c needs a value", optopt);
        default:
            if (is_long_option(argv[optind - 1]))
                return fail(e, "unknown option '%s'", argv[optind - 1]);
            return fail(e, "unknown option '-%c'", optopt);
        }
    }
    if (optind < argc && !o->kernel)
        o->kernel = argv[optind++];
    if (optind < argc)
        return fail(e, "unexpected argument '%s'", argv[optind]);
    /* The command goes into perch's initramfs, which --initrd replaces. */
    if (o->initrd && o->cmd)
        return fail(e, "--initrd and -- CMD cannot be used together: the "
                       "command runs from perch's own initramfs");
    if (o->gdb_wait && !o->gdb_port)
        return fail(e, "--gdb-wait needs --gdb PORT: nothing else could let "
                       "the guest go on");
    return check_root(o, e);
}

/* The commands that parse their own words: bench.c, image.c, cpu_profile.c. */
static const struct {
    const char *word;
    enum command command;
} own_parsers[] = {
    { "bench", CMD_BENCH },
    { "image", CMD_IMAGE },
    { "cpu", CMD_CPU },
};

/* perch save [--leave-running] GUEST FILE */
static int parse_save(int argc, char **argv, struct options *o, struct error *e)
{
    int at = 2;

    o->command = CMD_SAVE;
    if (at < argc && !strcmp(argv[at], "--leave-running")) {
        o->leave_running = true;
        at++;
    }
    if (argc != at + 2 || !argv[at][0] || argv[at][0] == '-' || !argv[at + 1][0])
        return fail(e, "perch save needs a GUEST (a pid or a --name) and a FILE, after "
                       "--leave-running if given");
    o->guest = argv[at];
    o->save_file = argv[at + 1];
    return 0;
}

/* perch restore [--name NAME] [--disk FILE[,ro]]... [--net VALUE]
 * [--stats] [--no-sandbox] FILE: the rest of the guest's configuration is
 * in FILE; --disk and --net stand in for the saved ones. */
static int parse_restore(int argc, char **argv, struct options *o, struct error *e)
{
    o->command = CMD_RESTORE;
    for (int at = 2; at < argc; at++) {
        bool valued = at + 1 < argc;

        if (!strcmp(argv[at], "--stats"))
            o->stats = true;
        else if (!strcmp(argv[at], "--no-sandbox"))
            o->no_sandbox = true;
        else if (!strcmp(argv[at], "--name") && valued && !o->name) {
            if (take_name(argv[++at], o, e))
                return -1;
        }
        else if (!strcmp(argv[at], "--disk") && valued) {
            if (parse_disk(argv[++at], o, e))
                return -1;
        } else if (!strcmp(argv[at], "--net") && valued && o->net.kind == NET_NONE) {
            if (net_option_parse(argv[++at], &o->net, e))
                return -1;
        } else if (argv[at][0] == '-' || o->restore)
            return fail(e, "perch restore takes FILE and only --name NAME, --disk FILE, "
                           "--net VALUE, --stats, --no-sandbox ('%s')", argv[at]);
        else
            o->restore = argv[at];
    }
    if (!o->restore || !o->restore[0])
        return fail(e, "perch restore needs the FILE perch save wrote");
    return 0;
}

static bool is_help(const char *arg)
{
    return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

int cli_parse(int argc, char **argv, struct options *o, struct error *e)
{
    memset(o, 0, sizeof(*o));
    o->mem_mib = DEFAULT_MEM_MIB;
    o->cpus = 1;
    if (argc < 2)
        return fail(e, "no command given");
    /* `perch --help`, and --help or -h right after any command. */
    if (is_help(argv[1]) || !strcmp(argv[1], "help") || (argc > 2 && is_help(argv[2]))) {
        o->command = CMD_HELP;
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        o->command = CMD_VERSION;
        return 0;
    }
    for (size_t i = 0; i < sizeof(own_parsers) / sizeof(own_parsers[0]); i++)
        if (!strcmp(argv[1], own_parsers[i].word)) {
            o->command = own_parsers[i].command;
            o->bench_args = argv + 2;
            o->bench_argc = argc - 2;
            return 0;
        }
    if (!strcmp(argv[1], "list")) {
        o->command = CMD_LIST;
        return argc == 2 ? 0 : fail(e, "perch list takes no arguments");
    }
    if (!strcmp(argv[1], "shutdown")) {
        int at = 2;

        o->command = CMD_SHUTDOWN;
        if (at < argc && (!strcmp(argv[at], "--wait") || !strcmp(argv[at], "-w"))) {
            o->wait = true;
            at++;
        }
        o->guest = argc == at + 1 ? argv[at] : NULL;
        return o->guest && o->guest[0] && o->guest[0] != '-'
                   ? 0 : fail(e, "perch shutdown needs one GUEST (a pid or a --name), "
                                 "after --wait if given");
    }
    if (!strcmp(argv[1], "mem-set")) {
        o->command = CMD_MEM_SET;
        if (argc != 4 || !argv[2][0] || argv[2][0] == '-')
            return fail(e, "perch mem-set needs a GUEST (a pid or a --name) and a size in MiB "
                           "(or 512M, 2G)");
        o->guest = argv[2];
        return parse_mem("perch mem-set", argv[3], &o->mem_mib, e);
    }
    if (!strcmp(argv[1], "save"))
        return parse_save(argc, argv, o, e);
    if (!strcmp(argv[1], "restore"))
        return parse_restore(argc, argv, o, e);
    if (strcmp(argv[1], "run"))
        return fail(e, "unknown command '%s'", argv[1]);
    o->command = CMD_RUN;
    return parse_run(argc - 1, argv + 1, o, e);
}
