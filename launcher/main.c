/*
 * perch: the Launcher's entry point. It parses the command line and runs
 * the command; every failure below ends up here as one line on stderr and
 * a non-zero exit status (launcher/base/status.h).
 */
#include <stdio.h>

#include "bench/bench.h"
#include "control/control_client.h"
#include "run/cli.h"
#include "cpu/cpu_profile.h"
#include "image/image.h"
#include "run/launch.h"
#include "base/status.h"

#define PERCH_VERSION "0.1"

int main(int argc, char **argv)
{
    struct options o;
    struct error e = { "" };
    int status;

    if (cli_parse(argc, argv, &o, &e)) {
        fprintf(stderr, "perch: %s (try 'perch --help')\n", e.msg);
        return STATUS_USAGE;
    }
    switch (o.command) {
    case CMD_HELP:
        cli_print_help();
        return 0;
    case CMD_VERSION:
        printf("perch %s\n", PERCH_VERSION);
        return 0;
    case CMD_BENCH:
        status = bench_main(o.bench_argc, o.bench_args, &e);
        if (e.msg[0])
            fprintf(stderr, "perch: %s\n", e.msg);
        return status;
    case CMD_IMAGE:
        status = image_main(o.bench_argc, o.bench_args, &e);
        if (e.msg[0])
            fprintf(stderr, "perch: %s\n", e.msg);
        return status;
    case CMD_CPU:
        status = cpu_main(o.bench_argc, o.bench_args, &e);
        if (e.msg[0])
            fprintf(stderr, "perch: %s\n", e.msg);
        return status;
    case CMD_LIST:
        if (!control_list(stdout, &e))
            return 0;
        fprintf(stderr, "perch: %s\n", e.msg);
        return STATUS_ERROR;
    case CMD_SHUTDOWN:
        if (!control_shutdown(o.guest, o.wait, &e))
            return 0;
        fprintf(stderr, "perch: %s\n", e.msg);
        return STATUS_ERROR;
    case CMD_MEM_SET:
        status = control_mem_set(o.guest, o.mem_mib, &e);
        if (status)
            fprintf(stderr, "perch: %s\n", e.msg);
        return status;
    case CMD_SAVE:
        status = control_save(o.guest, o.save_file, o.leave_running, &e);
        if (status)
            fprintf(stderr, "perch: %s\n", e.msg);
        return status;
    case CMD_RESTORE:
    case CMD_RUN:
        break;
    }
    cli_note_cpus(&o);
    status = launch(&o, &e);
    if (e.msg[0])
        fprintf(stderr, "perch: %s\n", e.msg);
    return status;
}
