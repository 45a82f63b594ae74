# A hostile guest kernel (guests/hostile, one attack per boot: attack=NAME)
# scribbles over what the Launcher reads from the VM (the console ring
# indices, the request in the shared page), calls the Switcher's gates
# itself, overwrites Host code, reaches ring 0 through the RESUME gate and
# pokes the doorbell and local APIC pages. Whatever it does, perch must end
# within the time limit, either with status 0 (the attacks it is meant to
# shrug off) or with status 5 and exactly one printable "perch: " line that
# names the problem; a guest that never ends must still obey SIGTERM; and
# no perch process may be left behind.
. tests/lib.sh

HOSTILE=$GUESTS/hostile.elf
TAG=hostile-$$

# hrun_term NAME ATTACK SECONDS: a guest that never ends, stopped with
# SIGTERM after SECONDS (KILL 5 s later); $status is perch's own status.
hrun_term() {
    local name=$1 attack=$2 secs=$3
    (timeout --preserve-status -k 5 -s TERM "$secs" "$PERCH" run \
        --cmdline "attack=$attack tag=$TAG-$name" "$HOSTILE" \
        >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null; exit $?) 2>/dev/null
    status=$?
}

# The guest's own PASS/FAIL lines, passed through (stdout may hold binary).
guest_lines() {
    grep -aE '^(PASS|FAIL) hostile/' "$TMP/$1.out"
}

# stopped ATTACK REGEX [PERCH_OPTIONS...]: status 5, one line naming the
# problem.
stopped() {
    local attack=$1 regex=$2 name
    shift 2
    name=hostile_$attack$(printf '%s' "$*" | tr -c 'a-z0-9' '_')
    hrun "$name" "$attack" "$@"
    guest_lines "$name"
    expect_status "$name" 5
    sole_line "$name"
    expect_line "$name" err "$regex"
    no_line "$name" out 'must not reach stdout'
    no_leftover "$name"
}

# survives ATTACK [PERCH_OPTIONS...]: status 0, the guest's PASS line, no
# "perch: " line.
survives() {
    local name=hostile_$1 attack=$1
    shift
    hrun "$name" "$attack" "$@"
    guest_lines "$name"
    expect_status "$name" 0
    expect_line "$name" out "^PASS hostile/$attack\$"
    no_line "$name" out '^FAIL '
    no_line "$name" err '^perch: '
    no_leftover "$name"
}

# obeys_sigterm ATTACK SECONDS STDOUT_REGEX: a guest that never ends; perch
# stops on SIGTERM with status 130 and one line.
obeys_sigterm() {
    local name=hostile_$1
    hrun_term "$name" "$1" "$2"
    expect_status "$name" 130
    sole_line "$name"
    expect_line "$name" err '^perch: stopped by Terminated$'
    expect_line "$name" out "$3"
    no_leftover "$name"
}

# --- The console ring: console_prod is the Host's, checked on every drain.
stopped console_prod 'console ring index corrupted'
stopped console_prod_4097 'console ring index corrupted'
stopped console_prod_max 'console ring index corrupted \(producer 4294967295,'
stopped console_prod_back 'console ring index corrupted'
# Exactly one full ring is legal: 4096 stale bytes come out.
survives console_prod_full
# Only the console thread sees this one (doorbell, no console_io): it must
# kick the vCPU out of KVM_RUN while the guest spins for 2 s.
stopped console_prod_doorbell 'console ring index corrupted'
# A corrupt producer the Launcher only meets at its last drain, after the
# guest powered off: the same violation, the same stop.
stopped console_prod_poweroff 'console ring index corrupted'

# The same kick while the vCPU keeps leaving KVM_RUN (PING exits): it must
# not get lost. Up to 150 boots, stopping at the first wrong one.
name=hostile_console_kick_race
bad=""
for i in $(seq 1 150); do
    hrun "$name" console_kick_race
    if [ "$status" -ne 5 ] || [ "$(wc -l <"$TMP/$name.err")" -ne 1 ] ||
       ! grep -q 'console ring index corrupted' "$TMP/$name.err"; then
        bad="boot $i of 150: status $status, stderr: '$(head -c 200 "$TMP/$name.err")' (want 5 and the console ring named)"
        break
    fi
done
if [ -z "$bad" ]; then pass "$name/150_boots"; else fail "$name/150_boots" "$bad"; fi
no_leftover "$name"

