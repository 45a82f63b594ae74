/* The Switcher's tables in the hole (launcher/vm/switcher_tables.c); each returns 0 or -1 (out of private frames). */
#ifndef PERCH_SWITCHER_TABLES_H
#define PERCH_SWITCHER_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "../../abi/layout.h"
#include "guest_memory.h"
#include "hole.h"

/* Each builder but the user view's builds vCPU cpu's copy in its block. */

/* The GDT (Xen's layout, perch's descriptors in reserved page 14) and the
 * TSS with every IST stack. */
int switcher_build_gdt(struct guest_memory *gm, uint64_t l4, unsigned cpu,
                       struct hole *hole);
int switcher_build_tss(struct guest_memory *gm, uint64_t l4, unsigned cpu);

/* The kernel view's IDT: with cpl3_events, gates straight into the Host at
 * CPL3 for most vectors; the Switcher's ring-0 stubs otherwise. */
int switcher_build_kernel_idt(struct guest_memory *gm, uint64_t l4, unsigned cpu,
                              const struct switcher_image_header *sw,
                              const struct host_image_header *h, bool cpl3_events);

/* The IDT the HALT gate loads for its `hlt`: ring-0 gates only. */
int switcher_build_halt_idt(struct guest_memory *gm, uint64_t l4, unsigned cpu,
                            const struct switcher_image_header *sw);
/* The IDTR images of its kernel and halt IDTs (SW_DATA_VA). */
int switcher_build_idtrs(struct guest_memory *gm, uint64_t l4, unsigned cpu);

/* The prebuilt iret frames from the ring-0 stubs into the Host. */
int switcher_build_handoff(struct guest_memory *gm, uint64_t l4, unsigned cpu,
                           const struct host_image_header *h);

/* The user view, for hole->nr_cpus vCPUs: its own L4 slot 257 (IDTs,
 * stacks ring-0 only, int3 at the LSTARs), recorded in hole->user_slot_257. */
int switcher_build_user_view(struct guest_memory *gm, uint64_t kl4,
                             const struct vm_images *img, struct hole *hole);

#endif
