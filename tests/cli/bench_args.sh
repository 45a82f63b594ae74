# `perch bench`'s command line, checked before any guest runs (no KVM
# needed): bad names and options get one 'perch: ...' line and status 2,
# and --qemu without QEMU in PATH (--uml without linux.uml) is a one-line
# note, not an error.
. tests/cli/helpers.bash

# A PATH with nothing in it: no qemu-system-x86_64, linux.uml (nor gnuplot).
mkdir "$TMP/empty_path"

# bad NAME ARGS...: status 2, one line naming the mistake.
bad() {
    local name=$1 regex=$2
    shift 2
    perch_run "$name" bench "$@"
    expect_error "$name" 2 "$regex"
}
bad bench_name_unknown "no benchmark called 'nosuch'.*all micro work" --quick nosuch
# The smp group and its rows are known by name (not run by `all`: unit tests).
bad bench_smp_name_unknown "no benchmark called 'loops'.* smp .*loops_seq loops_par" --quick loops
bad bench_name_after_good "no benchmark called 'gzipp'" --quick syscall gzipp
bad bench_name_empty "no benchmark called ''" --quick ""
bad bench_option_unknown "unknown bench option '--qemu=1'" --qemu=1 syscall
bad bench_out_without_value "--out needs a value" --quick --out
bad bench_uml_twice "--uml given twice" --quick --uml --uml syscall
bad bench_uml_equals "unknown bench option '--uml=1'" --uml=1 syscall
# A bad name is found before QEMU is looked for: no note, only the error.
bad bench_qemu_bad_name "no benchmark called 'nosuch'" --qemu nosuch
if ! grep -q 'note' "$TMP/bench_qemu_bad_name.err"; then
    pass bench_qemu_bad_name/no_note
else
    fail bench_qemu_bad_name/no_note "$(cat "$TMP/bench_qemu_bad_name.err")"
fi

# --cpus N: perch run's count (1 to MAX_CPUS) and its messages, refused
# before anything runs; a good one lets the request on, here to a bad name.
max_cpus=$(sed -n 's/^#define MAX_CPUS \([0-9]*\).*/\1/p' launcher/run/cli.h)
bad bench_cpus_zero "--cpus must be at least 1 vCPU" --quick --cpus 0 syscall
bad bench_cpus_too_many "--cpus $((max_cpus + 1)) is too many vCPUs \\(at most $max_cpus\\)" \
    --cpus $((max_cpus + 1)) syscall
bad bench_cpus_not_a_number "--cpus 'x' is not a number of vCPUs \\(1 to $max_cpus\\)" --cpus x syscall
bad bench_cpus_trailing "--cpus '2x' is not a number of vCPUs" --cpus 2x syscall
bad bench_cpus_empty "--cpus needs a number of vCPUs" --cpus "" syscall
bad bench_cpus_twice "--cpus given twice" --cpus 2 --cpus 2 syscall
bad bench_cpus_without_value "--cpus needs a value" --quick --cpus
bad bench_cpus_equals "unknown bench option '--cpus=2'" --cpus=2 syscall
bad bench_cpus_good "no benchmark called 'nosuch'" --cpus "$max_cpus" nosuch
# The vs column may have its own count, but not a second one beside
# bench's --cpus (each side's perch run gets one); a bad --vs stops the
# request before the vCPU note, as before any run.
cores=$(getconf _NPROCESSORS_ONLN)
over=$((cores < max_cpus ? cores + 1 : max_cpus))
bad bench_cpus_and_vs_cpus "bad --vs \"--cpus 3\": option --cpus given twice" \
    --quick --out "$TMP/out" --cpus "$over" --vs "--cpus 3" syscall
bad bench_vs_cpus_bad "bad --vs \"--cpus 0\": --cpus must be at least 1 vCPU" \
    --quick --out "$TMP/out" --vs "--cpus 0" syscall
bad bench_vs_smp_bad "bad --vs \"-smp x\": -smp 'x' is not a number of vCPUs" \
    --quick --out "$TMP/out" --vs "-smp x" syscall