# console_cons is the Launcher's (it keeps its own copy): moving it makes
# the Host ask for drains, and every line still comes out.
survives console_cons
expect_line hostile_console_cons out '^hostile: console_cons marker 2$'
if [ "$(grep -ac '^hostile: console_cons loop [0-9]*$' "$TMP/hostile_console_cons.out")" -eq 1000 ]; then
    pass "hostile_console_cons/all_1000_lines"
else
    fail "hostile_console_cons/all_1000_lines" \
        "$(grep -ac '^hostile: console_cons loop' "$TMP/hostile_console_cons.out") of 1000"
fi
# Telling the Host that everything was consumed makes it overwrite unread
# bytes: perch may stop the guest over the index (5, console ring named)
# or print; a silent 0 that lost the output is neither. 10 boots.
name=hostile_console_cons_overrun
n0=0 n5=0 nbad=0 bad=""
for i in $(seq 1 10); do
    hrun "$name" console_cons_overrun
    if [ "$status" -eq 0 ] && grep -aq '^PASS hostile/console_cons_overrun$' "$TMP/$name.out" &&
       [ ! -s "$TMP/$name.err" ]; then
        n0=$((n0 + 1))
    elif [ "$status" -eq 5 ] && [ "$(wc -l <"$TMP/$name.err")" -eq 1 ] &&
         grep -q '^perch: guest stopped: console ring index corrupted' "$TMP/$name.err"; then
        n5=$((n5 + 1))
    else
        nbad=$((nbad + 1))
        bad="status $status, $(wc -c <"$TMP/$name.out") bytes of stdout without the PASS line, stderr '$(head -c 200 "$TMP/$name.err")'"
    fi
done
if [ "$nbad" -eq 0 ]; then
    pass "$name/10_boots"
else
    fail "$name/10_boots" "$nbad of 10 boots ended neither cleanly nor with the ring named (0 with output: $n0, 5: $n5); last: $bad"
fi
no_leftover "$name"

# --- Requests through the EXIT gate, called by the guest kernel itself.
stopped request_garbage 'guest stopped: unknown request 3735928559'
stopped request_none 'guest stopped: unknown request 0 '
stopped request_count 'guest stopped: unknown request [0-9]+ '
# 160 bytes of newlines, escapes and bytes above 0x7f, no NUL: printable
# (sole_line) and bounded.
stopped request_message '^perch: guest stopped: [ -~]{1,160}$'
# 160 printable bytes and no NUL, more printable bytes after them.
stopped request_message_bound '^perch: guest stopped: X{160}$'
stopped shutdown_reason 'shutdown reason 18446744073709551615'
stopped shutdown_reason_hc 'shutdown reason 4294967295'
survives exit_flood
# A guest that only makes exits, stopped by SIGTERM 1 s in: 10 boots, each
# must end with 130 (a lost signal means a KILL 5 s later: 137).
name=hostile_exit_forever
bad=""
for i in $(seq 1 10); do
    hrun_term "$name" exit_forever 1
    if [ "$status" -ne 130 ] || ! grep -q '^perch: stopped by Terminated$' "$TMP/$name.err"; then
        bad="$bad boot $i: status $status;"
    fi
done
if [ -z "$bad" ]; then pass "$name/sigterm_10_boots"; else fail "$name/sigterm_10_boots" "want 130 each time (137: perch ignored SIGTERM and was killed):$bad"; fi
no_leftover "$name"

# --- Host code (mapped writable in the kernel view) and the Switcher's
# supervisor-only pages.
stopped host_code 'Host fault: #UD .* at rip [0-9a-f]+'
stopped host_code_int3 'Host fault: #BP'
stopped host_code_hlt 'Host fault: #GP'
obeys_sigterm host_livelock 3 '^hostile: host_livelock: looping'
stopped host_stack '#PF page fault'
stopped host_idt '#PF page fault'
stopped host_gdt '#PF page fault'
stopped host_tss '#PF page fault'
stopped switcher_code '#PF page fault'
stopped df_stack '#PF page fault'
survives ist_scribble
survives stats_scribble --stats
expect_line hostile_stats_scribble err '^perch stats:'
# The boot facts the Host reads later: it may fault (5), never the Launcher.
name=hostile_boot_scribble
hrun "$name" boot_scribble
guest_lines "$name"
if [ "$status" -eq 0 ] || { [ "$status" -eq 5 ] && [ "$(wc -l <"$TMP/$name.err")" -eq 1 ]; }; then
    pass "$name/clean_end"
