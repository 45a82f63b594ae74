# `perch bench --quick`: perchbench natively and in the default guest. Every
# micro-benchmark, one workload (the cheapest: a whole work run of each
# takes minutes in a guest), the disk group (on a scratch image in DIR,
# the guest's xvda) and the net group (TCP with a peer on the host, through
# --net user's forwarded port) get a table row with numbers in every
# column, as does boot; bench.csv and bench.json parse, the disk and net
# rows with their units and rates above zero, and the image is gone after;
# bad requests end in one line and a non-zero status. Run with --qemu but a
# PATH without QEMU (a note, the other columns); then, if QEMU is
# installed, one benchmark and the disk and net groups with --qemu
# (virtio-blk and virtio-net, their modules in the initramfs), whose table
# has the TCG column; and, if linux.uml is installed, two micro-benchmarks,
# diskrand (on UML's ubd0) and netrr (not run under UML: "-") with --uml,
# whose table has the UML column. No figure is judged: only that it came.
. tests/lib.sh

# No qemu-system-x86_64 in this PATH; gnuplot, if installed, for bench.svg.
mkdir "$TMP/path"
gnuplot=$(command -v gnuplot)
[ -n "$gnuplot" ] && ln -s "$gnuplot" "$TMP/path/gnuplot"

out="$TMP/results"
micro=$(build/bench/perchbench list | awk '$2 == "micro" { print $1 }')
timeout 300 env PATH="$TMP/path" "$PERCH" bench --quick --qemu --out "$out" \
    $micro sharith disk net >"$TMP/bench.out" 2>"$TMP/bench.err" </dev/null
status=$?
expect_status bench 0

num='-?[0-9]+(\.[0-9]+)?'
ns="[0-9]+ \([0-9]+ - [0-9]+\)"
traps="($num|-)"   # KVM's exits per op: "-" where KVM keeps no statistics
ms="[0-9]+\.[0-9] \([0-9]+\.[0-9] - [0-9]+\.[0-9]\)"
# row NAME REGEX: the table's row for NAME matches REGEX.
row() {
    if grep -E "^$1 " "$TMP/$3.out" | grep -Eq "$2"; then
        pass "$3/row_$1"
    else
        fail "$3/row_$1" "no full row in: $(head -c 900 "$TMP/$3.out")"
    fi
}
for name in $micro; do
    row "$name" "^[a-z0-9_]+ +$ns +$ns +${num}x +$traps +$num +$num +$num +$num\$" bench
done
row sharith "^sharith +$ms +$ms +${num}x +$traps +$num +$num +$num +$num\$" bench
row boot "^boot +- +$ms +- +- +- +- +- +-\$" bench
row restore "^restore +- +$ms +- +- +- +- +- +-\$" bench
mbs="[0-9]+\.[0-9] \([0-9]+\.[0-9] - [0-9]+\.[0-9]\)"
row diskseqwrite "^diskseqwrite +$mbs +$mbs +${num}x +$traps +$num +$num +$num +$num\$" bench
row diskseqread "^diskseqread +$mbs +$mbs +${num}x +$traps +$num +$num +$num +$num\$" bench
row diskrand "^diskrand +$ns +$ns +${num}x +$traps +$num +$num +$num +$num\$" bench
row nettx "^nettx +$mbs +$mbs +${num}x +$traps +$num +$num +$num +$num\$" bench
row netrx "^netrx +$mbs +$mbs +${num}x +$traps +$num +$num +$num +$num\$" bench
row netrr "^netrr +$ns +$ns +${num}x +$traps +$num +$num +$num +$num\$" bench
if grep -Eq "^net: native = TCP over loopback.* port [0-9]+ forwarded to the guest's 5201" \
        "$TMP/bench.out"; then
    pass bench/net_note
else
    fail bench/net_note "$(grep '^net' "$TMP/bench.out" | head -c 600)"
fi
if grep -q '^disk: MB/s .*HIGHER is better' "$TMP/bench.out" &&
   grep -Eq "^disk: native = O_DIRECT on $out/perch-bench-disk.img \(" "$TMP/bench.out"; then
    pass bench/disk_note
else
    fail bench/disk_note "$(grep '^disk' "$TMP/bench.out" | head -c 600)"
fi
if [ ! -e "$out/perch-bench-disk.img" ]; then
    pass bench/disk_image_removed
else
    fail bench/disk_image_removed "$out/perch-bench-disk.img is still there"
