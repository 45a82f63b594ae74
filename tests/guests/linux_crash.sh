# A Linux crash ends with one line that says where (launcher/symbols/crash_line.c):
# Debian's kernel crashed through /proc/sysrq-trigger panics, and its Xen
# panic notifier asks for SHUTDOWN_crash from xen_reboot. perch must exit
# with status 4 and print, after the whole console (the kernel's own
# trace), one line naming the rip (the hypercall's glue) and the callers
# on the guest kernel's stack with the kernel's own kallsyms names, at
# the same offsets as the kernel's trace.
. tests/lib.sh

# crash_run NAME PERCH_OPTIONS...: the crash, stdout and stderr apart.
crash_run() {
    local name=$1
    shift
    timeout 120 "$PERCH" run "$@" -- sh -c 'echo c > /proc/sysrq-trigger' \
        >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
    status=$?
}

crash_run crash
if grep -q "cannot fetch Debian's cloud kernel" "$TMP/crash.err"; then
    echo "SKIP linux_crash: $(grep -m1 '^perch: ' "$TMP/crash.err")"
    exit 0
fi
expect_status crash 4
expect_one_line_error crash
line=$(cat "$TMP/crash.err")
hex='0x[0-9a-f]+'
# The crash hypercall came by a direct call (host/cpu/direct_calls.h): its
# caller's return address is the rip, the caller's caller on the stack.
# By `syscall` (make test-trap-hypercalls), the rip is xen_hypercall_pv's.
caller=xen_reboot
[ -n "${PERCH_TRAP_HYPERCALLS:-}" ] && caller=xen_hypercall_pv
expect_line crash err "^perch: guest crashed \\(SHUTDOWN_crash\\) at rip 0xffffffff[0-9a-f]+ \\($caller\\+$hex\\); stack: "
expect_line crash err "; stack: .*panic\\+$hex "
expect_line crash err "; stack: .*sysrq_handle_crash\\+$hex"
# The console was drained first: the kernel's trace is on stdout.
expect_line crash out 'Kernel panic - not syncing: sysrq triggered crash'

# perch's offsets are the kernel's own: sysrq_handle_crash's return
# address into it, as the kernel's Call Trace prints it (name+off/size).
# (panic's differs: the kernel's trace is taken at an earlier call inside
# panic, its dump_stack, than the notifier call perch sees.)
for fn in sysrq_handle_crash; do
    ours=$(printf '%s\n' "$line" | grep -oE " $fn\\+$hex" | head -1 | tr -d ' ')
    if [ -n "$ours" ] && grep -aqE "^\\[ *[0-9.]+\\]  $(printf '%s' "$ours" | sed 's/+/\\+/')/" "$TMP/crash.out"; then
        pass "crash/$fn/offset_as_the_kernel_says"
    else
        fail "crash/$fn/offset_as_the_kernel_says" "perch said '${ours:-nothing}'; the kernel's trace: $(grep -a -m1 " $fn+" "$TMP/crash.out")"
    fi
done

# Both streams into one file: the crash line comes last, after every line
# the guest wrote.
timeout 120 "$PERCH" run -- sh -c 'echo c > /proc/sysrq-trigger' >"$TMP/both.out" 2>&1 </dev/null
status=$?
expect_status both 4
last=$(tail -n 1 "$TMP/both.out")
case $last in
"perch: guest crashed (SHUTDOWN_crash) at rip "*) pass both/crash_line_last ;;
*) fail both/crash_line_last "the last line was: $(printf '%s' "$last" | head -c 200)" ;;
esac

# Through ring 0's stubs instead of DPL3 gates, the same place.
crash_run crash_ring0 --no-cpl3-events
expect_status crash_ring0 4
expect_line crash_ring0 err "; stack: .*panic\\+$hex .*sysrq_handle_crash\\+$hex"