# --qemu without QEMU: one note line, then the run goes on (here to a --vs
# that perch run rejects, which stops it before any guest boots).
timeout 60 env PATH="$TMP/empty_path" "$PERCH" bench --quick --qemu \
    --out "$TMP/out" --vs "--no-such-option" syscall \
    >"$TMP/no_qemu.out" 2>"$TMP/no_qemu.err" </dev/null
status=$?
expect_status no_qemu 2
notes=$(grep -c '^perch bench: note: no qemu-system-x86_64 in PATH' "$TMP/no_qemu.err")
others=$(grep -vc -e '^perch bench: note: no qemu-system-x86_64 in PATH .*no TCG column$' \
    -e '^perch: bad --vs' "$TMP/no_qemu.err")
if [ "$notes" -eq 1 ] && [ "$others" -eq 0 ]; then
    pass no_qemu/one_note_line
else
    fail no_qemu/one_note_line "stderr was: $(head -c 400 "$TMP/no_qemu.err")"
fi
expect_nothing_running no_qemu

# --uml without linux.uml, the same: one note naming the package, then on
# to the bad --vs (beside --qemu's note when neither is there).
for name in no_uml no_uml_no_qemu; do
    timeout 60 env PATH="$TMP/empty_path" "$PERCH" bench --quick --uml \
        $([ $name = no_uml_no_qemu ] && echo --qemu) --out "$TMP/out" \
        --vs "--no-such-option" syscall >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
    status=$?
    expect_status $name 2
    notes=$(grep -c '^perch bench: note: no linux.uml in PATH (apt-get install user-mode-linux): no UML column$' \
        "$TMP/$name.err")
    others=$(grep -vc -e '^perch bench: note: no linux.uml in PATH' \
        -e '^perch bench: note: no qemu-system-x86_64 in PATH' -e '^perch: bad --vs' "$TMP/$name.err")
    if [ "$notes" -eq 1 ] && [ "$others" -eq 0 ]; then
        pass $name/one_note_line
    else
        fail $name/one_note_line "stderr was: $(head -c 400 "$TMP/$name.err")"
    fi
    expect_nothing_running $name
done
# --uml with only the net group, which UML does not run: a note, no UML
# column (linux.uml a stand-in, never run: the bad --vs stops it first).
mkdir "$TMP/uml_path"
printf '#!/bin/sh\nexit 1\n' >"$TMP/uml_path/linux.uml"
chmod +x "$TMP/uml_path/linux.uml"
timeout 60 env PATH="$TMP/uml_path" "$PERCH" bench --quick --uml --out "$TMP/out" \
    --vs "--no-such-option" net >"$TMP/uml_net.out" 2>"$TMP/uml_net.err" </dev/null
status=$?
expect_status uml_net 2
if [ "$(grep -c '^perch bench: note: the net group does not run under UML: no UML column$' \
        "$TMP/uml_net.err")" -eq 1 ] &&
   [ "$(grep -vc '^perch: bad --vs' "$TMP/uml_net.err")" -eq 1 ]; then
    pass uml_net/one_note_line
else
    fail uml_net/one_note_line "stderr was: $(head -c 400 "$TMP/uml_net.err")"
fi
if grep -q '^perch bench: note: no qemu-system-x86_64' "$TMP/no_uml_no_qemu.err" &&
   ! grep -q 'qemu' "$TMP/no_uml.err"; then
    pass no_uml_no_qemu/both_notes
else
    fail no_uml_no_qemu/both_notes "stderr was: $(head -c 400 "$TMP/no_uml_no_qemu.err")"
fi

# The disk group's image cannot be made in DIR (a folder in its place):
# one line, status 1, before any run.
mkdir -p "$TMP/disk_out/perch-bench-disk.img"
perch_run bench_disk_image_blocked bench --quick --out "$TMP/disk_out" diskrand
expect_error bench_disk_image_blocked 1 "cannot create .*perch-bench-disk.img"
bad bench_disk_name_unknown "no benchmark called 'diskrandom'.* disk .*diskrand" --quick diskrandom

