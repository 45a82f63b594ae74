/* libFuzzer harness of the ELF and Xen-note parser (launcher/boot/pv_image.c): the input is the file. */
#include "fuzz.h"

#include "../../launcher/boot/pv_image.h"

/* A string from a note: NUL-ended inside its field. */
static bool ended(const char *s, size_t size)
{
    return memchr(s, 0, size) != NULL;
}

/* What a parsed image promises the domain builder. */
static void check_image(const struct pv_image *img, size_t size)
{
    FUZZ_ASSERT(img->nr_segments >= 1 &&
                img->nr_segments <= PV_IMAGE_MAX_SEGMENTS);
    for (unsigned i = 0; i < img->nr_segments; i++) {
        const struct pv_segment *s = &img->segments[i];

        FUZZ_ASSERT(s->filesz <= s->memsz);
        FUZZ_ASSERT(s->filesz == 0 || (s->file_offset <= size &&
                                       s->filesz <= size - s->file_offset));
        FUZZ_ASSERT(s->paddr + s->memsz >= s->paddr);
    }
    FUZZ_ASSERT(img->virt_kstart <= img->entry && img->entry < img->virt_kend);
    FUZZ_ASSERT(!img->hypercall_page ||
                (img->hypercall_page >= img->virt_kstart &&
                 img->hypercall_page < img->virt_kend));
    FUZZ_ASSERT(ended(img->xen_version, sizeof(img->xen_version)) &&
                ended(img->guest_os, sizeof(img->guest_os)) &&
                ended(img->loader, sizeof(img->loader)) &&
                ended(img->features, sizeof(img->features)));
    FUZZ_ASSERT(!strncmp(img->xen_version, "xen-3.0", 7));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pv_image img;
    struct error e = { "" };

    if (pv_image_parse(data, size, &img, &e) == 0)
        check_image(&img, size);
    else
        FUZZ_ASSERT(fuzz_one_line(e.msg));
    return 0;
}
