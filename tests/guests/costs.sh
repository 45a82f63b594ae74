# The costs guest times a null hypercall (by `syscall`, and by a call to
# its copy of Linux's xen_hypercall_pv, which perch patches into a direct
# jump), a Switcher round trip, a Launcher round trip and the Switcher's
# probe roads, and with two vCPUs an IPI round trip and a TLB shootdown;
# here we check what must hold exactly: a null hypercall stays out of ring
# 0, the patched one is direct each time, each Switcher round trip or
# probe is one ring-0 visit, each Launcher round trip one exit, each
# shootdown one shootdown (counted by --stats).
. tests/lib.sh

perch_run costs run --stats "$GUESTS/costs.elf"
grep -E '^(PASS|FAIL) ' "$TMP/costs.out"
expect_status costs 0

# ops NAME [RUN]: how many operations RUN (default costs) timed of NAME.
ops() { sed -n "s/^costs: $1 .*, \([0-9]*\) ops$/\1/p" "$TMP/${2:-costs}.out"; }
stat() { sed -n "s/^ *$1 *\([0-9]*\)$/\1/p" "$TMP/costs.err"; }

check_equal() {
    if [ -n "$2" ] && [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', want '$3'"; fi
}
probes=0
for p in iretq sysretq swapgs cr3 iretq_end; do
    n=$(ops "probe_$p")
    if [ -n "$n" ]; then pass "costs/probe_$p"; else fail "costs/probe_$p" "no line"; fi
    probes=$((probes + ${n:-0}))
done
resumes=$(( $(ops switcher_roundtrip) + probes ))
check_equal costs/one_visit_per_switcher_roundtrip "$(stat 'service: resume')" "$resumes"
check_equal costs/one_exit_per_launcher_roundtrip "$(stat 'perch_op launcher round trip')" "$(ops launcher_roundtrip)"
check_equal costs/null_hypercalls_counted "$(stat xen_version)" \
    "$(( $(ops null_hypercall) + $(ops direct_hypercall) ))"
direct=$(sed -n 's/^ *of them direct, no trap *\([0-9]*\)  (\(.*\))$/\1 \2/p' "$TMP/costs.err")
check_equal costs/linux_hypercall_is_direct "$direct" \
    "$(ops direct_hypercall) xen_hypercall_pv and xen_iret jump to the Host"

# --trap-hypercalls leaves Linux's bytes alone: the same call is a syscall.
perch_run costs_trap run --stats --trap-hypercalls "$GUESTS/costs.elf"
expect_status costs_trap 0
check_equal costs/trap_hypercalls_none_direct \
    "$(sed -n 's/^ *of them direct, no trap *\([0-9]*\)  (\(.*\))$/\1 \2/p' "$TMP/costs_trap.err")" \
    "0 --trap-hypercalls"
# Visits: the round trips plus one exit per Launcher round trip and the
# shutdown; nothing else may have entered ring 0.
want=$(( resumes + $(ops launcher_roundtrip) + 1 ))
check_equal costs/no_other_visits "$(sed -n '/Switcher visits/,/total/s/^ *total *\([0-9]*\)$/\1/p' "$TMP/costs.err")" "$want"

# Two vCPUs: vCPU 1 answers vCPU 0's events and spins in guest code, so
# every MMUEXT_TLB_FLUSH_ALL must interrupt it: one shootdown an op.
perch_run costs_smp run --cpus 2 --stats --cmdline smp-only "$GUESTS/costs.elf"
grep -E '^(PASS|FAIL) (ipi_roundtrip|shootdown|partner_ends)' "$TMP/costs_smp.out"
expect_status costs_smp 0
check_equal costs/one_shootdown_per_op \
    "$(sed -n 's/^ *TLB shootdowns (vCPUs) *\([0-9]*\)$/\1/p' "$TMP/costs_smp.err")" \
    "$(ops shootdown costs_smp)"
if [ -n "$(ops ipi_roundtrip costs_smp)" ]; then pass costs/ipi_roundtrip_timed; else fail costs/ipi_roundtrip_timed "no line"; fi
# An IPI is one store to the local APIC once the ICR holds its destination
# (host/env/lapic.c), and the receiver's EOI another: two a round trip's
# leg or a shootdown, with a little room for the timer (once three).
ipis=$(( 2 * $(ops ipi_roundtrip costs_smp) + $(ops shootdown costs_smp) ))
apic=$(sed -n 's/^ *of them Host APIC stores *\([0-9]*\)$/\1/p' "$TMP/costs_smp.err")
if [ -n "$apic" ] && [ $((apic * 10)) -lt $((ipis * 25)) ]; then
    pass costs/one_apic_store_an_ipi
else
    fail costs/one_apic_store_an_ipi "$apic APIC stores for $ipis IPIs"
fi
