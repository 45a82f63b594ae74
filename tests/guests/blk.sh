# The disk back end (launcher/disk/vbd.c, blkif*.c, xenstore.c) against the blk
# guest's own front end (guests/blk): an honest boot whose writes must land
# exactly where a reference image built here has them, a read-only disk
# that must not change, and one hostile case per boot (attack=NAME): wrong
# requests are answered with an error and write nothing, a corrupt ring or
# xenstore stream stops the guest (status 5, one "perch:" line), a watch
# storm meets the quotas, a bad event channel closes the device only.
. tests/lib.sh

BLK=$GUESTS/blk.elf
SECTORS=16384

same_file() {
    if cmp -s "$2" "$3"; then pass "$1"; else fail "$1" "$(cmp "$2" "$3" 2>&1 | head -1)"; fi
}

# put_pattern FILE FIRST COUNT: the guest's pattern for those sectors, each
# 32 lines "s%07u:blkpat\n" (guests/blk/frontend.c, blk_pattern).
put_pattern() {
    awk -v f="$2" -v n="$3" 'BEGIN { for (s = f; s < f + n; s++) for (l = 0; l < 32; l++)
        printf "s%07d:blkpat\n", s }' |
        dd of="$1" bs=512 seek="$2" conv=notrunc status=none
}

truncate -s $((SECTORS * 512)) "$TMP/zero.img"

# ---- The honest boot and its reference ----
cp "$TMP/zero.img" "$TMP/disk.img"
guest_run honest 60 --disk "$TMP/disk.img" "$BLK"
guest_lines blk honest
expect_status honest 0
guest_passed blk honest
cp "$TMP/zero.img" "$TMP/want.img"
put_pattern "$TMP/want.img" 16 8            # write, flush, read back
put_pattern "$TMP/want.img" 64 73           # 11 segments
put_pattern "$TMP/want.img" 256 256         # indirect, 32 pages
put_pattern "$TMP/want.img" 1028 4          # 1024-1027 discarded
put_pattern "$TMP/want.img" $((SECTORS - 1)) 1
same_file honest/disk_holds_the_pattern "$TMP/disk.img" "$TMP/want.img"
check_size() {
    local size
    size=$(stat -c %s "$2")
    if [ "$size" = $((SECTORS * 512)) ]; then pass "$1"; else fail "$1" "$size bytes"; fi
}
check_size honest/disk_size_unchanged "$TMP/disk.img"

# ---- Read-only: the honest run's sectors read back, nothing changes ----
cp "$TMP/want.img" "$TMP/ro.img"
guest_run ro 60 --disk "$TMP/ro.img,ro" "$BLK"
guest_lines blk ro
expect_status ro 0
guest_passed blk ro
same_file ro/file_unchanged "$TMP/ro.img" "$TMP/want.img"

# ---- Wrong requests: an error each, the back end serves on, no byte written ----
for attack in nr_segments_12 first_gt_last last_sect_8 past_end gref_beyond \
              gref_ungranted ro_grant_read unknown_op; do
    cp "$TMP/zero.img" "$TMP/$attack.img"
    guest_run "$attack" 60 --disk "$TMP/$attack.img" --cmdline "attack=$attack" "$BLK"
    guest_lines blk "$attack"
    expect_status "$attack" 0
    guest_passed blk "$attack"
    same_file "$attack/disk_unchanged" "$TMP/$attack.img" "$TMP/zero.img"
    check_size "$attack/disk_size_unchanged" "$TMP/$attack.img"
done

# ---- Corrupt rings: the guest is stopped, one line says why ----
stopped() {
    local attack=$1 regex=$2
    cp "$TMP/zero.img" "$TMP/$attack.img"
    guest_run "$attack" 60 --disk "$TMP/$attack.img" --cmdline "attack=$attack" "$BLK"
    expect_status "$attack" 5
    expect_one_line_error "$attack"
    expect_line "$attack" err "$regex"
    same_file "$attack/disk_unchanged" "$TMP/$attack.img" "$TMP/zero.img"
}
stopped ring_req_prod '^perch: guest stopped: xvda: blkif ring index corrupted \(req_prod [0-9]+, '
stopped xs_len '^perch: guest stopped: xenstore: .*payload longer than 4096 bytes'
stopped xs_req_prod '^perch: guest stopped: xenstore: .*req_prod more than a ring ahead'

# ---- A watch storm: quotas answer, perch stays small, the guest goes on ----
cp "$TMP/zero.img" "$TMP/storm.img"
(timeout -k 10 120 /usr/bin/time -f 'maxrss %M' -o "$TMP/storm.rss" "$PERCH" run \
    --disk "$TMP/storm.img" --cmdline attack=xs_storm "$BLK" \
    >"$TMP/storm.out" 2>"$TMP/storm.err" </dev/null; exit $?) 2>/dev/null
status=$?
guest_lines blk storm
expect_status storm 0
guest_passed blk storm
rss=$(awk '$1 == "maxrss" { print $2 }' "$TMP/storm.rss" 2>/dev/null)
# The guest's memory is mapped but barely touched: perch's own heap is
# what a storm could grow.
if [ -n "$rss" ] && [ "$rss" -lt 65536 ]; then
    pass storm/perch_rss_bounded
else
    fail storm/perch_rss_bounded "max RSS ${rss:-unknown} KiB"
fi

# ---- An event channel that is not the guest's for domain 0 ----
for attack in evtchn_console evtchn_other; do
    cp "$TMP/zero.img" "$TMP/$attack.img"
    guest_run "$attack" 60 --disk "$TMP/$attack.img" --cmdline "attack=$attack" "$BLK"
    guest_lines blk "$attack"
    expect_status "$attack" 0
    guest_passed blk "$attack"
    expect_line "$attack" err '^perch: xvda: .*event-channel is not a port for domain 0'
done