# perchbench's own side of the disk group: it needs --disk, a path that
# is there, and room for the area (16 MiB with --quick); each refusal is
# one 'perchbench: ' line, status 2 for the command line, 1 for the rest.
PB=${PERCHBENCH:-build/bench/perchbench}   # as PERCH and GUESTS (tests/lib.sh)
# pb NAME WANT REGEX ARGS...: perchbench ARGS ends with WANT and one line.
pb() {
    local name=$1 want=$2 regex=$3
    shift 3
    timeout 30 "$PB" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
    status=$?
    expect_status "$name" "$want"
    if [ "$(wc -l <"$TMP/$name.err")" -eq 1 ] && grep -Eq "^perchbench: .*($regex)" "$TMP/$name.err"; then
        pass "$name/one_line"
    else
        fail "$name/one_line" "stderr was: $(head -c 300 "$TMP/$name.err")"
    fi
}
pb perchbench_disk_without_path 2 "diskrand needs --disk PATH" --quick diskrand
pb perchbench_disk_option_empty 2 "--disk needs a device or file" --quick --disk
pb perchbench_disk_missing 1 "cannot open $TMP/nosuch.img" --quick --disk "$TMP/nosuch.img" disk
truncate -s 1M "$TMP/small.img"
pb perchbench_disk_too_small 1 "holds 1048576 bytes, the disk group needs 16777216" \
    --quick --disk "$TMP/small.img" diskseqread
# perchbench list: three disk benchmarks, each a rate (MB/s or IOPS).
if "$PB" list | awk '$2 == "disk" { n++ } END { exit n != 3 }' &&
   "$PB" list | awk '$2 == "disk" && $3 != "MB/s" && $3 != "IOPS" { exit 1 }'; then
    pass perchbench_list_disk_units
else
    fail perchbench_list_disk_units "$("$PB" list | grep disk)"
fi
# perchbench list: the smp group's rows, pairs of NAME_seq and NAME_par,
# each a time (ns) as the work group's.
smp_rows=$("$PB" list | awk '$2 == "smp" { printf "%s/%s ", $1, $3 }')
if [ "$smp_rows" = "pipes_seq/ns pipes_par/ns loops_seq/ns loops_par/ns " ]; then
    pass perchbench_list_smp_pairs
else
    fail perchbench_list_smp_pairs "smp rows: '$smp_rows'"
fi

# The net group's side: --net-listen is needed and must be A.B.C.D:PORT; a
# peer asked for more than a benchmark moves, or for what it does not
# know, stops with one line (the benchmark may be a guest's).
pb perchbench_net_without_listen 2 "nettx needs --net-listen A.B.C.D:PORT" --quick nettx
pb perchbench_net_listen_bad 2 "--net-listen 127.0.0.1 is not A.B.C.D:PORT" \
    --quick --net-listen 127.0.0.1 netrr
pb perchbench_netpeer_bad_address 1 "netpeer: localhost:80 is not A.B.C.D:PORT" \
    netpeer localhost:80
# fake_bench COMMAND: a listener on 127.0.0.1 that greets the peer as
# perchbench does and sends COMMAND; prints its port, then waits.
fake_bench() {
    rm -f "$TMP/fake_port"
    python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1); s.settimeout(20)
print(s.getsockname()[1], flush=True)
try:
    c, _ = s.accept(); c.settimeout(20)
    c.sendall(b"perchbench-net\n" + sys.argv[1].encode() + b"\n")
    while c.recv(65536): pass
except OSError: pass' "$1" >"$TMP/fake_port.new" &
    fake=$!
    for _ in $(seq 50); do [ -s "$TMP/fake_port.new" ] && break; sleep 0.1; done
    mv "$TMP/fake_port.new" "$TMP/fake_port"
}
fake_bench "R 999999999999"
pb perchbench_netpeer_too_much 1 "netpeer: an unknown command from the benchmark: 'R 999999999999'" \
    netpeer "127.0.0.1:$(cat "$TMP/fake_port")"
wait $fake
fake_bench "X"
pb perchbench_netpeer_unknown 1 "an unknown command from the benchmark: 'X'" \
    netpeer "127.0.0.1:$(cat "$TMP/fake_port")"
wait $fake
