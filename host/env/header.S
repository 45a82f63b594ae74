/* The Host image header (struct host_image_header), first in the image. */
#include "../../abi/layout.h"
#include "../core/entry.h"

    .section .header, "a"
    .quad HOST_IMAGE_MAGIC
    .quad host_file_end - HOST_IMAGE_VA
    .quad host_memory_end - HOST_IMAGE_VA
    .quad host_syscall_entry
    .quad SYSCALL_ENTRY_STRIDE
    .quad host_vector_entries
    .quad 16
    .quad host_user_vector_entries
    .quad perch_shared
    .quad host_boot_entry
    .quad host_cpl3_vector_entries
    .quad 32
