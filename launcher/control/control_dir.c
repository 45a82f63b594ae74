/* Where the control sockets live, and the names guests go by (control.h). */
#include "control.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int control_dir(char dir[PATH_MAX], bool create, struct error *e)
{
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    struct stat st;
    int n = runtime && runtime[0] == '/'
                ? snprintf(dir, PATH_MAX, "%s/perch", runtime)
                : snprintf(dir, PATH_MAX, "/tmp/perch-%u", (unsigned)getuid());

    if (n < 0 || n >= PATH_MAX)
        return fail(e, "the control folder's path is too long");
    if (create && mkdir(dir, 0700) && errno != EEXIST)
        return fail(e, "cannot create %s: %s", dir, strerror(errno));
    if (lstat(dir, &st)) {
        if (errno == ENOENT && !create)
            return 1;                   /* no folder: no guest ever listened */
        return fail(e, "%s: %s", dir, strerror(errno));
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
        return fail(e, "%s is not a folder only you may enter (mode 0700, yours)", dir);
    return 0;
}

bool control_name_ok(const char *name)
{
    size_t n = strlen(name), digits = strspn(name, "0123456789");

    return n > 0 && n <= CONTROL_NAME_MAX && digits < n &&
           strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789._-") == n;
}
