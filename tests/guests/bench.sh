# `perch bench --quick`: perchbench natively and in the default guest. Every
# benchmark gets a table row with numbers in every column, bench.csv and
# bench.json parse, and bad requests end in one line and a non-zero status.
. tests/lib.sh

out="$TMP/results"
timeout 300 "$PERCH" bench --quick --out "$out" >"$TMP/bench.out" 2>"$TMP/bench.err" </dev/null
status=$?
expect_status bench 0

num='-?[0-9]+(\.[0-9]+)?'
ns="[0-9]+ \([0-9]+ - [0-9]+\)"
row="^[a-z0-9_]+ +$ns +$ns +${num}x +$num +$num +$num\$"
for name in $(build/bench/perchbench list | awk '{print $1}'); do
    if grep -Eq "^$name " "$TMP/bench.out" && grep -E "^$name " "$TMP/bench.out" | grep -Eq "$row"; then
        pass "bench/row_$name"
    else
        fail "bench/row_$name" "no full row in: $(head -c 600 "$TMP/bench.out")"
    fi
done

if python3 - "$out/bench.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows, "no rows"
for r in rows:
    for k, v in r.items():
        if k != "benchmark":
            float(v)
PY
then pass bench/csv_parses; else fail bench/csv_parses "$(head -c 300 "$out/bench.csv")"; fi

if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["benchmarks"]' \
        "$out/bench.json"; then
    pass bench/json_parses
else
    fail bench/json_parses "$(head -c 300 "$out/bench.json")"
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
: >"$TMP/file"
bad bench_unwritable_out --quick --out "$TMP/file/sub" syscall
