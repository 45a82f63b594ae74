/* libFuzzer harness of the Host's instruction decoder (host/x86/insn.c) and its addresses. */
#include "fuzz.h"

#include "../../host/x86/insn.h"

static bool one_of(unsigned v, unsigned a, unsigned b, unsigned c, unsigned d)
{
    return v == a || v == b || v == c || v == d;
}

static bool reg_or(unsigned r, unsigned other)
{
    return r <= 15 || r == other || r == INSN_REG_NONE;
}

/* What a decoded instruction promises its users. */
static void check_fields(const struct insn *in, size_t len)
{
    FUZZ_ASSERT(in->length >= 1 && in->length <= len);
    FUZZ_ASSERT(in->map <= INSN_MAP_0F3A && in->seg <= INSN_SEG_GS);
    FUZZ_ASSERT(in->reg <= 15 && in->rm <= 15);
    FUZZ_ASSERT(one_of(in->operand_size, 1, 2, 4, 8));
    FUZZ_ASSERT(in->imm_size == 0 || one_of(in->imm_size, 1, 2, 4, 8));
    FUZZ_ASSERT(in->address_size == 4 || in->address_size == 8);
    FUZZ_ASSERT(in->disp_size == 0 || one_of(in->disp_size, 1, 2, 4, 8));
    FUZZ_ASSERT(!(in->implicit & ~0xfu));
    if (in->has_memory_operand) {
        FUZZ_ASSERT(one_of(in->scale, 1, 2, 4, 8));
        FUZZ_ASSERT(reg_or(in->base, INSN_REG_RIP) && reg_or(in->index, INSN_REG_NONE));
    }
}

/* The addresses it names can all be computed, within the address size. */
static void check_addresses(const struct insn *in, const struct cpu_regs *regs,
                            uint64_t fs, uint64_t gs)
{
    uint64_t va;
    bool plain_segment = in->seg != INSN_SEG_FS && in->seg != INSN_SEG_GS;

    FUZZ_ASSERT(insn_memory_address(in, regs, fs, gs, &va) ==
                (in->has_memory_operand && !in->vsib));
    if (in->has_memory_operand && !in->vsib && in->address_size == 4 &&
        plain_segment)
        FUZZ_ASSERT(va <= UINT32_MAX);
    for (unsigned bit = 1; bit <= INSN_IMPLICIT_POP; bit <<= 1)
        FUZZ_ASSERT(insn_implicit_address(in, regs, fs, gs, bit, &va) ==
                    !!(in->implicit & bit));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    size_t len;
    const uint8_t *bytes = fuzz_bytes(&in, INSN_MAX_BYTES, &len);
    struct cpu_regs regs = { 0 };
    struct insn a, b;
    uint64_t fs, gs;
    size_t got;
    int rc;

    memcpy(&regs, fuzz_bytes(&in, sizeof(regs), &got), got);
    fs = fuzz_uint(&in, 8);
    gs = fuzz_uint(&in, 8);
    memset(&a, 0, sizeof(a));
    rc = insn_decode(&a, bytes, len);
    FUZZ_ASSERT(rc == 0 || rc == INSN_TRUNCATED || rc == INSN_INVALID ||
                rc == INSN_TOO_LONG);
    if (rc)
        return 0;
    check_fields(&a, len);
    check_addresses(&a, &regs, fs, gs);
    /* Its own bytes are enough, and the same; one fewer is not enough. */
    memset(&b, 0, sizeof(b));
    FUZZ_ASSERT(insn_decode(&b, bytes, a.length) == 0 && !memcmp(&a, &b, sizeof(a)));
    FUZZ_ASSERT(insn_decode(&b, bytes, a.length - 1u) == INSN_TRUNCATED);
    return 0;
}
