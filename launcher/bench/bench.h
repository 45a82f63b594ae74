/*
 * `perch bench [--quick] [--qemu] [--uml] [--cpus N] [--vs "OPTIONS"]
 * [--out DIR] [BENCH...]`: the benchmarks of bench/perchbench.c, the very
 * binary embedded in perch, run natively (pinned to one CPU), inside the
 * default guest (on N vCPUs with --cpus N), with perch's counters
 * bracketed per benchmark by the guest's marks (osc_filter.h), with --qemu
 * in the same kernel and initramfs under QEMU TCG (-smp N), and with --uml
 * in the same initramfs under User-Mode Linux (one CPU); then one table,
 * bench.csv and bench.json (and bench.svg with gnuplot) in DIR. The disk
 * group runs on a scratch image in DIR: natively a file, in perch the
 * guest's xvda, under QEMU its vda, under UML its ubda. The net group
 * talks TCP with a peer process on the host: natively over loopback, in
 * perch and QEMU through a port forwarded to the guest (not under UML).
 */
#ifndef PERCH_BENCH_H
#define PERCH_BENCH_H

#include "../base/error.h"

/* The subcommand: args are the words after "bench". Returns perch's exit
 * status; e says why when it is not 0. */
int bench_main(int argc, char **argv, struct error *e);

#endif
