# Traps as the machine's hypervisor counts them (KVM's own statistics,
# --stats "the machine's hypervisor"): the figures no Host counter sees.
# Two runs of perchbench's pipe in Debian's kernel, a short one and a long
# one; what the long one adds, per pipe switch:
#   - no write into a page table KVM shadows (each is an emulated store, a
#     trap): an address-space switch finds perch's L4 slots as they were
#     and only reads them (host/mm/l4_slots.c; once 4 per switch);
#   - at least one exit into KVM per Switcher visit (a visit is a trap).
. tests/lib.sh

# count NAME LABEL: the --stats figure on LABEL's line of run NAME.
count() { sed -n "s/^ *$2 *\([0-9]*\)$/\1/p" "$TMP/$1.err" | head -n 1; }
ops() { grep -a '^perchbench pipe ' "$TMP/$1.out" | grep -o 'ops [0-9]*' | cut -d' ' -f2; }

guest_run short 120 --stats -- /bin/perchbench --samples 3 --min-ms 1 pipe
expect_status short 0
guest_run long 120 --stats -- /bin/perchbench --samples 3 --min-ms 300 pipe
expect_status long 0

if grep -q "KVM keeps no statistics" "$TMP/long.err"; then
    echo "SKIP traps: this KVM keeps no statistics (KVM_GET_STATS_FD)"
    exit 0
fi
n=$(( $(ops long) - $(ops short) ))
if [ "$n" -gt 100 ]; then pass traps/pipe_ops; else fail traps/pipe_ops "only $n more switches"; fi

# per_switch LABEL: what the long run added on LABEL's line, x100 per switch.
per_switch() { echo $(( ($(count long "$1") - $(count short "$1")) * 100 / n )); }
visits() { sed -n '/Switcher visits/,/total/s/^ *total *\([0-9]*\)$/\1/p' "$TMP/$1.err"; }

# KVM's count of emulated faults holds MMIO stores too: the local APIC's
# (each timer tick's EOI and re-arming, and with several vCPUs the IPI that
# wakes the other), which come with time, not with switches. The Host
# counts its own APIC stores; what is left are table writes.
# With several vCPUs (make test-cpus) KVM counts about half a fault a
# switch more than the Host's stores (its IPIs' part; perf's
# kvm_emulate_insn shows no table write), so the check is for one vCPU.
emulated=$(per_switch 'emulated (tables, MMIO)')
apic=$(per_switch 'of them Host APIC stores')
if [ "${PERCH_CPUS:-1}" -gt 1 ]; then
    echo "SKIP traps/no_table_write_per_switch: $emulated/100 emulated faults a switch on ${PERCH_CPUS} vCPUs, $apic/100 of them the Host's APIC stores"
elif [ $((emulated - apic)) -lt 50 ]; then
    pass traps/no_table_write_per_switch
else
    fail traps/no_table_write_per_switch "$((emulated - apic))/100 emulated table writes a switch ($emulated/100 emulated faults, $apic/100 of them APIC stores)"
fi
exits=$(per_switch 'exits into KVM (traps)')
visits=$(( ($(visits long) - $(visits short)) * 100 / n ))
if [ "$exits" -ge "$visits" ] && [ "$visits" -gt 0 ]; then
    pass traps/an_exit_per_visit
else
    fail traps/an_exit_per_visit "$exits/100 exits, $visits/100 visits a switch"
fi
