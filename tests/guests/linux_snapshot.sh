# perch save and perch restore (launcher/run/save.c, restore.c): a guest
# saved mid-way through its work and restored finishes it, every line once
# and in order, with its command's status; the same with --cpus 2, after a
# --leave-running checkpoint (both go on), twice from one file at once, and
# with a disk it appends to.
# Its clock goes on from the save without a jump. What perch cannot save
# yet is refused and the guest runs on; damaged, foreign or hostile files
# are refused with one line and status 2, before any vCPU runs.
. tests/lib.sh

export XDG_RUNTIME_DIR=$TMP/runtime
mkdir -m 0700 "$XDG_RUNTIME_DIR"

COUNT='i=0; while [ $i -lt 40 ]; do echo "line $i"; i=$((i+1)); sleep 0.1; done; exit 7'

# restore NAME ARGS...: perch restore under a time limit, as perch_run.
restore() {
    local name=$1
    shift
    (timeout -k 10 60 "$PERCH" restore "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" \
        </dev/null; exit $?) 2>/dev/null
    status=$?
    return $status
}
# lines_once_in_order CHECK FILES...: "line 0" .. "line 39" each once, in
# order, across the files' guest output.
lines_once_in_order() {
    local check=$1 got
    shift
    got=$(cd "$TMP" && cat "$@" | tr -d '\r' | grep -aE '^line [0-9]+$' | tr '\n' ' ')
    if [ "$got" = "$(seq 0 39 | sed 's/^/line /' | tr '\n' ' ')" ]; then
        pass "$check"
    else
        fail "$check" "got: $got"
    fi
}
# saved CHECK NAME FILE [--leave-running] ARGS...: start a counting guest
# with ARGS, save it once it is a few lines in.
saved() {
    local check=$1 name=$2 file=$3 how=""
    shift 3
    if [ "$1" = --leave-running ]; then how=$1; shift; fi
    guest_start "$name" --name "$name" "$@" -- sh -c "$COUNT"
    if ! wait_line "$TMP/$name.out" '^line 5' 30; then
        fail "$check" "the guest never counted: $(tail -c 300 "$TMP/$name.err")"
        return 1
    fi
    perch_run "$name-save" save $how "$name" "$file"
    expect_status "$check/saved" 0
    expect_line "$name-save" out "saved to $file"
}

# Saved mid-way, the run ends (status 0); the restore finishes the work.
if saved snapshot/one sv_one "$TMP/one.snap"; then
    wait "$pid_sv_one"; st=$?
    if [ "$st" -eq 0 ] && grep -q 'the guest was saved' "$TMP/sv_one.err"; then
        pass snapshot/one/run_ends
    else
        fail snapshot/one/run_ends "status $st: $(tail -c 300 "$TMP/sv_one.err")"
    fi
    restore one_back "$TMP/one.snap"
    expect_status one_back 7
    lines_once_in_order snapshot/one/lines sv_one.out one_back.out
    size=$(stat -c %s "$TMP/one.snap")
    # A 256 MiB guest: the file holds the memory in use, not all of it.
    if [ "$size" -lt $((64 << 20)) ]; then pass snapshot/one/small; else fail snapshot/one/small "$size bytes"; fi
fi

# Two vCPUs.
if saved snapshot/two sv_two "$TMP/two.snap" --cpus 2; then
    wait "$pid_sv_two"
    restore two_back "$TMP/two.snap"
    expect_status two_back 7
    lines_once_in_order snapshot/two/lines sv_two.out two_back.out
fi

# A checkpoint: the guest goes on, and so does its copy, each to the end;
# the copy twice at once (no disk: nothing of theirs is shared).
if saved snapshot/checkpoint sv_cp "$TMP/cp.snap" --leave-running; then
    wait "$pid_sv_cp"; st=$?
    if [ "$st" -eq 7 ]; then pass snapshot/checkpoint/runs_on; else fail snapshot/checkpoint/runs_on "status $st"; fi
    lines_once_in_order snapshot/checkpoint/original sv_cp.out
    restore cp_a --name cp-a "$TMP/cp.snap" & pa=$!
    restore cp_b --name cp-b "$TMP/cp.snap"
    stb=$status
    wait "$pa"; sta=$?
    for x in a:$sta b:$stb; do
        if [ "${x#*:}" -eq 7 ] && grep -aq '^line 39' "$TMP/cp_${x%%:*}.out"; then
            pass "snapshot/checkpoint/copy_${x%%:*}"
        else
            fail "snapshot/checkpoint/copy_${x%%:*}" "status ${x#*:}: $(tail -c 200 "$TMP/cp_${x%%:*}.err")"
        fi
    done
fi

