/* The vCPU group's watch (launcher/run/vcpu_loop.h): once a second every
 * member thread is interrupted by SIGUSR1 (so that a vCPU an INIT left
 * inside KVM_RUN is looked at), with no immediate_exit left set; the
 * group's end ends the watch at once. Member threads stand in for vCPU
 * threads: each waits in poll(), which a signal interrupts as it does
 * KVM_RUN. */
#include "check.h"

#include <errno.h>
#include <poll.h>
#include <time.h>

#include "../../launcher/run/vcpu_loop.h"

#define MEMBERS 3

static struct vcpu_group group;
static struct kvm_run runs[MEMBERS];
static struct kvm_vcpu vcpus[MEMBERS];
static pthread_t members[MEMBERS], watch;
static int interrupted[MEMBERS];   /* poll() ended by a signal */

static uint64_t now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* Waits up to 3 s; a signal ends the wait early. */
static void *member(void *arg)
{
    int *mine = arg;

    if (poll(NULL, 0, 3000) < 0 && errno == EINTR)
        *mine = 1;
    return NULL;
}

static void *watcher(void *arg)
{
    (void)arg;
    vcpu_group_watch(&group);
    return NULL;
}

static void start_group(void)
{
    guest_run_signals();
    vcpu_group_init(&group, MEMBERS);
    for (unsigned i = 0; i < MEMBERS; i++) {
        interrupted[i] = 0;
        vcpus[i] = (struct kvm_vcpu){ .id = i, .run = &runs[i] };
        runs[i].immediate_exit = 0;
        pthread_create(&members[i], NULL, member, &interrupted[i]);
        vcpu_group_join(&group, i, members[i], &vcpus[i]);
    }
    pthread_create(&watch, NULL, watcher, NULL);
}

static void join_members(void)
{
    for (unsigned i = 0; i < MEMBERS; i++)
        pthread_join(members[i], NULL);
}

/* Every member is interrupted after about a second, by a signal alone. */
static void watch_kicks_every_member(void)
{
    struct error e = { 0 };
    uint64_t start = now_ms(), took;

    start_group();
    join_members();
    took = now_ms() - start;
    for (unsigned i = 0; i < MEMBERS; i++) {
        CHECK(interrupted[i]);
        CHECK(runs[i].immediate_exit == 0);
    }
    vcpu_group_fail(&group, 1, &e);
    pthread_join(watch, NULL);
    CHECK(took >= 900 && took < 2500);
}

/* The group's end wakes the watch at once; the end kicks every member
 * with immediate_exit, as a stop does; the status is the failure's. */
static void end_stops_the_watch(void)
{
    struct error e = { 0 };
    uint64_t start;

    start_group();
    snprintf(e.msg, sizeof(e.msg), "the watch could not start");
    poll(NULL, 0, 200);   /* the members are in their poll() by now */
    start = now_ms();
    vcpu_group_fail(&group, 7, &e);
    pthread_join(watch, NULL);
    CHECK(now_ms() - start < 500);
    join_members();
    CHECK(now_ms() - start < 500);
    for (unsigned i = 0; i < MEMBERS; i++) {
        CHECK(interrupted[i]);
        CHECK(runs[i].immediate_exit == 1);
    }
    CHECK(group.status == 7);
    CHECK_CONTAINS(group.e.msg, "could not start");
}

int main(void)
{
    RUN(watch_kicks_every_member);
    RUN(end_stops_the_watch);
    return check_exit_status();
}
