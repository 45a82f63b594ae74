/* The Host, Switcher, /init and perchbench images carried inside build/perch,
 * and the library perch bench gives UML. */
#include "../vm/hole.h"

#include <zlib.h>

extern const uint8_t perch_host_image[], perch_host_image_end[];
extern const uint8_t perch_switcher_image[], perch_switcher_image_end[];

void vm_images_get(struct vm_images *images)
{
    images->host = perch_host_image;
    images->host_bytes = perch_host_image_end - perch_host_image;
    images->switcher = perch_switcher_image;
    images->switcher_bytes = perch_switcher_image_end - perch_switcher_image;
}

uint32_t vm_images_crc(const struct vm_images *images)
{
    uLong crc = crc32(0, Z_NULL, 0);

    crc = crc32(crc, images->host, (uInt)images->host_bytes);
    return (uint32_t)crc32(crc, images->switcher, (uInt)images->switcher_bytes);
}

#include "initramfs.h"

extern const uint8_t perch_init_image[], perch_init_image_end[];

void initramfs_init_image(const uint8_t **bytes, size_t *size)
{
    *bytes = perch_init_image;
    *size = perch_init_image_end - perch_init_image;
}

extern const uint8_t perch_bench_image[], perch_bench_image_end[];

void initramfs_bench_image(const uint8_t **bytes, size_t *size)
{
    *bytes = perch_bench_image;
    *size = perch_bench_image_end - perch_bench_image;
}

#include "images.h"

extern const uint8_t perch_uml_preload_image[], perch_uml_preload_image_end[];

void images_uml_preload(const uint8_t **bytes, size_t *size)
{
    *bytes = perch_uml_preload_image;
    *size = perch_uml_preload_image_end - perch_uml_preload_image;
}
