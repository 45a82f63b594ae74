# Debian's cloud kernel, perch's default guest, running one command each
# time through perch's initramfs (/init and busybox): `perch run -- CMD`
# must show CMD's output and exit with CMD's status.
#
# The first run fetches the kernel and busybox-static with apt into perch's
# cache (network needed once). A kernel that cannot be fetched skips the
# rest (SKIP); busybox that cannot be fetched is a FAIL, since then no
# command can run.
. tests/lib.sh

CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/perch
[ "${CACHE#/}" != "$CACHE" ] || CACHE=$HOME/.cache/perch   # XDG: absolute only

# linux_run NAME PERCH_OPTIONS... -- CMD...: perch run -- CMD with the
# default kernel.
linux_run() {
    local name=$1
    shift
    timeout 120 "$PERCH" run "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
    status=$?
}

# expect_guest_status NAME WANT: like expect_status, and on failure shows
# where the guest's console stopped (a panic, say), not just perch's line.
expect_guest_status() {
    if [ "$status" -eq "$2" ]; then
        pass "$1"
    else
        fail "$1" "status $status, want $2; stderr: $(head -c 200 "$TMP/$1.err" | tr '\n' ' ')console ended with: $(grep -a -m1 -e 'Kernel panic' -e 'BUG:' -e 'Oops' "$TMP/$1.out" || tail -n 1 "$TMP/$1.out")"
    fi
}

linux_run uname -- /bin/sh -c 'uname -a; echo ok'
if grep -q "cannot fetch Debian's cloud kernel" "$TMP/uname.err"; then
    echo "SKIP linux: $(grep -m1 '^perch: ' "$TMP/uname.err")"
    exit 0
fi
if grep -q '^perch: note: no busybox' "$TMP/uname.err" || [ ! -f "$CACHE/busybox" ]; then
    fail linux/busybox "perch has no busybox, so no command can run: $(head -c 300 "$TMP/uname.err")"
else
    pass linux/busybox
fi

# The same in every mode the switches give: the defaults, guest processes
# without isolation, events through ring 0 as before CPL3 events, and the
# kernel's page-table stores trapping every time instead of patched,
# hypercalls by `syscall` instead of direct calls (alone, and with two
# vCPUs), and two vCPUs (tests/guests/linux_smp.sh has the SMP cases of
# its own).
for opts in "" --no-guest-isolation --no-cpl3-events "--no-guest-isolation --no-fault-decode" "--cpus 2" \
        --no-insn-patching --trap-hypercalls "--trap-hypercalls --cpus 2"; do
    m=$(printf '%s' "$opts" | tr -c 'a-z0-9' '_')
    [ -z "$opts" ] || linux_run "uname$m" $opts -- /bin/sh -c 'uname -a; echo ok'
    expect_guest_status "uname$m" 0
    # uname's own line (the kernel's log lines start with a timestamp).
    expect_line "uname$m" out '^Linux .*6\.1\..*Debian'
    expect_line "uname$m" out '^ok[[:space:]]*$'   # the tty may add \r
    if grep -q 'perch-exit' "$TMP/uname$m.out"; then
        fail "linux$m/exit_report_hidden" "the exit report reached stdout"
    else
        pass "linux$m/exit_report_hidden"
    fi

    linux_run "exit7$m" $opts -- /bin/sh -c 'exit 7'
    expect_guest_status "exit7$m" 7

    linux_run "not_found$m" $opts -- /no/such/command
    expect_guest_status "not_found$m" 127
    expect_line "not_found$m" out "cannot run '/no/such/command'"

    # A fork, exec, pipe and page-fault workload, checked by its output.
    linux_run "work$m" $opts -- /bin/sh -c \
        'i=0; while [ $i -lt 20 ]; do echo "line $i"; i=$((i+1)); done | sort -r | head -n 3 | md5sum; seq 1 3000 | tr -d 0 | wc -c'
    expect_guest_status "work$m" 0
    expect_line "work$m" out "^$(for i in 9 8 7; do echo "line $i"; done | md5sum | cut -d' ' -f1)  -"
    expect_line "work$m" out "^$(seq 1 3000 | tr -d 0 | wc -c)[[:space:]]*$"
done

# The default command line keeps Linux's lock prefixes (noreplace-smp,
# launcher/boot/linux_cmdline.h): a one-CPU boot then rewrites none of
# them, each a text poke of two CR3 loads; with the old default it pokes
# thousands.
linux_run cmdline --stats -- /bin/cat /proc/cmdline
expect_guest_status cmdline 0
expect_line cmdline out '^console=hvc0 noreplace-smp[[:space:]]*$'
linux_run cmdline_old --stats --cmdline console=hvc0 -- /bin/true
cr3_default=$(sed -n 's/^ *service: cr3 load *\([0-9]*\)$/\1/p' "$TMP/cmdline.err")
cr3_old=$(sed -n 's/^ *service: cr3 load *\([0-9]*\)$/\1/p' "$TMP/cmdline_old.err")
if [ -n "$cr3_default" ] && [ -n "$cr3_old" ] && [ $((cr3_default * 4)) -lt "$cr3_old" ]; then
    pass linux/no_lock_prefix_pokes
else
    fail linux/no_lock_prefix_pokes "CR3 loads: $cr3_default by default, $cr3_old with console=hvc0 alone"
fi

