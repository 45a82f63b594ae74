/* libFuzzer harness of the kernel-file decoder (launcher/boot/kernel_image.c), then the ELF parser. */
#include "fuzz.h"

#include "../../launcher/boot/kernel_image.h"
#include "../../launcher/boot/pv_image.h"

/* The decompressed size cap, small so that a bomb costs little time. */
#define MAX_ELF ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kernel_elf elf;
    struct pv_image img;
    struct error e = { "" };

    if (kernel_image_elf(data, size, MAX_ELF, &elf, &e)) {
        FUZZ_ASSERT(fuzz_one_line(e.msg));
        FUZZ_ASSERT(!elf.owned);
        return 0;
    }
    FUZZ_ASSERT(elf.size >= 4 && !memcmp(elf.bytes, "\x7f" "ELF", 4));
    if (elf.owned)
        FUZZ_ASSERT(elf.bytes == elf.owned && elf.size <= MAX_ELF);
    else
        FUZZ_ASSERT(elf.bytes == data && elf.size == size);
    e.msg[0] = '\0';
    if (pv_image_parse(elf.bytes, elf.size, &img, &e))
        FUZZ_ASSERT(fuzz_one_line(e.msg));
    kernel_elf_release(&elf);
    FUZZ_ASSERT(!elf.owned && !elf.bytes);
    return 0;
}