# The clock goes on from the save: the guest's uptime moves on by about
# its loop's step across the restore, not by the seconds it lay saved.
guest_start clock --name sv_clock -- sh -c 'i=0; while [ $i -lt 30 ]; do cut -d" " -f1 /proc/uptime; i=$((i+1)); sleep 0.3; done'
if wait_line "$TMP/clock.out" '^[0-9]+\.[0-9]+'; then
    sleep 1
    perch_run clock-save save sv_clock "$TMP/clock.snap"
    wait "$pid_clock"
    sleep 3
    restore clock_back "$TMP/clock.snap"
    before=$(tr -d '\r' <"$TMP/clock.out" | grep -aE '^[0-9]+\.[0-9]+$' | tail -1)
    after=$(tr -d '\r' <"$TMP/clock_back.out" | grep -aE '^[0-9]+\.[0-9]+$' | head -1)
    if awk -v a="$before" -v b="$after" 'BEGIN { exit !(b > a && b - a < 1.5) }'; then
        pass snapshot/clock_goes_on
    else
        fail snapshot/clock_goes_on "uptime $before before the save, $after after the restore"
    fi
else
    fail snapshot/clock_goes_on "no uptime: $(tail -c 300 "$TMP/clock.err")"
fi

# A disk: a loop appending numbered lines to a file on it, with sync,
# saved mid-way and restored, leaves every line once and in order; the
# same with two vCPUs and a network card. The disk changed after the save:
# the restore is refused; copies of it given with --disk: two restores of
# one file at once, each finishing on its own copy.
APPEND='mkdir -p /m && mount -t ext4 /dev/xvda /m && i=0; while [ $i -lt 40 ]; do echo "line $i" >> /m/log; sync; echo "wrote $i"; i=$((i+1)); sleep 0.1; done; umount /m; exit 7'
# disk_log IMG OUT: the file the guest appended to, read off the image.
disk_log() { debugfs -R "cat /log" "$1" >"$TMP/$2" 2>/dev/null; }
# disk_case NAME ARGS...: the loop on a new disk, saved and restored.
disk_case() {
    local name=$1
    shift
    mke2fs -q -t ext4 -d "$TMP/empty" "$TMP/$name.img" 32M >/dev/null 2>&1
    guest_start "$name" --name "sv_$name" --disk "$TMP/$name.img" "$@" -- sh -c "$APPEND"
    if ! wait_line "$TMP/$name.out" '^wrote 5' 60; then
        fail "snapshot/$name" "the guest never wrote: $(tail -c 300 "$TMP/$name.err")"
        return 1
    fi
    perch_run "$name-save" save "sv_$name" "$TMP/$name.snap"
    expect_status "$name-save" 0
    eval "wait \$pid_$name"
    cp "$TMP/$name.img" "$TMP/$name-at-save.img"
    restore "${name}_back" "$TMP/$name.snap"
    expect_status "${name}_back" 7
    disk_log "$TMP/$name.img" "${name}_log.out"
    lines_once_in_order "snapshot/$name/lines" "${name}_log.out"
}
if command -v mke2fs >/dev/null && command -v debugfs >/dev/null; then
    mkdir -p "$TMP/empty"
    if disk_case disk; then
        cp "$TMP/disk-at-save.img" "$TMP/disk.img"        # its time is now another
        restore disk_changed "$TMP/disk.snap"
        expect_status disk_changed 2
        expect_line disk_changed err 'changed since the save'
        cp "$TMP/disk-at-save.img" "$TMP/copy1.img"
        cp "$TMP/disk-at-save.img" "$TMP/copy2.img"
        restore copy1 --disk "$TMP/copy1.img" "$TMP/disk.snap" & p1=$!
        restore copy2 --disk "$TMP/copy2.img" "$TMP/disk.snap"
        s2=$status
        wait "$p1"; s1=$?
        for c in 1:$s1 2:$s2; do
            disk_log "$TMP/copy${c%%:*}.img" "copy${c%%:*}_log.out"
            if [ "${c#*:}" -eq 7 ]; then pass "snapshot/copy${c%%:*}/finished"; else fail "snapshot/copy${c%%:*}/finished" "status ${c#*:}"; fi
            lines_once_in_order "snapshot/copy${c%%:*}/lines" "copy${c%%:*}_log.out"
        done
        truncate -s 16M "$TMP/d-small.img"
        restore copy_small --disk "$TMP/d-small.img" "$TMP/disk.snap"
        expect_status copy_small 2
        expect_line copy_small err 'is not like the saved guest'"'"'s'
        restore copy_busy --disk "$TMP/copy1.img" --disk "$TMP/copy2.img" "$TMP/disk.snap"
        expect_status copy_busy 2
        expect_line copy_busy err 'the saved guest has 1 disk; --disk gave 2'
    fi
    disk_case disk2net --cpus 2 --net user
else
    echo "SKIP snapshot/disk: no mke2fs or debugfs (e2fsprogs)"
fi

# A network card: the guest serves a page on a forwarded port; saved and
# restored, the port listens again and the page comes (connections open
# at the save are not saved: they are reset).
HTTP=$(perl -MIO::Socket::INET -e 'print IO::Socket::INET->new(LocalAddr => "127.0.0.1",
    LocalPort => 0, Listen => 1)->sockport')
