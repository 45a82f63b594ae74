# A hostile guest kernel with several vCPUs (guests/smp_hostile, one attack
# per boot: attack=NAME, run with --cpus 2, some also with --cpus 4) brings
# vCPUs up with contexts perch must refuse or that fault at once, brings up
# what runs or does not exist, races its vCPUs on one page-table entry, one
# table's pin and one event channel, storms IPIs, takes a busy vCPU down,
# ends while other vCPUs are busy, and sends an NMI or an INIT to the
# vCPUs that hold the Host lock. Each attack boots a few times: every boot must end within
# the time limit with status 0 and the guest's own PASS line, or with
# status 5 and exactly one printable "perch: " line naming the problem
# (notes such as "more vCPUs than host cores" aside), and leave no process
# behind.
. tests/lib.sh

HOSTILE=$GUESTS/smp_hostile.elf
TAG=smp-hostile-$$
BOOTS=3

# drop_notes NAME: perch's "perch: note: " lines out of $TMP/NAME.err
# (with more vCPUs than host cores it says so), into $TMP/NAME.notes.
drop_notes() {
    grep -v '^perch: note: ' "$TMP/$1.err" >"$TMP/$1.stop"
    grep '^perch: note: ' "$TMP/$1.err" >"$TMP/$1.notes"
    mv "$TMP/$1.stop" "$TMP/$1.err"
}

# as_wanted NAME WANT REGEX: the last boot ended as it should: status 0
# with the guest's PASS line, no FAIL and no stop line; or status 5 with
# one line matching REGEX.
as_wanted() {
    if [ "$2" -eq 0 ]; then
        [ "$status" -eq 0 ] && grep -aq "^PASS smp_hostile/" "$TMP/$1.out" &&
            ! grep -aq '^FAIL ' "$TMP/$1.out" && [ ! -s "$TMP/$1.err" ]
    else
        [ "$status" -eq "$2" ] && [ "$(wc -l <"$TMP/$1.err")" -eq 1 ] &&
            grep -Eq -- "$3" "$TMP/$1.err"
    fi
}

# boots ATTACK CPUS WANT [REGEX]: BOOTS boots with --cpus CPUS, until one
# does not end as wanted; then that boot (or the last) is checked line by
# line.
boots() {
    local attack=$1 cpus=$2 want=$3 regex=${4:-.} name i
    name=smp_hostile_${attack}_cpus$cpus
    for i in $(seq 1 $BOOTS); do
        hrun "$name" "$attack" --cpus "$cpus"
        drop_notes "$name"
        as_wanted "$name" "$want" "$regex" || break
    done
    guest_lines smp_hostile "$name"
    expect_status "$name" "$want"
    if [ "$want" -eq 0 ]; then
        expect_line "$name" out "^PASS smp_hostile/$attack\$"
        no_line "$name" out '^FAIL '
        no_line "$name" err '^perch: '
    else
        sole_line "$name"
        expect_line "$name" err "$regex"
    fi
    no_leftover "$name"
}

# --- VCPUOP_initialise: contexts Xen refuses get its error (-EINVAL, or
# -EFAULT for one the Host cannot read), the vCPU stays off, and the good
# context starts it afterwards.
for attack in ctx_host ctx_noncanonical ctx_cr3 ctx_gdt ctx_selectors ctx_unreadable; do
    boots $attack 2 0
done
# Contexts the Host takes whose first instruction or push faults: no trap
# table on that vCPU, so the guest is stopped, the fault named.
boots start_unmapped_rip 2 5 '^perch: guest stopped: guest kernel took #PF page fault .* at rip 1000,.* no handler'
boots start_unmapped_rsp 2 5 '^perch: guest stopped: guest kernel took #PF page fault .* rsp 2000 .* no handler'
# Initialise of a running vCPU and of itself is -EEXIST, up of one is a
# no-op; ids past the domain's vCPUs (up to 2^64 - 1) are -ENOENT.
boots up_running 2 0
boots id_range 2 0
boots id_range 4 0

# --- Races: one L1 entry by update_va_mapping and mmu_update (every view
# frame a or b, the entry too), one table pinned and unpinned (pins -
# unpins is 0 or 1 and the last unpin agrees), one event channel used and
# closed from every vCPU (every port opened is closed exactly once).
for attack in race_pte race_pin race_evtchn; do
    boots $attack 2 0
done
boots race_evtchn 4 0
# Every vCPU sends IPIs to the next as fast as it can for 2 s, each with a
# hypercall between sends: all are sent and some taken on every vCPU.
boots ipi_storm 2 0
boots ipi_storm 4 0

# --- Down and the end: VCPUOP_down of another vCPU is -EINVAL and its loop
# goes on; a vCPU that goes down and is brought up 300 times; the guest
# powering off (or taking its last vCPU down) while other vCPUs loop in
# hypercalls, spin at CPL3 or sleep in the Host ends with 0; one crashing
# from vCPU 1 with 4 and the crash line.
boots down_busy 2 0
boots down_up_race 2 0
for attack in end_busy end_spinning end_sleeping end_all_down end_from_vcpu1; do
    boots $attack 2 0
done
boots end_busy 4 0
boots crash_from_vcpu1 2 4 '^perch: guest crashed \(SHUTDOWN_crash\) at rip 0x[0-9a-f]+ \(shutdown_from_here\+0x[0-9a-f]+\)'

# --- The local APIC at the vCPUs that loop in long hypercalls, holding
# the Host lock: an NMI stops the guest in ring 0; an INIT leaves a vCPU
# waiting for a SIPI inside KVM_RUN, perhaps with the Host lock held (the
# others would spin for it forever): the group's watch kicks every vCPU
# once a second, and the one found waiting stops the guest.
boots nmi_lock_holder 2 5 '^perch: guest stopped: an NMI, double fault or machine check reached ring 0'
boots init_lock_holder 2 5 '^perch: guest stopped: vCPU [0-9]+ was sent an INIT through the local APIC$'
boots init_lock_holder 4 5 '^perch: guest stopped: vCPU [0-9]+ was sent an INIT through the local APIC$'