# Without isolation a guest-user system call reaches the guest kernel with
# no ring-0 visit: --stats counts them at CPL3.
linux_run stats_noiso --stats --no-guest-isolation -- /bin/true
expect_guest_status stats_noiso 0
expect_line stats_noiso err '^ +guest-user syscall +[1-9][0-9]*$'
if sed -n '/Switcher visits/,/total/p' "$TMP/stats_noiso.err" | grep -q 'guest-user syscall'; then
    fail linux/no_isolation_syscalls_skip_ring0 "a guest-user syscall went through ring 0"
else
    pass linux/no_isolation_syscalls_skip_ring0
fi

# Direct calls (host/cpu/direct_calls.h): by default nearly every hypercall
# and iret of the boot comes by a jump, none by a trap, with
# --trap-hypercalls none does. (Under make test-trap-hypercalls every run
# has --trap-hypercalls: these checks are for the default.)
if [ -z "${PERCH_TRAP_HYPERCALLS:-}" ]; then
    linux_run direct --stats -- /bin/true
    expect_guest_status direct 0
    expect_line direct err '^ +of them direct, no trap +[1-9][0-9]* +\(xen_hypercall_pv and xen_iret jump to the Host\)$'
    total=$(sed -n '/^  hypercalls/,/total/s/^ *total *\([0-9]*\)$/\1/p' "$TMP/direct.err")
    direct=$(sed -n 's/^ *of them direct, no trap *\([0-9]*\) .*/\1/p' "$TMP/direct.err")
    if [ -n "$total" ] && [ -n "$direct" ] && [ $((direct * 100)) -ge $((total * 95)) ]; then
        pass linux/direct_calls_most
    else
        fail linux/direct_calls_most "$direct of $total hypercalls direct, want 95% or more"
    fi
    linux_run direct_off --stats --trap-hypercalls -- /bin/true
    expect_guest_status direct_off 0
    expect_line direct_off err '^ +of them direct, no trap +0 +\(--trap-hypercalls\)$'
    # ... and --stats names where the trapped ones came from: none by
    # default, Linux's xen_hypercall_pv with --trap-hypercalls.
    expect_line direct err '^  guest-kernel hypercalls by syscall \(a trap each\), by the address after it: none$'
    expect_line direct_off err '^ +xen_hypercall_pv\+0x[0-9a-f]+ +[1-9][0-9]*$'
fi

# Output nobody reads any more ends the run (`perch run -- /bin/yes | head`): perch
# stops with status 1 and one line, instead of feeding `yes` for ever.
timeout 60 "$PERCH" run -- /bin/yes 2>"$TMP/yes_head.err" </dev/null | head -c 10 >/dev/null
status=${PIPESTATUS[0]}
expect_status yes_head 1
expect_line yes_head err "^perch: cannot write the guest's output: Broken pipe$"

# The sandbox (launcher/vm/sandbox.h): while the guest runs, perch's vCPU and
# console threads are in seccomp filter mode and the main thread is not;
# --no-sandbox leaves every thread free. (test_sandbox shows what the
# filter refuses.)
# confined_threads [OPTIONS]: how many of perch's threads are confined
# while `sleep 3` runs in the guest (the largest count seen).
confined_threads() {
    local pid most=0 n
    "$PERCH" run "$@" -- /bin/sleep 3 >/dev/null 2>&1 </dev/null &
    pid=$!
    for _ in $(seq 1 100); do
        n=$(grep -l 'Seccomp:[[:space:]]*2' /proc/$pid/task/*/status 2>/dev/null | wc -l)
        [ "$n" -gt "$most" ] && most=$n
        grep -q 'Seccomp:[[:space:]]*2' /proc/$pid/status 2>/dev/null && most=-1 && break
        kill -0 $pid 2>/dev/null || break
        sleep 0.1
    done
    wait $pid
    echo "$most"
}
n=$(confined_threads)
if [ "$n" -ge 2 ]; then pass sandbox/threads_confined; else fail sandbox/threads_confined "$n confined threads (-1: the main thread too), want the vCPU and console threads"; fi
n=$(confined_threads --no-sandbox)
if [ "$n" -eq 0 ]; then pass sandbox/no_sandbox; else fail sandbox/no_sandbox "$n confined threads with --no-sandbox"; fi

# stdin that is a pipe or a file: the shell reads it and its exit status
# is perch's; at its end the guest's console hears Ctrl-D (again for each
# reader: a `cat` first, then the shell), so the run ends by itself
# instead of waiting for a terminal that is not there.
# piped NAME INPUT: perch run with INPUT on stdin, no command.
piped() {
    printf '%b' "$2" | timeout 60 "$PERCH" run >"$TMP/$1.out" 2>"$TMP/$1.err"
    status=${PIPESTATUS[1]}
}
piped stdin_exit 'echo "piped hi"; exit 3\n'
expect_status stdin_exit 3
expect_line stdin_exit out '^piped hi'
timeout 60 "$PERCH" run >"$TMP/stdin_null.out" 2>"$TMP/stdin_null.err" </dev/null
status=$?
expect_status stdin_null 0
piped stdin_cat_then_shell 'cat\nto cat\n'
expect_status stdin_cat_then_shell 0
piped stdin_last_line_open 'echo "no newline"'
expect_status stdin_last_line_open 0
expect_line stdin_last_line_open out '^no newline'
