# `perch bench`'s command line, checked before any guest runs (no KVM
# needed): bad names and options get one 'perch: ...' line and status 2,
# and --qemu without QEMU in PATH is a one-line note, not an error.
. tests/cli/helpers.bash

# A PATH with nothing in it: no qemu-system-x86_64 (nor gnuplot).
mkdir "$TMP/empty_path"

# bad NAME ARGS...: status 2, one line naming the mistake.
bad() {
    local name=$1 regex=$2
    shift 2
    perch_run "$name" bench "$@"
    expect_error "$name" 2 "$regex"
}
bad bench_name_unknown "no benchmark called 'nosuch'.*all micro work" --quick nosuch
bad bench_name_after_good "no benchmark called 'gzipp'" --quick syscall gzipp
bad bench_name_empty "no benchmark called ''" --quick ""
bad bench_option_unknown "unknown bench option '--qemu=1'" --qemu=1 syscall
bad bench_out_without_value "--out needs a value" --quick --out
# A bad name is found before QEMU is looked for: no note, only the error.
bad bench_qemu_bad_name "no benchmark called 'nosuch'" --qemu nosuch
if ! grep -q 'note' "$TMP/bench_qemu_bad_name.err"; then
    pass bench_qemu_bad_name/no_note
else
    fail bench_qemu_bad_name/no_note "$(cat "$TMP/bench_qemu_bad_name.err")"
fi

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
