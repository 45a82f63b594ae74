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

# linux_run NAME CMD...: perch run -- CMD with the default kernel.
linux_run() {
    local name=$1
    shift
    timeout 120 "$PERCH" run -- "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
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

linux_run uname /bin/sh -c 'uname -a; echo ok'
if grep -q "cannot fetch Debian's cloud kernel" "$TMP/uname.err"; then
    echo "SKIP linux: $(grep -m1 '^perch: ' "$TMP/uname.err")"
    exit 0
fi
if grep -q '^perch: note: no busybox' "$TMP/uname.err" || [ ! -f "$CACHE/busybox" ]; then
    fail linux/busybox "perch has no busybox, so no command can run: $(head -c 300 "$TMP/uname.err")"
else
    pass linux/busybox
fi
expect_guest_status uname 0
# uname's own line (the kernel's log lines start with a timestamp).
expect_line uname out '^Linux .*6\.1\..*Debian'
expect_line uname out '^ok[[:space:]]*$'   # the tty may add \r
if grep -q 'perch-exit' "$TMP/uname.out"; then
    fail linux/exit_report_hidden "the exit report reached stdout"
else
    pass linux/exit_report_hidden
fi

linux_run exit7 /bin/sh -c 'exit 7'
expect_guest_status exit7 7

linux_run not_found /no/such/command
expect_guest_status not_found 127
expect_line not_found out "cannot run '/no/such/command'"

# Output nobody reads any more ends the run (issue 12's reproducer): perch
# stops with status 1 and one line, instead of feeding `yes` for ever.
timeout 60 "$PERCH" run -- /bin/yes 2>"$TMP/yes_head.err" </dev/null | head -c 10 >/dev/null
status=${PIPESTATUS[0]}
expect_status yes_head 1
expect_line yes_head err "^perch: cannot write the guest's output: Broken pipe$"

# The sandbox (launcher/sandbox.h): while the guest runs, perch's vCPU and
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
