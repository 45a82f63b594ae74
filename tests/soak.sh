#!/usr/bin/env bash
# `make soak`: Debian's kernel under perch (an ASan/UBSan build, $PERCH)
# loops fork + exec, pipes and console output for SOAK_MINUTES; every
# SOAK_INTERVAL seconds the Launcher's resident memory and open files are
# sampled. Passes when the guest ends with status 0, no sanitizer spoke,
# the open files stayed the same and memory stayed flat (the last sample
# within SOAK_RSS_SLACK_KIB of the first after boot).
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh

MINUTES=${SOAK_MINUTES:-30}
INTERVAL=${SOAK_INTERVAL:-60}
SLACK=${SOAK_RSS_SLACK_KIB:-8192}
LOOP='end=$(( $(date +%s) + '"$MINUTES"' * 60 )); n=0
while [ $(date +%s) -lt $end ]; do
    /bin/true; echo soak | cat >/dev/null; seq 1 50 | tr 0-9 a-j; n=$((n + 1))
done; echo "soak: $n rounds"'

"$PERCH" run -- /bin/sh -c "$LOOP" >"$TMP/soak.out" 2>"$TMP/soak.err" </dev/null &
pid=$!
samples=()
sleep 5
while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
    fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
    [ -n "$rss" ] && { samples+=("$rss $fds"); echo "# soak: $(date -u +%H:%M:%S) rss ${rss} KiB, ${fds} open files"; }
    for _ in $(seq 1 "$INTERVAL"); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
done
wait "$pid"
status=$?
expect_status soak 0
echo "# $(grep -a -m1 '^soak: ' "$TMP/soak.out" | tr -d '\r')"
expect_line soak out '^soak: [0-9]+ rounds'
if grep -q -e 'ERROR: AddressSanitizer' -e 'runtime error:' -e 'LeakSanitizer' "$TMP/soak.err"; then
    fail soak/sanitizers "$(grep -m1 -e ERROR -e 'runtime error' "$TMP/soak.err")"
else
    pass soak/sanitizers
fi
if [ "${#samples[@]}" -lt 2 ]; then
    fail soak/samples "only ${#samples[@]} samples"
else
    read -r rss0 fds0 <<<"${samples[0]}"
    read -r rss1 fds1 <<<"${samples[-1]}"
    if [ "$fds1" -eq "$fds0" ]; then pass soak/open_files_flat; else fail soak/open_files_flat "$fds0 -> $fds1"; fi
    if [ "$rss1" -le $((rss0 + SLACK)) ]; then pass soak/memory_flat; else fail soak/memory_flat "$rss0 -> $rss1 KiB"; fi
fi
