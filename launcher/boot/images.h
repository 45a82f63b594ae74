/* Images carried inside build/perch for tools it runs, not for the VM
 * (vm/hole.h) or the initramfs (initramfs.h). launcher/boot/images.c. */
#ifndef PERCH_BOOT_IMAGES_H
#define PERCH_BOOT_IMAGES_H

#include <stddef.h>
#include <stdint.h>

/* The library `perch bench --uml` preloads into UML
 * (launcher/bench/preload/uml_xstate.c), a shared object. */
void images_uml_preload(const uint8_t **bytes, size_t *size);

#endif
