/*
 * The runtime shared by perch's PV test guests. A guest is one folder under
 * guests/ whose code defines
 *
 *   const char guest_name[] = "NAME";
 *   void guest_main(const struct start_info *si);
 *
 * head.S enters rt_start(si) on a 16 KiB stack; rt_start calls guest_main
 * and shuts the domain down with SHUTDOWN_poweroff if it returns.
 */
#ifndef PERCH_RT_H
#define PERCH_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../abi/xen/xen.h"
#include "hypercall.h"
#include "lib.h"
#include "test.h"

#define RT_VIRT_BASE    0xffffffff80000000ull   /* the VIRT_BASE note */
#define RT_HV_START_LOW 0xffff800000000000ull   /* the HV_START_LOW note */

/* Provided by each guest. */
void guest_main(const struct start_info *si);

/* The start_info the guest was started with. */
extern const struct start_info *rt_start_info;

/* head.S: the runtime stack, and rsp as the builder handed it over. */
extern char rt_stack_bottom[], rt_stack_top[];
extern uint64_t rt_boot_rsp;

/* The link script: the image bounds. */
extern char _image_start[], _image_end[];

/*
 * The value of `key` in start_info.cmd_line, which holds space-separated
 * words "key=value" or "key"; NULL if the key is absent, "" for a bare
 * "key". The returned strings stay valid until the next call with a
 * different start_info. The last occurrence of a key wins.
 */
const char *cmdline_get(const struct start_info *si, const char *key);

/* A guest that runs one case a boot, named on the command line (hostile
 * guests: attack=NAME). */
struct rt_case {
    const char *name;
    void (*fn)(const char *name);
};

/* The case key=NAME names; NULL, with a FAIL line, if the command line
 * names none or one not among the n cases. */
const struct rt_case *rt_case_chosen(const struct start_info *si, const char *key,
                                     const struct rt_case *cases, size_t n);

#endif
