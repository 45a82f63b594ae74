/* libFuzzer harness of the CPU profile parser (launcher/cpu/cpu_profile.c): any
 * text is parsed or refused with a line, what parses stays in the table's
 * bounds, writes out, and reads back the same. */
#include "fuzz.h"

#include "../../launcher/cpu/cpu_profile.h"

static struct perch_cpu cpu, again;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct error e = { "" };
    char *text = NULL;
    size_t len = 0;
    FILE *f;

    if (cpu_profile_parse((const char *)data, size, &cpu, &e)) {
        FUZZ_ASSERT(e.msg[0] != '\0');
        return 0;
    }
    FUZZ_ASSERT(cpu.nr_entries >= 2 && cpu.nr_entries <= PERCH_CPUID_ENTRIES);
    f = open_memstream(&text, &len);
    FUZZ_ASSERT(f);
    cpu_profile_write(f, &cpu, "fuzz");
    FUZZ_ASSERT(fclose(f) == 0);
    FUZZ_ASSERT(cpu_profile_parse(text, len, &again, &e) == 0);
    FUZZ_ASSERT(memcmp(&cpu, &again, sizeof(cpu)) == 0);
    free(text);
    return 0;
}
