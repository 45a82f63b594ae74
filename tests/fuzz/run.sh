#!/usr/bin/env bash
# Runs libFuzzer harnesses: tests/fuzz/run.sh SECONDS OUT HARNESS...
#
# Each harness (build/fuzz/fuzz_NAME) runs on one core for SECONDS (or
# until FUZZ_RUNS executions, if that is set) from its checked-in seeds
# (tests/fuzz/corpus/NAME/) and what earlier runs found (OUT/corpus/NAME/,
# where new inputs go); its log goes to OUT/logs/NAME.log, a crash's input
# to OUT/crashes/. One line per harness, "PASS fuzz/NAME: ..." with libFuzzer's final
# executions, coverage (cov: edges, ft: features) and crashes, or "FAIL
# fuzz/NAME: ..." with the log. Exits 1 if any failed.
set -u
cd "$(dirname "$0")/../.."
seconds=$1
out=$2
shift 2
logs=$out/logs
crashes=$out/crashes
mkdir -p "$logs" "$crashes"
status=0

for bin in "$@"; do
    name=${bin##*/fuzz_}
    log=$logs/$name.log
    mkdir -p "$out/corpus/$name"
    before=$(ls "$crashes" | grep -c "^$name-")
    "$bin" -max_total_time="$seconds" ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} \
        -timeout=10 -print_final_stats=1 -artifact_prefix="$crashes/$name-" \
        "$out/corpus/$name" "tests/fuzz/corpus/$name" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    last=$(grep -E '^#[0-9]+.* cov: ' "$log" | tail -n 1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    found=$(( $(ls "$crashes" | grep -c "^$name-") - before ))
    line="fuzz/$name: ${execs:-?} executions, cov: ${cov:-?} ft: ${ft:-?}, crashes: $found"
    if [ "$rc" -eq 0 ] && [ "$found" -eq 0 ]; then
        echo "PASS $line"
    else
        echo "FAIL $line (status $rc; log: $log)"
        status=1
    fi
done
exit $status
