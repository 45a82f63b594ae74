# perch cpu record and --cpu-profile: a profile is written that perch reads
# back and replays (on a test guest); each mistake gets one 'perch: ...'
# line and its status, and a bad profile names the line that is wrong.
. tests/cli/helpers.bash

perch_run record cpu record
expect_status record 0
expect_line record out '^CPU 0:'
expect_line record out '^   0x00000000 0x00: eax=0x[0-9a-f]{8} ebx='
expect_line record out '^xcr0=0x[0-9a-f]+'
expect_line record out '^msr 0x8b=0x'

perch_run record_file cpu record "$TMP/mine.txt"
expect_status record_file 0
if cmp -s "$TMP/mine.txt" "$TMP/record.out"; then pass record_file/same; else fail record_file/same "FILE differs from standard output"; fi
perch_run replay run --cpu-profile "$TMP/mine.txt" "$HELLO"
expect_status replay 0

perch_run record_exists cpu record "$TMP/mine.txt"
expect_error record_exists 1 "cannot create .*mine.txt: File exists"
perch_run record_two cpu record "$TMP/a" "$TMP/b"
expect_error record_two 2 "one FILE at most"
perch_run cpu_none cpu
expect_error cpu_none 2 "no subcommand given"
perch_run cpu_bogus cpu show
expect_error cpu_bogus 2 "unknown subcommand"

perch_run profile_missing run --cpu-profile "$TMP/no-such.txt" "$HELLO"
expect_error profile_missing 1 "no-such.txt"
printf '# fine\n   0x00000000 0x00: eax=0x1 ebx=0x2 ecx=0x3 edx=0x4\nxcr0=0x7 and more\n' >"$TMP/bad.txt"
perch_run profile_bad run --cpu-profile "$TMP/bad.txt" "$HELLO"
expect_error profile_bad 1 "CPU profile .*bad.txt: line 3: "
perch_run profile_twice run --cpu-profile "$TMP/mine.txt" --cpu-profile "$TMP/mine.txt" "$HELLO"
expect_error profile_twice 2 "option --cpu-profile given twice"
perch_run profile_dir run --cpu-profile "$TMP" "$HELLO"
expect_error profile_dir 1 "$TMP"
