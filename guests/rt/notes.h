/*
 * Xen ELF notes written in C: each note is one packed, 4-byte aligned
 * object in .note.Xen: namesz, descsz, type, "Xen\0", then the descriptor
 * padded to 4 bytes. The link script puts the section in its own PT_NOTE
 * program header. rt's own notes are in notes.c.
 */
#ifndef PERCH_RT_NOTES_H
#define PERCH_RT_NOTES_H

#include <stdint.h>

#include "../../abi/xen/elfnote.h"

#define NOTE_TYPE __attribute__((packed, aligned(4)))
#define NOTE_VAR  __attribute__((section(".note.Xen"), used, no_reorder, aligned(4)))

#define STR_NOTE(var, ty, str)                                                \
    static const struct NOTE_TYPE {                                           \
        uint32_t namesz, descsz, type;                                        \
        char name[4];                                                         \
        char desc[sizeof(str)];                                               \
    } var NOTE_VAR = { 4, sizeof(str), ty, "Xen", str }

#define U64_NOTE(var, ty, value)                                              \
    static const struct NOTE_TYPE {                                           \
        uint32_t namesz, descsz, type;                                        \
        char name[4];                                                         \
        uint64_t desc;                                                        \
    } var NOTE_VAR = { 4, sizeof(uint64_t), ty, "Xen", value }

#endif
