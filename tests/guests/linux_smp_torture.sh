# The SMP torture: Debian's kernel on several vCPUs running work whose
# every result is checked, run after run. Each run boots once and, at the
# same time, runs `perchbench torture` (a pipe across CPUs, copy-on-write
# under a writing parent, fork and exec, two threads on two CPUs that must
# fault after mprotect and munmap) and the shell pipeline that once gave a
# wrong answer on two vCPUs; then takes vCPU 1 offline and back three times
# and checks the pipeline pinned there.
#
# `make test` runs it briefly; `make smp-torture N=1000` runs N boots.
# SMP_TORTURE_RUNS (2), SMP_TORTURE_ROUNDS (torture rounds a run, 3),
# SMP_TORTURE_PIPES (pipelines a run, 10) and SMP_TORTURE_CPUS (2) set
# the sizes. Skipped when the kernel cannot be fetched.
. tests/lib.sh

RUNS=${SMP_TORTURE_RUNS:-2}
ROUNDS=${SMP_TORTURE_ROUNDS:-3}
PIPES=${SMP_TORTURE_PIPES:-10}
CPUS=${SMP_TORTURE_CPUS:-2}

# The pipeline of linux.sh's `work` case, and the sum it must give.
PIPELINE='j=0; while [ $j -lt 20 ]; do echo "line $j"; j=$((j+1)); done | sort -r | head -n 3 | md5sum'
WANT=$(for i in 9 8 7; do echo "line $i"; done | md5sum | cut -d' ' -f1)

GUEST_SCRIPT='
mount -t sysfs sys /sys 2>/dev/null
perchbench torture '"$ROUNDS"' & torture=$!
bad=0; i=0
while [ $i -lt '"$PIPES"' ]; do
    s=$('"$PIPELINE"')
    [ "$s" = "'"$WANT"'  -" ] || { echo "pipeline FAIL $i: $s"; bad=1; }
    i=$((i+1))
done
wait $torture || bad=1
for k in 1 2 3; do
    echo 0 > /sys/devices/system/cpu/cpu1/online || bad=1
    echo 1 > /sys/devices/system/cpu/cpu1/online || bad=1
done
s=$(taskset -c 1 sh -c '"'$PIPELINE'"')
[ "$s" = "'"$WANT"'  -" ] || { echo "pinned pipeline FAIL: $s"; bad=1; }
[ $bad = 0 ] && echo "torture-run ok"
exit $bad
'

wrong=0
for run in $(seq 1 "$RUNS"); do
    name=run$run
    timeout 300 "$PERCH" run --cpus "$CPUS" -- /bin/sh -c "$GUEST_SCRIPT" \
        >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
    status=$?
    if [ "$run" = 1 ] && grep -q "cannot fetch Debian's cloud kernel" "$TMP/$name.err"; then
        echo "SKIP linux_smp_torture: $(grep -m1 '^perch: ' "$TMP/$name.err")"
        exit 0
    fi
    if [ "$status" = 0 ] && grep -q '^torture: ok' "$TMP/$name.out" &&
            grep -q '^torture-run ok' "$TMP/$name.out"; then
        pass "smp_torture/$name"
    else
        wrong=$((wrong + 1))
        fail "smp_torture/$name" "status $status: $(grep -a -m3 -e FAIL -e 'traps:' -e '^perch:' \
            "$TMP/$name.out" "$TMP/$name.err" | tr '\n' ' ')"
        cp "$TMP/$name.out" "build/test-logs/smp_torture_$name.out" 2>/dev/null
    fi
done
echo "smp torture: $RUNS runs on $CPUS vCPUs, $wrong wrong"
