# The kernel's trapping page-table stores are patched into Host calls
# (host/cpu/insn_patch.c), and Linux runs on correctly while it rewrites its
# own text: function tracing on and off (ftrace pokes every function), a
# static key flipped (sched_schedstats), a module unloaded and loaded
# again; then fork, exec and copy-on-write once more. With
# --no-insn-patching the fork and exec alone, which must leave every
# store trapping.
. tests/lib.sh

work='work() { i=0; while [ $i -lt 40 ]; do /bin/true; i=$((i+1)); done; echo "$1 ok"; }
work before'
script="$work"'
mount -t tracefs nodev /sys/kernel/tracing
echo function > /sys/kernel/tracing/current_tracer && work ftrace
echo nop > /sys/kernel/tracing/current_tracer && work after-ftrace
echo 1 > /proc/sys/kernel/sched_schedstats && work static-key
rmmod xen_netfront && insmod /lib/modules/xen-netfront.ko && work module'

for opts in "" --no-insn-patching; do
    name=patch${opts:+_off}
    if [ -z "$opts" ]; then
        guest_run "$name" 240 --stats -- /bin/sh -c "$script"
        steps="before ftrace after-ftrace static-key module"
    else
        guest_run "$name" 240 --stats $opts -- /bin/sh -c "$work"
        steps=before
    fi
    expect_status "$name" 0
    for step in $steps; do
        expect_line "$name" out "^$step ok"
    done
    through=$(sed -n 's/^ *stores through patches *\([0-9]*\)$/\1/p' "$TMP/$name.err")
    # A 5-byte site calls the patched xen_hypercall_pv (no trap); by
    # `syscall` under make test-trap-hypercalls, where no call is patched.
    five=' 5 bytes +[0-9]+ +[1-9][0-9]*  patched \(call\)'
    [ -n "${PERCH_TRAP_HYPERCALLS:-}" ] && five=' 5 bytes +[0-9]+ +[1-9][0-9]*  patched'
    if [ -z "$opts" ] && [ "${PERCH_CPUS:-1}" -gt 1 ]; then
        # make test-cpus: each rewrite goes as Linux's text_poke_bp; the
        # call form and the syscall forms are written (an event between
        # the latter's instructions puts the vCPU back to the site).
        expect_line "$name" err "$five"
        expect_line "$name" err ' 3 bytes +[0-9]+ +[1-9][0-9]*  patched'
        if [ "${through:-0}" -gt 100 ]; then
            pass "$name/stores_through_patches"
        else
            fail "$name/stores_through_patches" "only '${through}'"
        fi
    elif [ -z "$opts" ]; then
        # ftrace rewrote the text: the patches there gave their bytes
        # back, and were made again once the text was read-only.
        expect_line "$name" err ' [0-9]+ +[0-9]+  patched( \(call\))?; restored [0-9]+x for a text write$'
        expect_line "$name" err "$five"
        if [ "${through:-0}" -gt 100 ]; then
            pass "$name/stores_through_patches"
        else
            fail "$name/stores_through_patches" "only '${through}'"
        fi
    else
        if [ "$through" = 0 ] && ! grep -Eq ' patched( \(call\))?$' "$TMP/$name.err" &&
           grep -q ' --no-insn-patching$' "$TMP/$name.err"; then
            pass "$name/nothing_patched"
        else
            fail "$name/nothing_patched" "$(grep -A8 'trapping page-table' "$TMP/$name.err")"
        fi
    fi
done
