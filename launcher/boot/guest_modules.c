/* The default kernel's modules (its Xen front ends, or QEMU's virtio drivers), from perch's cache for the initramfs. */
#include "guest_modules.h"

#include <stdio.h>
#include <string.h>

static int read_all(const struct default_guest *g,
                    const struct default_guest_module_set *set,
                    struct guest_modules *m, struct error *e)
{
    char path[PATH_MAX];

    for (int i = 0; set->paths[i]; i++) {
        const char *name = strrchr(set->paths[i], '/') + 1;

        if (m->n == GUEST_MODULES_MAX)
            return fail(e, "more than %d modules", GUEST_MODULES_MAX);
        if (snprintf(path, sizeof(path), "%s/%s", g->modules, name) >= PATH_MAX)
            return fail(e, "the path of perch's cache folder is too long");
        if (file_read_all(path, &m->files[m->n], e))
            return -1;
        m->list[m->n] = (struct initramfs_module){
            .name = name, .bytes = m->files[m->n].bytes,
            .size = m->files[m->n].size,
        };
        m->n++;
    }
    return 0;
}

void guest_modules_load(struct default_guest *g,
                        const struct default_guest_module_set *set,
                        const char *kernel, struct guest_modules *m)
{
    struct error e;

    memset(m, 0, sizeof(*m));
    if (!set || !kernel || !g->kernel[0] || strcmp(kernel, g->kernel))
        return;
    if (default_guest_modules(g, set, &e) || read_all(g, set, m, &e)) {
        guest_modules_release(m);
        fprintf(stderr, "perch: note: %s: the guest gets no disk or network "
                        "driver\n", e.msg);
    }
}

void guest_modules_release(struct guest_modules *m)
{
    for (int i = 0; i < GUEST_MODULES_MAX; i++)   /* unread ones are empty */
        file_release(&m->files[i]);
    memset(m, 0, sizeof(*m));
}