fi
if [ "$(grep -c 'note: no qemu-system-x86_64 in PATH' "$TMP/bench.err")" -eq 1 ] &&
   ! grep -q TCG "$TMP/bench.out"; then
    pass bench/no_qemu_note
else
    fail bench/no_qemu_note "stderr: $(head -c 300 "$TMP/bench.err")"
fi

if python3 - "$out/bench.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows, "no rows"
assert {r["group"] for r in rows} == {"micro", "work", "disk", "net", "boot"}, rows
units = {r["benchmark"]: r["unit"] for r in rows}
assert units["diskseqwrite"] == units["diskseqread"] == units["nettx"] == "MB/s", units
assert units["diskrand"] == "IOPS" and units["netrr"] == "trips/s", units
assert units["syscall"] == units["boot"] == "ns", units
for r in rows:
    if r["group"] in ("disk", "net"):
        assert float(r["native_median"]) > 0 and float(r["guest_median"]) > 0, r
    for k, v in r.items():
        if k in ("benchmark", "group", "unit"):
            continue
        if r["group"] == "boot" and (k.startswith("native") or
                                     k.endswith("per_op") or k.endswith("ratio")):
            assert v == "", (k, v)
        else:
            float(v)
PY
then pass bench/csv_parses; else fail bench/csv_parses "$(head -c 300 "$out/bench.csv")"; fi

if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["benchmarks"]' \
        "$out/bench.json"; then
    pass bench/json_parses
else
    fail bench/json_parses "$(head -c 300 "$out/bench.json")"
fi

# The plot takes every row (gnuplot once stopped at "exec", taking a line
# that starts with 'e' for the end of its inline data).
if [ -z "$gnuplot" ]; then
    echo "SKIP bench/svg: no gnuplot"
elif grep -q "<svg" "$out/bench.svg" 2>/dev/null && grep -q '>exec<' "$out/bench.svg" &&
     grep -q '>thrash<' "$out/bench.svg"; then
    pass bench/svg_has_every_row
else
    fail bench/svg_has_every_row "stderr: $(head -c 300 "$TMP/bench.err")"
fi

# beside NAME VALUE RUN: RUN's row for NAME has three figures (native,
# guest and another machine's), guest/native and guest/other, the counts.
beside() {
    row "$1" "^$1 +$2 +$2 +$2 +${num}x +${num}x +$traps +$num +$num +$num +$num\$" "$3"
}
# bench_run RUN ARGS...: perch bench --quick ARGS into $TMP/RUN.out and
# $TMP/RUN/; its status.
bench_run() {
    local run=$1
    shift
    timeout 300 "$PERCH" bench --quick --out "$TMP/$run" "$@" \
        >"$TMP/$run.out" 2>"$TMP/$run.err" </dev/null
    status=$?
    expect_status "$run" 0
}
# machine RUN ARGS...: bench_run with another machine's column among ARGS,
# and its boot row, with that machine's boot beside the guest's.
machine() {
    bench_run "$@"
    row boot "^boot +- +$ms +$ms +- +${num}x +- +- +- +- +-\$" "$1"
}

# Under QEMU TCG too: three time columns, guest/TCG, and TCG's boot.
if command -v qemu-system-x86_64 >/dev/null; then
    machine qemu --qemu syscall disk net
    beside syscall "$ns" qemu
    beside diskseqread "$mbs" qemu
    beside diskrand "$ns" qemu
    beside netrx "$mbs" qemu
    beside netrr "$ns" qemu
    if grep -Eq '^benchmark +native +guest +TCG +guest/nat +guest/TCG ' "$TMP/qemu.out" &&
       python3 -c '
import json, sys
d = {b["name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"]}
assert d["syscall"]["tcg"]["median"] > 0 and not d["syscall"]["higher_is_better"]
assert d["diskrand"]["tcg"]["median"] > 0 and d["diskrand"]["higher_is_better"]
assert d["diskseqwrite"]["unit"] == "MB/s"
assert d["netrr"]["tcg"]["median"] > 0 and d["netrr"]["unit"] == "trips/s"' "$TMP/qemu/bench.json"; then
        pass qemu/tcg_column
    else
        fail qemu/tcg_column "$(head -c 600 "$TMP/qemu.out")"
    fi
else
    echo "SKIP bench/qemu: no qemu-system-x86_64 (apt-get install qemu-system-x86)"
fi

