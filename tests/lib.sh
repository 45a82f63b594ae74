# Helpers for the shell tests under tests/: each check prints one line,
# "PASS name" or "FAIL name: why", which tests/run counts.
# Sourced with the repository root as the working directory.

PERCH=${PERCH:-build/perch}
GUESTS=${GUESTS:-build/guests}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# perch_run NAME ARGS...: run perch with a time limit; leaves status in
# $status, stdout in $TMP/NAME.out and stderr in $TMP/NAME.err.
perch_run() {
    local name=$1
    shift
    timeout 60 "$PERCH" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
    status=$?
}

# expect_status NAME WANT: the last perch_run NAME ended with status WANT.
expect_status() {
    if [ "$status" -eq "$2" ]; then
        pass "$1"
    else
        fail "$1" "status $status, want $2; stderr: $(head -c 300 "$TMP/$1.err")"
    fi
}

# expect_line NAME FILE REGEX: some line of $TMP/NAME.FILE matches.
expect_line() {
    if grep -Eq -- "$3" "$TMP/$1.$2"; then
        pass "$1/$2 ~ $3"
    else
        fail "$1/$2 ~ $3" "no such line in: $(head -c 300 "$TMP/$1.$2")"
    fi
}

# expect_one_line_error NAME: stderr is exactly one line, 'perch: ...'
# (a command-line error carries its usage hint on that same line).
expect_one_line_error() {
    if [ "$(wc -l <"$TMP/$1.err")" -eq 1 ] && grep -q '^perch: ' "$TMP/$1.err"; then
        pass "$1/one_line"
    else
        fail "$1/one_line" "stderr was: $(head -c 300 "$TMP/$1.err")"
    fi
}

# guest_run NAME SECONDS ARGS...: one `perch run ARGS` under timeout (KILL
# 10 s after the TERM); leaves status in $status, $TMP/NAME.{out,err}.
guest_run() {
    local name=$1 secs=$2
    shift 2
    # The subshell keeps bash's "Killed" job notice out of the output.
    (timeout -k 10 "$secs" "$PERCH" run "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" \
        </dev/null; exit $?) 2>/dev/null
    status=$?
}

# guest_start NAME ARGS...: `perch run ARGS` in the background (its
# command must end by itself), its pid in $pid_NAME, $TMP/NAME.{out,err}.
guest_start() {
    local name=$1
    shift
    "$PERCH" run "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null &
    eval "pid_$name=$!"
}

# wait_line FILE REGEX [SECONDS]: until a line of FILE matches (default 90 s).
wait_line() {
    for _ in $(seq 1 $((${3:-90} * 2))); do
        grep -aEq -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.5
    done
    return 1
}

# guest_lines GUEST NAME: the test guest's PASS/FAIL lines of run NAME,
# renamed NAME/... (stdout may hold binary).
guest_lines() {
    grep -aE "^(PASS|FAIL) $1/" "$TMP/$2.out" | sed "s#^\(PASS\|FAIL\) $1/#\1 $2/#"
}

# guest_passed GUEST NAME: the guest said "N passed, 0 failed" in run NAME.
guest_passed() {
    if grep -aqE "^$1: [1-9][0-9]* passed, 0 failed\$" "$TMP/$2.out"; then
        pass "$2/guest_passed"
    else
        fail "$2/guest_passed" "$(grep -a "^$1: .* passed" "$TMP/$2.out" || echo 'no summary')"
    fi
}

# make_avx_disk IMG: a small ext4 image holding avx_state (the guest
# processes' vector-register test, tests/guests/linux/avx_state.c), built
# static. Returns non-zero, with a FAIL line, if gcc or mke2fs fails.
make_avx_disk() {
    mkdir -p "$TMP/avx_tree"
    if ! gcc -O2 -static -mavx -o "$TMP/avx_tree/avx_state" tests/guests/linux/avx_state.c; then
        fail avx_disk/built "gcc -static -mavx failed"
        return 1
    fi
    mke2fs -q -t ext4 -d "$TMP/avx_tree" "$1" 16M || { fail avx_disk/made "mke2fs failed"; return 1; }
}

# host_runs_avx512: this machine's CPU has AVX-512 (F and BW) and its
# XCR0 enables it, so guest processes can use zmm and opmask registers.
host_runs_avx512() {
    grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo
}

# For the scripts of hostile guests (hostile.sh, smp_hostile.sh), which set
# HOSTILE (the guest's ELF) and TAG (on every command line, so that
# no_leftover finds what a run left behind).

# hrun NAME ATTACK [PERCH_OPTIONS...]: one boot under `timeout 60` (KILL 10 s
# later if perch ignores the TERM). Sets $status, fills $TMP/NAME.{out,err}.
hrun() {
    local name=$1 attack=$2
    shift 2
    # The subshell keeps bash's "Killed" job notice out of the output.
    (timeout -k 10 60 "$PERCH" run "$@" --cmdline "attack=$attack tag=$TAG-$name" \
        "$HOSTILE" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null; exit $?) 2>/dev/null
    status=$?
}

# no_leftover NAME: no process still carries this run's tag.
no_leftover() {
    local left
    left=$(pgrep -f -- "tag=$TAG-$1( |\$)")
    if [ -z "$left" ]; then
        pass "$1/no_leftover_process"
    else
        fail "$1/no_leftover_process" "still running: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ',')")"
        kill -KILL $left 2>/dev/null
    fi
}

# sole_line NAME: stderr is exactly one line, "perch: ...", printable ASCII,
# bounded.
sole_line() {
    local f="$TMP/$1.err"
    if [ "$(wc -l <"$f")" -eq 1 ] && grep -q '^perch: ' "$f" &&
       ! LC_ALL=C grep -q '[^ -~]' "$f" && [ "$(wc -c <"$f")" -le 300 ]; then
        pass "$1/one_line"
    else
        fail "$1/one_line" "stderr was ($(wc -l <"$f") lines): $(head -c 300 "$f" | cat -v)"
    fi
}

# no_line NAME FILE REGEX: no line of $TMP/NAME.FILE matches.
no_line() {
    if grep -aEq -- "$3" "$TMP/$1.$2"; then
        fail "$1/$2 !~ $3" "found: $(grep -aE -- "$3" "$TMP/$1.$2" | head -c 300)"
    else
        pass "$1/$2 !~ $3"
    fi
}
