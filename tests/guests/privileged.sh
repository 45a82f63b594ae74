# What a PV kernel at CPL3 gets for its privileged instructions and
# descriptor tables: emulated CPUID, MSRs, port I/O and CRs, segment bases,
# and Xen's descriptor checks (the guest's own PASS/FAIL lines).
. tests/lib.sh

perch_run privileged run --stats "$GUESTS/privileged.elf"
grep -E '^(PASS|FAIL) ' "$TMP/privileged.out"
expect_status privileged 0
expect_line privileged out '^privileged: [0-9]+ passed, 0 failed$'
expect_line privileged err '^ +vector 6 +[1-9][0-9]*$'
