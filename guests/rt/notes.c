/*
 * The Xen ELF notes of every test guest (docs/xen-pv.md section 1).
 *
 * They are written in C rather than in head.S so that each note's layout is
 * a C struct (notes.h) and its type comes from abi/xen/elfnote.h. A guest
 * adds its own notes the same way.
 */
#include "rt.h"
#include "notes.h"

extern char _start[];

STR_NOTE(note_xen_version,   XEN_ELFNOTE_XEN_VERSION,   "xen-3.0");
STR_NOTE(note_guest_os,      XEN_ELFNOTE_GUEST_OS,      "perch-test");
STR_NOTE(note_guest_version, XEN_ELFNOTE_GUEST_VERSION, "1");
STR_NOTE(note_loader,        XEN_ELFNOTE_LOADER,        "generic");
STR_NOTE(note_features,      XEN_ELFNOTE_FEATURES,      "");
STR_NOTE(note_pae_mode,      XEN_ELFNOTE_PAE_MODE,      "yes");
U64_NOTE(note_virt_base,     XEN_ELFNOTE_VIRT_BASE,     RT_VIRT_BASE);
U64_NOTE(note_paddr_offset,  XEN_ELFNOTE_PADDR_OFFSET,  0);
U64_NOTE(note_entry,         XEN_ELFNOTE_ENTRY,         (uint64_t)(uintptr_t)_start);
U64_NOTE(note_hv_start_low,  XEN_ELFNOTE_HV_START_LOW,  RT_HV_START_LOW);
