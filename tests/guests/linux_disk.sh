# Debian's kernel with its own xen-blkfront on perch's block back end: a
# small ext4 image made here (mke2fs -d, no network) is read, written, and
# what the guest fsync'ed is on the host file even when perch is killed
# with SIGKILL right after; two vCPUs writing at once lose nothing; a
# read-only disk refuses writes; a clean poweroff leaves the file system
# clean for e2fsck -n.
. tests/lib.sh

if ! command -v mke2fs >/dev/null; then
    echo "SKIP linux_disk: no mke2fs (e2fsprogs)"
    exit 0
fi
mkdir -p "$TMP/tree"
seq 1 5000 >"$TMP/tree/numbers"
IMG=$TMP/disk.img
mke2fs -q -t ext4 -d "$TMP/tree" "$IMG" 32M || { fail linux_disk/made "mke2fs failed"; exit 0; }

# prun NAME DISK CMD: one boot with perch's initramfs and the disk at /m.
prun() {
    local name=$1 disk=$2
    shift 2
    timeout 120 "$PERCH" run $RUN_OPTS --disk "$disk" -- /bin/sh -c "mkdir -p /m && mount -t ext4 $MOUNT_OPTS /dev/xvda /m && $1" \
        >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
    status=$?
}

MOUNT_OPTS=
RUN_OPTS=
prun read "$IMG" 'md5sum /m/numbers; umount /m'
expect_status read 0
expect_line read out "^$(md5sum <"$TMP/tree/numbers" | cut -d' ' -f1)  /m/numbers"

prun write "$IMG" 'seq 1 20000 > /m/more; sync; umount /m'
expect_status write 0
prun write_back "$IMG" 'md5sum /m/more; umount /m'
expect_line write_back out "^$(seq 1 20000 | md5sum | cut -d' ' -f1)  /m/more"

# fsync, then SIGKILL: the next boot finds the data.
"$PERCH" run --disk "$IMG" -- /bin/sh -c \
    'mkdir -p /m && mount -t ext4 /dev/xvda /m && echo durable-$$ > /m/d && sync /m/d && echo SYNCED && sleep 600' \
    >"$TMP/kill.out" 2>"$TMP/kill.err" </dev/null &
pid=$!
for _ in $(seq 1 1200); do
    grep -q '^SYNCED' "$TMP/kill.out" 2>/dev/null && break
    sleep 0.1
done
{ kill -KILL $pid; wait $pid; } 2>/dev/null
if grep -q '^SYNCED' "$TMP/kill.out"; then pass kill/synced; else fail kill/synced "the guest never said SYNCED"; fi
prun after_kill "$IMG" 'cat /m/d; umount /m'
expect_status after_kill 0
expect_line after_kill out '^durable-[0-9]+'

# Two vCPUs writing at once, each pinned to its own: every byte is on the
# host file afterwards, read back by another two-vCPU boot.
RUN_OPTS="--cpus 2"
prun smp_write "$IMG" 'for c in 0 1; do taskset -c $c sh -c "seq $c 3 90000 > /m/w$c; sync" & done; wait; umount /m'
expect_status smp_write 0
prun smp_read "$IMG" 'md5sum /m/w0 /m/w1; umount /m'
expect_line smp_read out "^$(seq 0 3 90000 | md5sum | cut -d' ' -f1)  /m/w0"
expect_line smp_read out "^$(seq 1 3 90000 | md5sum | cut -d' ' -f1)  /m/w1"
RUN_OPTS=

# Clean poweroff after all that: e2fsck finds nothing to fix.
if e2fsck -fn "$IMG" >"$TMP/fsck.out" 2>&1; then
    pass fsck_clean
else
    fail fsck_clean "$(tail -n 3 "$TMP/fsck.out" | tr '\n' ' ')"
fi

# Read-only: the guest mounts it read-only and cannot write.
before=$(md5sum <"$IMG")
MOUNT_OPTS="-o ro"
prun readonly "$IMG,ro" 'if echo x > /m/nope; then echo WROTE; else echo REFUSED; fi; cat /sys/block/xvda/ro; umount /m'
expect_line readonly out '^REFUSED'
expect_line readonly out '^1[[:space:]]*$'
if [ "$(md5sum <"$IMG")" = "$before" ]; then pass readonly/unchanged; else fail readonly/unchanged "the image changed"; fi
