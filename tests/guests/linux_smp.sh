# Debian's kernel on several vCPUs (--cpus N): Linux brings them up through
# VCPUOP_initialise and VCPUOP_up, runs on them, takes one offline and back,
# and perch ends cleanly however the run ends. The Linux tests of linux.sh
# run once with --cpus 2 as well. Skipped when the kernel cannot be fetched.
. tests/lib.sh

smp_run() {
    local name=$1
    shift
    timeout 120 "$PERCH" run "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
    status=$?
}

smp_run nproc --cpus 2 -- /bin/sh -c 'nproc; grep -c ^processor /proc/cpuinfo'
if grep -q "cannot fetch Debian's cloud kernel" "$TMP/nproc.err"; then
    echo "SKIP linux_smp: $(grep -m1 '^perch: ' "$TMP/nproc.err")"
    exit 0
fi
expect_status nproc 0
expect_line nproc out '^2[[:space:]]*$'
expect_line nproc out 'smp: Brought up 1 node, 2 CPUs'
if [ "$(grep -c '^2[[:space:]]*$' "$TMP/nproc.out")" -eq 2 ]; then
    pass nproc/cpuinfo
else
    fail nproc/cpuinfo "nproc and /proc/cpuinfo do not both say 2"
fi

# Steal time: two vCPUs on one host CPU (the perch process pinned there),
# each busy: each waits for the other about half the time, which KVM
# counts and Linux shows as steal in /proc/stat (Xen's runnable time),
# and --stats as each vCPU's steal.
STEAL_LOOP='i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done'
timeout 120 taskset -c 0 "$PERCH" run --cpus 2 --stats -- /bin/sh -c \
    "($STEAL_LOOP) & ($STEAL_LOOP); wait; grep '^cpu[01] ' /proc/stat" \
    >"$TMP/steal.out" 2>"$TMP/steal.err" </dev/null
status=$?
expect_status steal 0
steal0=$(awk '/^cpu0 / { print $9 }' "$TMP/steal.out")
steal1=$(awk '/^cpu1 / { print $9 }' "$TMP/steal.out")
if [ "${steal0:-0}" -gt 0 ] && [ "${steal1:-0}" -gt 0 ]; then
    pass steal/proc_stat
else
    fail steal/proc_stat "steal ticks cpu0 '$steal0' cpu1 '$steal1'"
fi
if awk '/lock waits/ { t = 1; next } t && $1 ~ /^[01]$/ { if ($NF + 0 > 0) n++ } END { exit n != 2 }' "$TMP/steal.err"; then
    pass steal/stats
else
    fail steal/stats "$(grep -A2 'lock waits' "$TMP/steal.err")"
fi

# -smp is QEMU's spelling; four vCPUs on this machine's cores share them.
smp_run four -smp 4 -- /bin/nproc
expect_status four 0
expect_line four out '^4[[:space:]]*$'

# Work pinned to vCPU 1 runs there (its user time in /proc/stat), and two
# CPU-bound processes at once give the right answers.
smp_run pinned --cpus 2 -- /bin/sh -c \
    'taskset -c 1 awk "BEGIN{for(i=0;i<3000000;i++)s+=i; print s}"; grep "^cpu1 " /proc/stat'
expect_status pinned 0
expect_line pinned out '^4499998500000[[:space:]]*$'
cpu1_user=$(sed -n 's/^cpu1 \([0-9]*\) .*/\1/p' "$TMP/pinned.out")
if [ -n "$cpu1_user" ] && [ "$cpu1_user" -gt 0 ]; then
    pass pinned/ran_on_cpu1
else
    fail pinned/ran_on_cpu1 "vCPU 1's user time is '$cpu1_user'"
fi
smp_run parallel --cpus 2 -- /bin/sh -c \
    'for c in 0 1; do taskset -c $c sh -c "seq 1 20000 | md5sum > /tmp/m$c" & done; wait; cat /tmp/m0 /tmp/m1'
expect_status parallel 0
want=$(seq 1 20000 | md5sum | cut -d' ' -f1)
if [ "$(grep -c "^$want" "$TMP/parallel.out")" -eq 2 ]; then
    pass parallel/both_right
else
    fail parallel/both_right "not two right sums: $(grep -a -- '  -' "$TMP/parallel.out" | tr '\n' ' ')"
fi

# A pipe from vCPU 0 to vCPU 1: each wake-up of the other side is an event
# to a vCPU that had nothing to run. It spins before it sleeps, and the
# event reaches it there, without an IPI; with --no-idle-spin it sleeps at
# once. The sum is right either way.
for spin in on off; do
    opt=; [ $spin = off ] && opt=--no-idle-spin
    smp_run "pipe_spin_$spin" --cpus 2 --stats $opt -- /bin/sh -c \
        'taskset -c 0 seq 1 20000 | taskset -c 1 md5sum'
    expect_status "pipe_spin_$spin" 0
    expect_line "pipe_spin_$spin" out "^$want"
done
if grep -Eq "ended by another vCPU's event [1-9][0-9]*; IPIs that needed none [1-9]" "$TMP/pipe_spin_on.err"; then
    pass pipe_spin_on/spared_ipis
else
    fail pipe_spin_on/spared_ipis "$(grep 'spins before sleeping' "$TMP/pipe_spin_on.err")"
fi
expect_line pipe_spin_off err "spins before sleeping 0, ended by another vCPU's event 0; IPIs that needed none 0"

# CPU hotplug: vCPU 1 goes offline (VCPUOP_down on itself) and comes back
# (VCPUOP_up), then runs work again.
smp_run hotplug --cpus 2 -- /bin/sh -c \
    'mount -t sysfs sys /sys; echo 0 > /sys/devices/system/cpu/cpu1/online; echo "off $(nproc)"; echo 1 > /sys/devices/system/cpu/cpu1/online; echo "on $(nproc)"; taskset -c 1 echo back'
expect_status hotplug 0
expect_line hotplug out '^off 1[[:space:]]*$'
expect_line hotplug out '^on 2[[:space:]]*$'
expect_line hotplug out '^back[[:space:]]*$'

# A fork-heavy run flushes other vCPUs' TLBs (--stats counts the
# shootdowns) and still ends with the right answer.
smp_run shootdown --cpus 2 --stats -- /bin/sh -c \
    'for c in 0 1; do taskset -c $c sh -c "i=0; while [ \$i -lt 60 ]; do /bin/true; i=\$((i+1)); done; echo done$c" & done; wait'
expect_status shootdown 0
expect_line shootdown out '^done0[[:space:]]*$'
expect_line shootdown out '^done1[[:space:]]*$'
expect_line shootdown err '^ +TLB shootdowns \(vCPUs\) +[1-9][0-9]*$'

# The guest ends from vCPU 1 (its shell powers off there): perch ends with
# the command's status, no vCPU thread left behind.
smp_run end_on_cpu1 --cpus 2 -- /bin/sh -c 'exec taskset -c 1 sh -c "exit 3"'
expect_status end_on_cpu1 3

# Each vCPU's thread is confined once the guest runs.
"$PERCH" run --cpus 2 -- /bin/sleep 3 >/dev/null 2>&1 </dev/null &
pid=$!
most=0
for _ in $(seq 1 100); do
    n=$(grep -l 'Seccomp:[[:space:]]*2' /proc/$pid/task/*/status 2>/dev/null | wc -l)
    [ "$n" -gt "$most" ] && most=$n
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
done
wait $pid
if [ "$most" -ge 3 ]; then pass sandbox/both_vcpus_confined; else fail sandbox/both_vcpus_confined "$most confined threads, want both vCPUs' and the console's"; fi

