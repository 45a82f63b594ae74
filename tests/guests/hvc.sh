# The ring console (hvc0) with the hvc guest (guests/hvc): output through
# out[] and EVTCHNOP_send, perch's stdin into in[] with an upcall on the
# console port, the exit-status sequence, corrupted ring indices (status 5,
# one clear line), and, through a pseudo-terminal (script(1)), raw mode,
# Ctrl-A commands and the terminal's settings put back however perch ends.
# The guest's own PASS/FAIL lines pass through.
. tests/lib.sh

HVC=$GUESTS/hvc.elf

# perch_feed NAME FEED ARGS...: perch_run with stdin from the shell
# command FEED instead of /dev/null.
perch_feed() {
    local name=$1 feed=$2
    shift 2
    bash -c "$feed" | timeout 60 "$PERCH" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
    status=$?
}

check_equal() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', want '$3'"; fi
}

# ---- Output ----
perch_run hvc run "$HVC"
grep -aE '^(PASS|FAIL) ' "$TMP/hvc.out"
expect_status hvc 0
expect_line hvc out '^hvc: hello through out\[\]$'
expect_line hvc out '^hvc: 1[0-9] passed, 0 failed$'
# 40 lines of 99 bytes that wrap the 2 KiB ring: all there, in order, whole.
got=$(grep -a '^hvc: wrap line' "$TMP/hvc.out" | awk '
    { if ($4 != sprintf("%02d", NR - 1) || length($0) != 98) bad++ }
    END { print NR, bad + 0 }')
check_equal hvc/wrap_lines_in_order "$got" "40 0"
# One ring's worth in one go, once: the scribbled out_cons after it must
# not make perch print the ring's old bytes again.
check_equal hvc/full_ring_line "$(grep -a '^hvc: full ring' "$TMP/hvc.out" | awk '{ print length($0) }')" 2047
check_equal hvc/nothing_repeated "$(grep -ac '^=*$' "$TMP/hvc.out")" 0
expect_line hvc out '^hvc: after a scribbled out_cons$'

# ---- Input: 6 KiB, more than in[] holds, through in[] in order ----
{ head -c 4500 /dev/urandom | base64 -w 76; echo end; } >"$TMP/input"
want=$(od -An -tu1 -v "$TMP/input" | awk '
    { for (i = 1; i <= NF; i++) { h = (h * 31 + $i) % 1000000007; n++ } }
    END { printf "%d bytes, hash %d", n, h }')
perch_feed hvc_input "cat $TMP/input" run --cmdline input=sum "$HVC"
grep -aE '^(PASS|FAIL) ' "$TMP/hvc_input.out" | sed 's#^\(PASS\|FAIL\) hvc/#\1 hvc/input/#'
expect_status hvc_input 0
expect_line hvc_input out "^hvc: input $want, [1-9][0-9]* console events$"
if grep -qaxF "hvc: first input line: $(head -c 63 "$TMP/input")" "$TMP/hvc_input.out"; then
    pass hvc_input/first_line_echoed
else
    fail hvc_input/first_line_echoed "no echo of: $(head -c 63 "$TMP/input")"
fi

# ---- Interrupts back to back: one MSI per chunk of input, 100 runs ----
# This machine's local APIC does not hold a second interrupt back until the
# first's EOI (docs/kvm.md); with IF kept at CPL3 the second overwrote the
# first's frame on the IST page in about one run in eight.
bad=0
for i in $(seq 1 100); do
    perch_feed hvc_input_again "cat $TMP/input" run --cmdline input=sum "$HVC"
    if [ "$status" != 0 ] || ! grep -qa "^hvc: input $want, " "$TMP/hvc_input_again.out"; then
        bad=$((bad + 1))
        last="status $status: $(head -c 300 "$TMP/hvc_input_again.err")"
    fi
done
if [ "$bad" = 0 ]; then pass hvc_input/100_runs; else fail hvc_input/100_runs "$bad of 100 runs failed, the last $last"; fi

# ---- The exit status: the sequence is taken out, N becomes the status ----
perch_run hvc_exit run --cmdline exit=7 "$HVC"
expect_status hvc_exit 7
expect_line hvc_exit out '^hvc: exit status follows$'
check_equal hvc_exit/sequence_stripped "$(grep -ac -e 'perch-ex' -e $'\033' "$TMP/hvc_exit.out")" 0
check_equal hvc_exit/no_message "$(cat "$TMP/hvc_exit.err")" ""
perch_run hvc_exit0 run --cmdline exit=0 "$HVC"
expect_status hvc_exit0 0
# Not an exit status: passed through unchanged, the guest's poweroff is 0.
perch_run hvc_exit300 run --cmdline exit=300 "$HVC"
expect_status hvc_exit300 0
if grep -qaF "$(printf '\033]perch-exit;300\007')" "$TMP/hvc_exit300.out"; then
    pass hvc_exit300/sequence_kept
else
    fail hvc_exit300/sequence_kept "the bytes did not reach stdout unchanged"
fi

# ---- Corrupted indices stop the guest ----
perch_run hvc_corrupt_out run --cmdline corrupt=out "$HVC"
expect_status hvc_corrupt_out 5
expect_one_line_error hvc_corrupt_out
expect_line hvc_corrupt_out err '^perch: guest stopped: hvc0 console ring index corrupted \(out_prod [0-9]+, out_cons [0-9]+\)$'
perch_feed hvc_corrupt_in "printf a; sleep 1; printf b" run --cmdline corrupt=in "$HVC"
expect_status hvc_corrupt_in 5
expect_one_line_error hvc_corrupt_in
expect_line hvc_corrupt_in err '^perch: guest stopped: hvc0 console ring index corrupted \(in_prod [0-9]+, in_cons [0-9]+\)$'

# ---- A terminal (a pseudo-terminal from script) ----
if ! command -v script >/dev/null; then
    fail hvc_tty "script(1) is not installed (util-linux)"
    exit 0
fi

# tty_session NAME FEED: run $TMP/NAME.sh on a new pseudo-terminal with
# FEED's output typed into it; the session's output is $TMP/NAME.out.
tty_session() {
    bash -c "$2" | timeout 60 script -qec "bash $TMP/$1.sh" /dev/null \
        >"$TMP/$1.out" 2>&1
}

# Raw mode: Ctrl-C and Enter reach the guest as bytes 03 and 0d (no
# signal, no CR-to-NL); Ctrl-A h lists the commands, Ctrl-A Ctrl-A sends
# 01, Ctrl-A x quits with status 0; the settings come back.
cat >"$TMP/tty.sh" <<EOS
stty -g >"$TMP/tty.before"
"$PERCH" run --cmdline input=hex "$HVC"
echo "status=\$?"
stty -g >"$TMP/tty.after"
EOS
tty_session tty "sleep 2; printf 'ab\003\r'; sleep 0.5; printf '\001h'; sleep 0.5; printf '\001\001'; sleep 0.5; printf '\001x'; sleep 1"
expect_line tty out '^hvc: in 61 62 03 0d'
expect_line tty out '^hvc: in 01'
expect_line tty out '^perch: Ctrl-A x +quit'
expect_line tty out '^perch: quit by Ctrl-A x'
expect_line tty out '^status=0'
check_equal tty/settings_restored "$(cat "$TMP/tty.before")" "$(cat "$TMP/tty.after" 2>&1)"

# Every other way out puts the settings back too: the guest stopped
# (status 5), a crash (4), SIGTERM (130), an error before the guest runs
# (1). And a background job leaves the terminal alone instead of being
# stopped by SIGTTOU.
cat >"$TMP/tty_exits.sh" <<EOS
check() { if [ "\$(stty -g)" = "\$before" ]; then echo "restored \$1 \$2"; else echo "NOT restored \$1 \$2"; fi; }
before=\$(stty -g)
"$PERCH" run --cmdline corrupt=out "$HVC" >/dev/null 2>&1; check corrupt \$?
"$PERCH" run --cmdline shutdown=crash "$GUESTS/hello.elf" >/dev/null 2>&1; check crash \$?
timeout --foreground --preserve-status -s TERM 2 "$PERCH" run --cmdline input=hex "$HVC" >/dev/null 2>&1; check sigterm \$?
"$PERCH" run --mem 999999 "$HVC" >/dev/null 2>&1; check error \$?
set -m
"$PERCH" run "$GUESTS/hello.elf" >/dev/null 2>&1 &
wait \$!; check background \$?
EOS
tty_session tty_exits "true"
for want in "corrupt 5" "crash 4" "sigterm 130" "error 2" "background 0"; do
    expect_line tty_exits out "^restored $want"
done
