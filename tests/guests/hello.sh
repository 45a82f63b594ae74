# The first test guest under KVM: it prints through console_io, checks the
# start-of-day state and the first hypercalls (its own PASS/FAIL lines are
# passed through), and ends with each kind of shutdown.
. tests/lib.sh

perch_run hello run "$GUESTS/hello.elf"
cat "$TMP/hello.out" | grep -E '^(PASS|FAIL) '
expect_status hello 0
expect_line hello out '^Hello from a perch PV guest$'

perch_run hello_reboot run --cmdline shutdown=reboot "$GUESTS/hello.elf"
expect_status hello_reboot 3
expect_line hello_reboot err 'reboot'

perch_run hello_crash run --cmdline shutdown=crash "$GUESTS/hello.elf"
expect_status hello_crash 4
expect_line hello_crash err 'crash'

perch_run hello_stats run --stats "$GUESTS/hello.elf"
expect_status hello_stats 0
expect_line hello_stats err '^ +console_io +[0-9]+$'
expect_line hello_stats err '^ +xen_version +1$'
expect_line hello_stats err '^ +shutdown request +1$'
