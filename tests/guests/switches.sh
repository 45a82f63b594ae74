# The test guests under the switches that turn perch's optimizations off:
# what passes with them on passes with them off (events through ring 0,
# every flush honoured). Each guest's own PASS/FAIL lines are its verdict;
# here: status 0 and no failed case. (Guest processes without isolation
# are tested with Linux in linux.sh: the usermode guest's hostile user
# programs are meant to fail there.)
. tests/lib.sh

# run_guest GUEST PERCH_OPTIONS...
run_guest() {
    local guest=$1 name
    shift
    name=${guest}$(printf '%s' "$*" | tr -c 'a-z0-9' '_')
    perch_run "$name" run "$@" "$GUESTS/$guest.elf"
    expect_status "$name" 0
    expect_line "$name" out "^$guest: [0-9]+ passed, 0 failed$"
}

for guest in usermode privileged mmu events; do
    run_guest "$guest" --no-cpl3-events
done
run_guest mmu --no-flush-elision
run_guest usermode --no-flush-elision
