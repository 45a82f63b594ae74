# The balloon: a guest that used most of its memory and freed it is set
# to a smaller target with `perch mem-set` (xenstore's memory/target, as
# `xl mem-set`); Linux's balloon driver gives the frames back
# (decrease_reservation, host/mm/reservation.c) and the perch process's
# RSS falls by about as much (the Launcher drops them, MADV_DONTNEED);
# set back up, the guest takes them again (populate_physmap) and can use
# all of it. Sizes outside the guest's range are refused with status 2.
# Debian's kernel, a private control folder.
. tests/lib.sh

export XDG_RUNTIME_DIR=$TMP/runtime
mkdir -m 0700 "$XDG_RUNTIME_DIR"

MEM=1024
LOW=256
FILL=700    # MiB the guest writes into a tmpfs of its own, then frees

# The guest: fill and free, then follow the target down and back up,
# saying where it is; then use the memory it took back.
GUEST_SCRIPT='
d=/sys/devices/system/xen_memory/xen_memory0
mkdir /fill && mount -t tmpfs -o size='"$FILL"'M fill /fill
dd if=/dev/zero of=/fill/f bs=1M count='"$FILL"' 2>/dev/null && rm /fill/f && echo filled
follow() {   # until current_kb reaches the target of $1 KiB (60 s at most)
    i=0
    while [ "$(cat $d/target_kb)" != "$1" ] || [ "$(cat $d/info/current_kb)" != "$1" ]; do
        i=$((i+1)); [ $i -gt 600 ] && { echo "stuck at $(cat $d/info/current_kb) KiB"; return 1; }
        sleep 0.1
    done
    echo "at $1 KiB: $(free -m | awk "/^Mem:/ { print \$2 }") MiB total"
}
follow '$((LOW * 1024))' || exit 1
follow '$((MEM * 1024))' || exit 1
dd if=/dev/zero of=/fill/f bs=1M count='"$FILL"' 2>/dev/null && echo "refilled" && rm /fill/f
'

rss_mib() { awk '/^VmRSS:/ { print int($2 / 1024) }' "/proc/$1/status"; }

"$PERCH" run --name bal -m "$MEM" --stats -- /bin/sh -c "$GUEST_SCRIPT" \
    >"$TMP/bal.out" 2>"$TMP/bal.err" </dev/null &
pid=$!
if ! wait_line "$TMP/bal.out" '^filled'; then
    fail balloon/filled "$(tail -c 300 "$TMP/bal.err")"
    kill "$pid"; wait "$pid"
    exit 0
fi
before=$(rss_mib "$pid")

perch_run below_floor mem-set bal 100
expect_status below_floor 2
expect_one_line_error below_floor
expect_line below_floor err "100 MiB is outside this guest's range, 112 to $MEM MiB"
perch_run above_max mem-set bal 2G
expect_status above_max 2
expect_line above_max err "2048 MiB is outside this guest's range"
perch_run not_a_size mem-set bal 1.5
expect_status not_a_size 2
expect_one_line_error not_a_size
perch_run no_guest mem-set nobody 512
expect_status no_guest 1
expect_one_line_error no_guest

perch_run down mem-set bal "$LOW"
expect_status down 0
if wait_line "$TMP/bal.out" "^at $((LOW * 1024)) KiB"; then pass balloon/down; else fail balloon/down "$(tail -n 3 "$TMP/bal.out")"; fi
after=$(rss_mib "$pid")
# The perch process holds no more than the guest's new size, within 10%:
# of what it held above that size, at least 90% went back to the host.
if [ "$after" -le $((LOW * 11 / 10)) ] && [ $((before - after)) -ge $(( (before - LOW) * 9 / 10 )) ]; then
    pass balloon/rss_returned
else
    fail balloon/rss_returned "RSS $before -> $after MiB, want at most $((LOW * 11 / 10)) MiB"
fi
echo "balloon: RSS $before MiB -> $after MiB after mem-set $MEM -> $LOW MiB"

perch_run up mem-set bal "$MEM"
expect_status up 0
if wait "$pid"; then pass balloon/powered_off; else fail balloon/powered_off "status $?: $(tail -c 300 "$TMP/bal.err")"; fi
if grep -q "^at $((MEM * 1024)) KiB" "$TMP/bal.out" && grep -q '^refilled' "$TMP/bal.out"; then
    pass balloon/up_and_usable
else
    fail balloon/up_and_usable "$(tail -n 4 "$TMP/bal.out")"
fi
if grep -Eq 'frames taken again +[1-9]' "$TMP/bal.err"; then pass balloon/taken_again; else fail balloon/taken_again "no frames taken in --stats"; fi
