/* --root: boot a disk (root.c). */
#ifndef PERCH_INIT_ROOT_H
#define PERCH_INIT_ROOT_H

/* Boot the disk ROOT_FILE names: mount it and exec its /sbin/init as
 * PID 1. Returns only if that failed, having said why in one line. */
void boot_root(void);

#endif