# Under UML: its column and guest/UML, UML's boot, ubd0 for the disk, no
# net; one CPU said once beside the guest's two vCPUs (~15 s). On Intel
# hosts with AMX this needs the library perch preloads into UML (its FPU
# buffer is smaller than their XSAVE area): without it UML dies at its
# first process and the column is missing.
if command -v linux.uml >/dev/null; then
    machine uml --uml --cpus 2 syscall pipe diskrand netrr
    beside syscall "$ns" uml
    beside pipe "$ns" uml
    beside diskrand "$ns" uml
    row netrr "^netrr +$ns +$ns +- +${num}x +- +$traps +$num +$num +$num +$num\$" uml
    if grep -Eq '^benchmark +native +guest +UML +guest/nat +guest/UML ' "$TMP/uml.out" &&
       [ "$(grep -c '^note: UML has no SMP: it ran on one CPU, the guest on 2 vCPUs$' "$TMP/uml.out")" -eq 1 ] &&
       grep -q '^cpus: guest 2 vCPUs, UML 1 CPU;' "$TMP/uml.out" &&
       python3 -c '
import csv, json, sys
d = {b["name"]: b for b in json.load(open(sys.argv[1] + "/bench.json"))["benchmarks"]}
assert d["syscall"]["uml"]["median"] > 0 and d["pipe"]["uml"]["median"] > 0
assert d["boot"]["uml"]["median"] > 0 and d["syscall"]["guest_uml_ratio"] > 0
assert d["diskrand"]["uml"]["median"] > 0 and d["netrr"]["uml"] is None
rows = {r["benchmark"]: r for r in csv.DictReader(open(sys.argv[1] + "/bench.csv"))}
assert float(rows["syscall"]["uml_median"]) > 0 and rows["netrr"]["uml_median"] == ""' "$TMP/uml"; then
        pass uml/uml_column
    else
        fail uml/uml_column "$(head -c 900 "$TMP/uml.out")"
    fi
else
    echo "SKIP bench/uml: no linux.uml (apt-get install user-mode-linux)"
fi

# --seeds: every email's section in its form, with perch's figures, the
# summary, seeds.csv and seeds.json; TCG for comparison when QEMU is
# there (~40 s).
tcg_seen() { ! command -v qemu-system-x86_64 >/dev/null || grep -q '^(QEMU TCG for comparison):$' "$TMP/seeds.out"; }
if timeout 600 "$PERCH" bench --seeds --quick --qemu --out "$TMP/seeds" >"$TMP/seeds.out" 2>"$TMP/seeds.err" &&
   [ "$(grep -c '^== ' "$TMP/seeds.out")" -eq 5 ] &&
   grep -Eq '^Time for one context switch via pipe: [0-9]+ \([0-9]+ - [0-9]+\)$' "$TMP/seeds.out" &&
   grep -q '^(Native for comparison):$' "$TMP/seeds.out" &&
   grep -Eq '^lat_pagefault +[0-9.]+ us +[0-9.]+ us +-?[0-9]+% +[0-9.]+ us' "$TMP/seeds.out" &&
   grep -Eq '^perch: [0-9.]+ seconds$' "$TMP/seeds.out" &&
   grep -Eq '^lguest: more lazy_hcalls +pipe -19.9% +pipe [-+][0-9.]+% +(yes|no)$' "$TMP/seeds.out" &&
   tcg_seen && [ "$(wc -l <"$TMP/seeds/seeds.csv")" -eq 11 ] &&
   python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["seeds"]) == 10 and d["seeds"][5]["after"] > 0' "$TMP/seeds/seeds.json"; then
    pass bench/seeds
else
    fail bench/seeds "$(tail -c 600 "$TMP/seeds.err") $(head -c 600 "$TMP/seeds.out")"
fi

# Bad requests: one 'perch: ' line, a non-zero status, before any run.
bad() {
    local name=$1
    shift
    perch_run "$name" bench "$@"
    if [ "$status" -ne 0 ]; then pass "$name/status"; else fail "$name/status" "status 0"; fi
    expect_one_line_error "$name"
}
bad bench_unknown_name --quick --out "$TMP/r2" nosuchbench
bad bench_bad_vs --quick --out "$TMP/r3" --vs "--no-such-option" syscall
bad bench_seeds_with_vs --seeds --vs --eager-flush
: >"$TMP/file"
bad bench_unwritable_out --quick --out "$TMP/file/sub" syscall
