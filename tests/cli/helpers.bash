# Helpers for tests/cli/*.sh (not a test itself: tests/run runs only *.sh).
# A perch error must be one 'perch: ...' line on stderr, a non-zero status,
# and no perch process left behind.
. tests/lib.sh

# Run a private copy of perch, so that "nothing left running" looks only at
# this test's processes, not at those of tests running alongside.
cp "$PERCH" "$TMP/perch" || exit 1
PERCH=$TMP/perch
HELLO=$GUESTS/hello.elf

# expect_nothing_running NAME: no process of our perch copy remains.
expect_nothing_running() {
    local left

    left=$(pgrep -af "^$PERCH( |\$)")
    if [ -z "$left" ]; then
        pass "$1/nothing_running"
    else
        fail "$1/nothing_running" "still running: $left"
    fi
}

# expect_error NAME STATUS REGEX: the last perch_run NAME exited with
# STATUS, wrote one 'perch: ' line matching REGEX, and left nothing running.
expect_error() {
    expect_status "$1" "$2"
    expect_one_line_error "$1"
    expect_line "$1" err "^perch: .*($3)"
    expect_nothing_running "$1"
}
