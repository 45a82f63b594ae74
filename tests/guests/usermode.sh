# A guest kernel with a user mode: system calls that return, exceptions in
# kernel and user mode bounced with Xen's frames, and hostile user programs
# that must all fault into the guest kernel (their PASS/FAIL lines come from
# the guest). Counts: one Switcher visit per user system call into the
# kernel and one to return (the CR3 load back to the user view).
. tests/lib.sh

perch_run usermode run --stats "$GUESTS/usermode.elf"
grep -E '^(PASS|FAIL) ' "$TMP/usermode.out"
expect_status usermode 0
expect_line usermode out '^usermode: [0-9]+ passed, 0 failed$'
expect_line usermode err '^ +guest-user syscall +[0-9]+$'
