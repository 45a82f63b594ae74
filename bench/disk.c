/*
 * perchbench's disk group: O_DIRECT I/O on the block device or file that
 * --disk names (in a perch guest /dev/xvda, under QEMU /dev/vda, natively
 * a scratch file beside the guest's image), so that no page cache of the
 * system perchbench runs on is measured:
 *
 *   diskseqwrite  the first 256 MiB written in 1 MiB requests, then
 *                 fdatasync: a pass ends with the data on the disk
 *   diskseqread   the same 256 MiB read in 1 MiB requests
 *   diskrand      4 KiB reads at random 4 KiB offsets of the 256 MiB, one
 *                 fixed sequence (the same on every side), 20000 reads a
 *                 pass or 2 s, whichever ends first
 *
 * A pass is a sample (3, or --samples; 1 with --quick, which also shrinks
 * the area to 16 MiB and the reads to 1000). The result line gives MB/s
 * (10^6 bytes a second) or IOPS where the other groups give ns, and ops
 * counts requests, so perch's counters come per request. The reads read
 * what was written: unless diskseqwrite has run, one untimed pass writes
 * the area first (a hole reads back without touching a disk).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "groups.h"

#define MIB              (1024L * 1024)
#define AREA_BYTES       (256 * MIB)
#define QUICK_AREA_BYTES (16 * MIB)
#define SEQ_REQUEST      MIB
#define RAND_REQUEST     4096L
#define RAND_READS       20000
#define QUICK_RAND_READS 1000
#define RAND_PASS_NS     2000000000ull
#define CLOCK_EVERY      64      /* reads between looks at the clock */
#define WAIT_MS          10000   /* for the driver to make the device */
#define POLL_MS          50
#define RAND_SEED        0x9e3779b97f4a7c15ull

static bool written;             /* the area holds data (diskseqwrite ran) */
static uint64_t rand_state = RAND_SEED;

static long area_bytes(void)
{
    return opt.quick ? QUICK_AREA_BYTES : AREA_BYTES;
}

/* A guest's disk driver finds its disk a moment after boot: devtmpfs
 * makes the node then (a missing file elsewhere is just missing). */
static int open_disk(void)
{
    bool device = !strncmp(opt.disk, "/dev/", 5);
    int fd;

    for (int ms = 0;; ms += POLL_MS) {
        fd = open(opt.disk, O_RDWR | O_DIRECT | O_CLOEXEC);
        if (fd >= 0)
            return fd;
        if (errno == EINVAL)
            die("%s refuses O_DIRECT (a file system without it?)", opt.disk);
        if (errno != ENOENT || !device || ms >= WAIT_MS)
            die("cannot open %s: %s", opt.disk, strerror(errno));
        sleep_ms(POLL_MS);
    }
}

/* The device's size, or the file's. */
static long disk_bytes(int fd)
{
    struct stat st;
    uint64_t size;

    if (fstat(fd, &st) < 0)
        die("cannot stat %s: %s", opt.disk, strerror(errno));
    if (S_ISREG(st.st_mode))
        return st.st_size;
    if (!S_ISBLK(st.st_mode))
        die("%s is neither a block device nor a file", opt.disk);
    if (ioctl(fd, BLKGETSIZE64, &size) < 0)
        die("cannot read the size of %s: %s", opt.disk, strerror(errno));
    return size > (uint64_t)LONG_MAX ? LONG_MAX : (long)size;
}

/* O_DIRECT wants buffers aligned to the device's blocks: a page is. The
 * bytes are not zero, so nothing on the way can take them for a hole. */
static char *io_buffer(long bytes)
{
    void *p;

    if (posix_memalign(&p, 4096, bytes))
        die("out of memory for a %ld-byte buffer", bytes);
    memset(p, 0x5a, bytes);
    return p;
}

/* One request, whole: a short transfer on a disk is an error here. */
static void transfer(int fd, bool write, char *buf, long bytes, long offset)
{
    ssize_t n = write ? pwrite(fd, buf, bytes, offset)
                      : pread(fd, buf, bytes, offset);

    if (n < 0)
        die("%s of %ld bytes at %ld: %s", write ? "write" : "read", bytes,
            offset, strerror(errno));
    if (n != bytes)
        die("%s of %ld bytes at %ld moved %zd", write ? "write" : "read",
            bytes, offset, n);
}

