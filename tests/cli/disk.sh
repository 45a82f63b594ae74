# --disk and --root on the command line: every file that cannot be a disk
# gets one 'perch: ...' line and a non-zero status before the guest starts
# (the test kernel would otherwise run: hello.elf ends by itself), and the
# option's own mistakes get status 2.
. tests/cli/helpers.bash

D=$TMP/disks
mkdir -p "$D"
truncate -s 1M "$D/good.img"
truncate -s 1000 "$D/odd.img"
: >"$D/empty.img"
mkfifo "$D/fifo"
mkdir "$D/dir.img"
truncate -s 1M "$D/locked.img"

# Option mistakes: status 2.
perch_run disk_no_value run "$HELLO" --disk
expect_error disk_no_value 2 "option --disk needs a value"
perch_run disk_bad_flag run --disk "$D/good.img,rw" "$HELLO"
expect_error disk_bad_flag 2 "unknown flag 'rw'"
perch_run disk_too_many run $(for i in 1 2 3 4 5 6 7 8 9; do echo --disk "$D/good.img"; done) "$HELLO"
expect_error disk_too_many 2 "at most 8 --disk"
perch_run root_not_a_device run --disk "$D/good.img" --root xvda "$HELLO"
expect_error root_not_a_device 2 "is not a device"
perch_run root_without_disk run --root /dev/xvda "$HELLO"
expect_error root_without_disk 2 "needs a --disk"
perch_run root_twice run --disk "$D/good.img" --root /dev/xvda --root /dev/xvdb "$HELLO"
expect_error root_twice 2 "option --root given twice"

# Files that are no disks: status 1, before the guest runs.
for case in "missing:$D/nosuch.img:No such file" "dir:$D/dir.img:is a directory" \
            "fifo:$D/fifo:not a regular file" "odd:$D/odd.img:not a positive multiple of 512" \
            "empty:$D/empty.img:not a positive multiple of 512"; do
    name=disk_${case%%:*}
    rest=${case#*:}
    perch_run "$name" run --disk "${rest%%:*}" "$HELLO"
    expect_error "$name" 1 "${rest#*:}"
done
perch_run disk_twice run --disk "$D/good.img" --disk "$D/../disks/good.img,ro" "$HELLO"
expect_error disk_twice 1 "are the same file"

# Another program holds the image (as a second perch would): refused.
flock "$D/locked.img" sleep 30 &
holder=$!
sleep 0.2
perch_run disk_locked run --disk "$D/locked.img" "$HELLO"
expect_error disk_locked 1 "in use by another program"
kill $holder 2>/dev/null; wait $holder 2>/dev/null

# A read-only file without ,ro: refused with the hint; with ,ro it opens.
# As root, permissions do not stop an open: run perch as nobody then.
chmod 0444 "$D/good.img"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    chmod 0755 "$TMP" "$D"
    as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
else
    as_user=()
fi
# The kernel goes beside the disk: the checkout may be a folder nobody
# cannot enter.
cp "$HELLO" "$D/hello.elf" && chmod 0644 "$D/hello.elf"
"${as_user[@]}" "$PERCH" run --disk "$D/good.img" "$D/hello.elf" >"$TMP/disk_readonly.out" 2>"$TMP/disk_readonly.err"
status=$?
expect_error disk_readonly 1 "cannot open it for writing .*add ,ro"
