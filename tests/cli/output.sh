# The guest's output goes to stdout; stdout that cannot take it (a pipe
# nobody reads any more, a full disk) ends the run with one 'perch: ...'
# line and status 1, as it would end cat, instead of running on unheard.
. tests/cli/helpers.bash

# out_run NAME ARGS...: perch with stdout as the caller redirected it.
out_run() {
    local name=$1
    shift
    timeout 60 "$PERCH" "$@" 2>"$TMP/$name.err" </dev/null
    status=$?
}

out_run full_disk run "$HELLO" >/dev/full
expect_error full_disk 1 "cannot write the guest's output: No space left on device"

# A pipe whose reader is gone before perch starts: a FIFO opened for both
# ends, then its only reader closed.
mkfifo "$TMP/pipe"
exec 3<>"$TMP/pipe" 4>"$TMP/pipe"
exec 3<&-
out_run closed_pipe run "$HELLO" >&4
exec 4>&-
expect_error closed_pipe 1 "cannot write the guest's output: Broken pipe"
