# Events and time as a Xen PV kernel uses them: shared_info and pvclock,
# vcpu_info registration, the event callback, event channels (bind, send,
# mask, unmask, status, close), single-shot timers with SCHEDOP_block,
# SCHEDOP_poll, runstate and 200 short ticks while idle (the guest's own
# PASS/FAIL lines are passed through). --stats must show the hypercalls and
# the Switcher visits that this takes: idle halts and interrupts.
. tests/lib.sh

perch_run events run --stats "$GUESTS/events.elf"
grep -E '^(PASS|FAIL) ' "$TMP/events.out"
expect_status events 0
expect_line events out '^events: [0-9]+ passed, 0 failed$'
expect_line events err '^ +event_channel_op +[0-9]+$'
expect_line events err '^ +vcpu_op +[0-9]+$'
expect_line events err '^ +sched_op +[0-9]+$'
expect_line events err '^ +service: halt \(idle\) +[0-9]+$'
expect_line events err '^ +interrupt +[0-9]+$'

# The TSC rate the guest derives from the pvclock scale is the vCPU's.
guest_khz=$(sed -n 's/^events: pvclock tsc_khz \([0-9]*\) .*/\1/p' "$TMP/events.out")
vcpu_khz=$(sed -n 's/^ *vCPU TSC: \([0-9]*\) kHz$/\1/p' "$TMP/events.err")
if [ -n "$guest_khz" ] && [ -n "$vcpu_khz" ] && [ "$vcpu_khz" -gt 0 ] &&
   [ $(( (guest_khz - vcpu_khz) * 1000 / vcpu_khz )) -eq 0 ]; then
    pass "events/pvclock_scale_matches_vcpu_tsc"
else
    fail "events/pvclock_scale_matches_vcpu_tsc" \
         "guest computed ${guest_khz:-nothing} kHz, --stats says ${vcpu_khz:-nothing} kHz"
fi
