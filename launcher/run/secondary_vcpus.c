/* The vCPUs past the first, on threads of their own (secondary_vcpus.h). */
#include "secondary_vcpus.h"

#include <string.h>

#include "../base/status.h"
#include "../vm/sandbox.h"

static void *secondary_thread(void *arg)
{
    struct secondary *c = arg;

    if (c->sandbox && sandbox_enter(0, &c->e))
        vcpu_group_end(&c->run, STATUS_ERROR, &c->e);
    else
        guest_run(&c->run, &c->e);   /* it ends the group itself */
    return NULL;
}

static void *watch_thread(void *arg)
{
    struct secondary_vcpus *s = arg;
    struct error e;

    if (s->sandbox && sandbox_enter(0, &e))
        vcpu_group_fail(&s->group, STATUS_ERROR, &e);
    else
        vcpu_group_watch(&s->group);
    return NULL;
}

int secondary_vcpus_start(struct secondary_vcpus *s, struct guest_run *first,
                          unsigned nr, bool sandbox, struct error *e)
{
    s->nr = nr;
    s->watching = false;
    first->group = NULL;
    if (nr == 1)
        return 0;
    vcpu_group_init(&s->group, nr);
    first->group = &s->group;
    vcpu_group_join(&s->group, 0, pthread_self(), first->vcpu);
    for (unsigned i = 1; i < nr; i++) {
        struct secondary *c = &s->cpu[i];

        c->run = *first;
        c->run.vcpu = &first->vm->vcpus[i];
        memset(&c->run.stats.exits, 0, sizeof(c->run.stats.exits));
        c->run.stats.frames_released = 0;
        memset(&c->run.where, 0, sizeof(c->run.where));
        c->sandbox = sandbox;
        if (pthread_create(&c->thread, NULL, secondary_thread, c)) {
            fail(e, "cannot start the thread of vCPU %u", i);
            secondary_vcpus_finish(s, first, STATUS_ERROR, &c->e);
            return -1;
        }
        c->started = true;
        vcpu_group_join(&s->group, i, c->thread, c->run.vcpu);
    }
    s->sandbox = sandbox;
    if (pthread_create(&s->watch, NULL, watch_thread, s)) {
        fail(e, "cannot start the thread that watches the vCPUs");
        secondary_vcpus_finish(s, first, STATUS_ERROR, e);
        return -1;
    }
    s->watching = true;
    return 0;
}

int secondary_vcpus_finish(struct secondary_vcpus *s, struct guest_run *first,
                           int status, struct error *e)
{
    if (s->nr == 1)
        return status;
    if (status != GUEST_RUN_ENDED_ELSEWHERE)
        vcpu_group_end(first, status, e);
    if (s->watching)
        pthread_join(s->watch, NULL);
    s->watching = false;
    for (unsigned i = 1; i < s->nr; i++) {
        struct secondary *c = &s->cpu[i];

        if (!c->started)
            continue;
        pthread_join(c->thread, NULL);
        c->started = false;
        for (unsigned k = 0; k < EXIT_KIND_COUNT; k++)
            first->stats.exits[k] += c->run.stats.exits[k];
        first->stats.frames_released += c->run.stats.frames_released;
    }
    *e = s->group.e;
    first->where = s->group.where;
    return s->group.status;
}
