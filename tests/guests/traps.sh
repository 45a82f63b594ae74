# Each exception reaches the Host with the CPU's frame intact: perch names
# the vector and the rip the guest reported (for int3, which is a trap, the
# next instruction), counts it, and stops the guest with status 5, since no
# trap table exists yet. With CPL3 events (the default) the exception comes
# through a DPL3 gate with no ring-0 visit (the #PF's address proven from
# the instruction; --no-fault-decode reads CR2 in one visit; int3 always
# goes through the Switcher); with --no-cpl3-events, through the Switcher's
# stub: one visit. The line ends with the place the Host reported
# (request.where): the same rip.
. tests/lib.sh

# check_trap NAME VECTOR RIP_OFFSET ERROR VISITS [PERCH_OPTIONS...]
check_trap() {
    local name=$1 vector=$2 offset=$3 error=$4 visits=$5 rip want run
    shift 5
    run=trap_$name$(printf '%s' "$*" | tr -c 'a-z0-9' '_')
    perch_run "$run" run --stats "$@" --cmdline "trap=$name" "$GUESTS/traps.elf"
    expect_status "$run" 5
    rip=$(sed -n 's/^traps: taking .* at rip \([0-9a-f]*\)$/\1/p' "$TMP/$run.out")
    want=$(printf '%x' $((0x${rip:-0} + offset)))
    expect_line "$run" err "\\(vector $vector\\) at rip $want, error $error,"
    # The crash line's own place: the same rip, named from the guest ELF's
    # own symbol table, and the return addresses on its stack.
    expect_line "$run" err "; no handler; guest at rip 0x$want \\([a-z_]+\\+0x[0-9a-f]+\\); stack: .*_start\\+0x[0-9a-f]+\$"
    expect_line "$run" err "^ +vector $vector +1$"
    # The exit that reports the stop is the one other visit.
    expect_line "$run" err "^ +total +$((visits + 1))$"
}

for opts in "" --no-cpl3-events --no-fault-decode; do
    case $opts in
    --no-cpl3-events) ring0=1 pf=1 ;;
    --no-fault-decode) ring0=0 pf=1 ;;
    *) ring0=0 pf=0 ;;
    esac
    check_trap ud 6 0 0 $ring0 $opts
    check_trap bp 3 1 0 1 $opts
    check_trap gp 13 0 0 $ring0 $opts
    check_trap pf 14 0 0 $pf $opts   # a kernel-mode fault: the user bit is cleared, as Xen does
    check_trap de 0 2 0 $ring0 $opts
done