SERVE='mkdir -p /www && echo perch-snapshot-page > /www/index.html && httpd -p 80 -h /www && '"$COUNT"
guest_start net --name sv_net --net "user,hostfwd=tcp::$HTTP-:80" -- sh -c "$SERVE"
if wait_line "$TMP/net.out" '^line 5' 60; then
    perch_run net-save save sv_net "$TMP/net.snap"
    expect_status net-save 0
    wait "$pid_net"
    restore net_back "$TMP/net.snap" & pr=$!
    page=""
    for _ in $(seq 1 40); do
        page=$(python3 -c 'import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=2).read().decode().strip())' \
               "http://127.0.0.1:$HTTP/" 2>/dev/null) && [ -n "$page" ] && break
        sleep 0.25
    done
    wait "$pr"; st=$?
    if [ "$page" = perch-snapshot-page ]; then pass snapshot/net/page_after_restore; else fail snapshot/net/page_after_restore "got '$page'"; fi
    if [ "$st" -eq 7 ]; then pass snapshot/net/finished; else fail snapshot/net/finished "status $st"; fi
    lines_once_in_order snapshot/net/lines net.out net_back.out
else
    fail snapshot/net "the guest never counted: $(tail -c 300 "$TMP/net.err")"
fi

# Refused, and the guest runs on: a file that cannot be opened, a disk that
# is full (/dev/full).
guest_start full --name sv_full -- sh -c "$COUNT"
wait_line "$TMP/full.out" '^line 3' 30
perch_run full-save save sv_full /dev/full
expect_status full-save 1
expect_one_line_error full-save
expect_line full-save err 'No space left on device'
if [ -c /dev/full ]; then pass snapshot/refused_file_kept_device; else fail snapshot/refused_file_kept_device "/dev/full is gone"; fi
perch_run nowrite-save save sv_full /proc/no/such/file
expect_status nowrite-save 1
expect_one_line_error nowrite-save
wait "$pid_full"; st=$?
if [ "$st" -eq 7 ] && grep -aq '^line 39' "$TMP/full.out"; then
    pass snapshot/disk_full_runs_on
else
    fail snapshot/disk_full_runs_on "status $st"
fi

# The control socket: a save with no file passed is answered, not done.
guest_start bare --name sv_bare -- sleep 30
for _ in $(seq 1 40); do [ -S "$XDG_RUNTIME_DIR/perch/$pid_bare.sock" ] && break; sleep 0.25; done
reply=$(python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"save\n"); print(s.recv(200).decode().strip())' "$XDG_RUNTIME_DIR/perch/$pid_bare.sock")
if [ "$reply" = "error save needs the file, passed with the request" ]; then pass snapshot/no_file_passed; else fail snapshot/no_file_passed "got '$reply'"; fi
"$PERCH" shutdown sv_bare >/dev/null 2>&1
wait "$pid_bare"

# Damaged, foreign and hostile files: one line, status 2.
if [ -s "$TMP/one.snap" ]; then
    head -c 300000 "$TMP/one.snap" >"$TMP/trunc.snap"
    cp "$TMP/one.snap" "$TMP/flip.snap"
    printf '\x5a' | dd of="$TMP/flip.snap" bs=1 seek=200000 conv=notrunc 2>/dev/null
    cp "$TMP/one.snap" "$TMP/ver.snap"
    printf '\x09' | dd of="$TMP/ver.snap" bs=1 seek=8 conv=notrunc 2>/dev/null
    # The first vCPU's cr0 (byte 368 of struct kvm_vcpu_state: 144 bytes
    # of regs, then sregs' eight 24-byte segments and two 16-byte tables),
    # with its section's CRC made right again: a value no perch vCPU holds.
    python3 - "$TMP/one.snap" "$TMP/cr0.snap" <<'PY'
import struct, sys, zlib
d = bytearray(open(sys.argv[1], 'rb').read())
at = 24
while True:                                    # past the configuration and disks
    kind, crc, n = struct.unpack_from('<IIQ', d, at)
    if kind == 2:
        break
    at += 16 + n
body = at + 16
cr0 = body + 368
struct.pack_into('<Q', d, cr0, 0x11)
struct.pack_into('<I', d, at + 4, zlib.crc32(bytes(d[body:body + n])))
open(sys.argv[2], 'wb').write(d)
PY
    echo 'not a snapshot' >"$TMP/junk.snap"
    for bad in trunc flip ver cr0 junk; do
        restore "bad_$bad" "$TMP/$bad.snap"
        expect_status "bad_$bad" 2
        expect_one_line_error "bad_$bad"
    done
    expect_line bad_trunc err 'truncated'
    expect_line bad_flip err 'damaged'
    expect_line bad_ver err 'format version 9'
    expect_line bad_cr0 err 'vCPU 0: control registers'
fi
