# Each exception goes through its Switcher stub into the Host with the CPU's
# frame intact: perch names the vector and the rip the guest reported (for
# int3, which is a trap, the next instruction), counts one visit, and stops
# the guest with status 5, since no trap table exists yet.
. tests/lib.sh

# check_trap NAME VECTOR RIP_OFFSET ERROR
check_trap() {
    local name=$1 vector=$2 offset=$3 error=$4 rip want
    perch_run "trap_$name" run --stats --cmdline "trap=$name" "$GUESTS/traps.elf"
    expect_status "trap_$name" 5
    rip=$(sed -n 's/^traps: taking .* at rip \([0-9a-f]*\)$/\1/p' "$TMP/trap_$name.out")
    want=$(printf '%x' $((0x${rip:-0} + offset)))
    expect_line "trap_$name" err "\\(vector $vector\\) at rip $want, error $error,"
    expect_line "trap_$name" err "^ +vector $vector +1$"
    expect_line "trap_$name" err "^ +exception +1$"
}

check_trap ud 6 0 0
check_trap bp 3 1 0
check_trap gp 13 0 0
check_trap pf 14 0 0   # a kernel-mode fault: the user bit is cleared, as Xen does
check_trap de 0 2 0