else
    fail "$name/clean_end" "status $status, stderr: $(head -c 300 "$TMP/$name.err")"
fi
no_leftover "$name"

# --- Ring 0 through the RESUME gate: by design the guest kernel controls
# the Host and so the gates; the KVM VM stays the boundary.
stopped gate_resume_forged 'I/O to port 0x80 from ring 0'
if grep -q 'came back from cs 0xe008 (CPL 0)' "$TMP/hostile_gate_resume_forged.out"; then
    echo "# note: the guest kernel ran at CPL0 via SW_GATE_RESUME (by design)"
fi
stopped ring0_triple 'triple-faulted'
# The line says where: KVM's rip, on r0_triple's ud2, named from the
# guest's own symbols (as nm reads them).
rip=$(sed -n 's/.*triple-faulted at rip 0x\([0-9a-f]*\) (r0_triple+0x[0-9a-f]*)$/\1/p' "$TMP/hostile_ring0_triple.err")
start=$(nm "$HOSTILE" | awk '$3 == "r0_triple" { print $1 }')
if [ -n "$rip" ] && [ -n "$start" ] && [ $((0x$rip - 0x$start)) -ge 0 ] &&
   [ $((0x$rip - 0x$start)) -lt 16 ]; then
    pass hostile_ring0_triple/rip_in_r0_triple
else
    fail hostile_ring0_triple/rip_in_r0_triple "rip '${rip:-none}', r0_triple at '${start:-?}': $(head -c 200 "$TMP/hostile_ring0_triple.err")"
fi
# An interrupt that finds ring 0 running with interrupts on: through a DPL3
# gate (CPL3 events) or the Switcher's own (--no-cpl3-events), a clean stop.
# Through a DPL3 gate the handler is still in ring 0 for KVM here: the
# Host's int3 to the Launcher ends in KVM's internal error, which stops the
# guest all the same.
stopped ring0_interrupt '^perch: guest stopped: (KVM cannot go on|.*came through a DPL3 gate while ring 0 ran)'
stopped ring0_interrupt 'Switcher fault: interrupt .* in ring 0' --no-cpl3-events
obeys_sigterm ring0_hang 3 '^hostile: ring0_hang: halting in ring 0'

# --- console_io over all mapped memory and past it.
survives mmio

# --- The doorbell (an ioeventfd for 4-byte stores) and the local APIC.
survives doorbell
stopped doorbell_wide 'access to unbacked physical address 0x[0-9a-f]+ at rip'
stopped doorbell_byte 'access to unbacked physical address'
stopped doorbell_read 'access to unbacked physical address'
stopped apic_nmi 'NMI'
stopped apic_vector18 'NMI, double fault or machine check'
# INIT to itself resets the vCPU into real mode outside guest memory: the
# guest did it, so "guest stopped" and 5, not perch's own error status 1.
stopped apic_init '^perch: guest stopped: '

# --- Port I/O from the guest kernel (CPL3).
stopped out_of_ring0 '#GP general protection'
stopped out_exit_port '#GP general protection'
survives out_iopl

# --- The direct entry Linux's patched xen_hypercall_pv and xen_iret jump
# to (guests/rt/linux_calls.S carries them): with an rsp it cannot write,
# under a storm of timer interrupts (every call right, registers kept,
# every timer fired), and after the kernel puts its own bytes back.
stopped direct_bad_rsp "direct entry with rsp dead000, which it cannot write"
survives direct_storm
expect_line hostile_direct_storm out '^hostile: direct_storm: 2000 of 2000 timers fired, 0 wrong calls'
survives direct_rewritten

# The balloon: frames that are not the guest's, or given back twice, stop
# the guest in the Host; forged ranges for the Launcher to drop stop it
# there.
stopped balloon_foreign "guest stopped: the balloon gave back frame 1, which is not the guest's"
stopped balloon_twice 'guest stopped: the balloon gave back frame [0-9a-f]+ twice'
stopped release_forged 'guest stopped: frames 0x1 \+ 1 to release are not the guest.s'
stopped release_count 'guest stopped: 2147483647 frame ranges to release, more than 256'