/* The area in 1 MiB requests, written with fdatasync after, or read. */
static uint64_t seq_pass(int fd, bool write, char *buf)
{
    uint64_t t0 = now_ns();

    for (long off = 0; off < area_bytes(); off += SEQ_REQUEST)
        transfer(fd, write, buf, SEQ_REQUEST, off);
    if (write && fdatasync(fd) < 0)
        die("fdatasync: %s", strerror(errno));
    return now_ns() - t0;
}

/* xorshift64: the same offsets on every side, from a fixed seed. */
static long next_block(void)
{
    rand_state ^= rand_state << 13;
    rand_state ^= rand_state >> 7;
    rand_state ^= rand_state << 17;
    return (long)(rand_state % (uint64_t)(area_bytes() / RAND_REQUEST));
}

/* Up to the pass's reads, or until its time is up; *reads says how many.
 * The clock is read now and then only: in a guest it may cost a system
 * call. */
static uint64_t rand_pass(int fd, char *buf, long *reads)
{
    long most = opt.quick ? QUICK_RAND_READS : RAND_READS, n = 0;
    uint64_t t0 = now_ns();

    while (n < most) {
        transfer(fd, false, buf, RAND_REQUEST, next_block() * RAND_REQUEST);
        if (++n % CLOCK_EVERY == 0 && now_ns() - t0 >= RAND_PASS_NS)
            break;
    }
    *reads = n;
    return now_ns() - t0;
}

/* The disk opened and checked, the area written if it is to be read. */
static int disk_setup(const struct bench *b, char *buf)
{
    long size;
    int fd;

    current = b->name;
    fd = open_disk();
    size = disk_bytes(fd);
    if (size < area_bytes())
        die("%s holds %ld bytes, the disk group needs %ld", opt.disk, size,
            area_bytes());
    if (!written && strcmp(b->name, "diskseqwrite")) {
        seq_pass(fd, true, buf);
        written = true;
    }
    return fd;
}

static void disk_sequential(const struct bench *b, struct result *res)
{
    bool write = !strcmp(b->name, "diskseqwrite");
    char *buf = io_buffer(SEQ_REQUEST);
    long requests = area_bytes() / SEQ_REQUEST;
    int fd = disk_setup(b, buf), n = opt.work_samples;
    double rate[MAX_SAMPLES];

    mark(b->name, "begin");
    for (int s = 0; s < n; s++)
        rate[s] = (double)area_bytes() * 1e3 / (double)seq_pass(fd, write, buf);
    mark(b->name, "end");
    written = written || write;
    close(fd);
    free(buf);
    current = NULL;
    report_result(b, rate, n, requests, requests * n, res);
}

static void disk_random(const struct bench *b, struct result *res)
{
    char *buf = io_buffer(SEQ_REQUEST);
    int fd = disk_setup(b, buf), n = opt.work_samples;
    long reads, ops = 0;
    double iops[MAX_SAMPLES];

    rand_state = RAND_SEED;
    mark(b->name, "begin");
    for (int s = 0; s < n; s++) {
        uint64_t ns = rand_pass(fd, buf, &reads);

        iops[s] = (double)reads * 1e9 / (double)(ns ? ns : 1);
        ops += reads;
    }
    mark(b->name, "end");
    close(fd);
    free(buf);
    current = NULL;
    report_result(b, iops, n, opt.quick ? QUICK_RAND_READS : RAND_READS, ops,
                  res);
}

#define DISK(name, unit, what, drive) \
    { name, "disk", what, unit, NULL, 0, drive, NULL, NULL }

const struct bench disk_benches[] = {
    DISK("diskseqwrite", "MB/s", "Sequential O_DIRECT write of 256 MiB in 1 MiB "
         "requests, then fdatasync", disk_sequential),
    DISK("diskseqread", "MB/s", "Sequential O_DIRECT read of 256 MiB in 1 MiB "
         "requests", disk_sequential),
    DISK("diskrand", "IOPS", "Random 4 KiB O_DIRECT reads over 256 MiB",
         disk_random),
};
const int disk_count = sizeof(disk_benches) / sizeof(disk_benches[0]);
