/*
 * A running guest's end of the control socket (control.h): a thread that
 * answers `perch list` and `perch shutdown`. It faces the user's own
 * processes, not the guest, and never touches guest memory.
 */
#ifndef PERCH_CONTROL_SERVER_H
#define PERCH_CONTROL_SERVER_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/un.h>
#include <time.h>

#include "../base/error.h"
#include "../disk/disk.h"

/* What `info` tells, and how `shutdown` and `mem-set` ask the guest (0:
 * asked). */
struct control_guest {
    const char *name;                /* NULL: none */
    unsigned vcpus;
    uint64_t mem_mib;
    const struct disk *disks;
    unsigned nr_disks;
    int (*ask_poweroff)(void *arg);
    int (*ask_memory)(void *arg, uint64_t mib);
    void *arg;
    /* `perch save`: the guest into the open file fd (0: saved). */
    int (*save)(void *arg, int fd, bool leave_running, struct error *e);
    void *save_arg;
};

/* The least a guest of mem_mib may be set to: Linux's kernel and initramfs
 * (96 MiB) and its page structures, which cover all of --mem whatever
 * the balloon holds (64 bytes a 4 KiB page: 1/64). */
uint64_t control_mem_floor_mib(uint64_t mem_mib);

struct control_server {
    struct control_guest guest;
    struct timespec started;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int listen_fd, stop_fd;
    pthread_t thread;
    bool running;
};

/* Listen at DIR/PID.sock and answer on a thread of its own; with a
 * name, refused if another running guest has it. */
int control_server_start(struct control_server *s, const struct control_guest *g,
                         struct error *e);

/* Stop answering and take the socket away (nothing if never started). */
void control_server_stop(struct control_server *s);

#endif
