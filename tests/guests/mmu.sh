# The PV MMU interface, from a guest kernel (guests/mmu): mmu_update of L1
# entries, the same in a multicall, update_va_mapping and its flushes,
# PRESERVE_AD, MACHPHYS_UPDATE, trapped PTE writes (writable page tables),
# timing, and the refusals Xen gives. Run twice: the default (fast) mode,
# then perch --strict with strict=1 on the guest's command line, which adds
# Xen's page-type refusals. The guest's PASS/FAIL lines pass through; here:
# exit status, the guest's own lines, and perch --stats against the counts
# the guest reports having made.
. tests/lib.sh

check_equal() {
    if [ -n "$2" ] && [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', want '$3'"; fi
}

for mode in default strict; do
    name=mmu_$mode
    if [ "$mode" = strict ]; then
        perch_run "$name" run --stats --strict --cmdline strict=1 "$GUESTS/mmu.elf"
    else
        perch_run "$name" run --stats "$GUESTS/mmu.elf"
    fi
    grep -aE '^(PASS|FAIL) ' "$TMP/$name.out" | sed "s#^\(PASS\|FAIL\) mmu/#\1 mmu/$mode/#"
    expect_status "$name" 0
    expect_line "$name" out "^mmu: $mode mode$"
    expect_line "$name" out '^mmu: [0-9]+ passed, [0-9]+ failed$'
    for t in ptwr_store mmu_update update_va_mapping ptwr_store_flush \
             mmu_update_flush update_va_mapping_flush update_va_mapping_uvmf_invlpg; do
        expect_line "$name" out "^mmu: $t cycles [0-9]+ \([0-9-]+ - [0-9]+\) per op, [0-9]+ ops$"
    done

    # What the guest says it made ("mmu: hypercalls made: NAME N ...",
    # multicall entries included), and what perch counted.
    made() {
        awk -v k="$1" '/^mmu: hypercalls made:/ {
            for (i = 4; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' "$TMP/$name.out"
    }
    stat() { sed -n "s/^ *$1 *\([0-9]*\)$/\1/p" "$TMP/$name.err" | head -1; }
    for hc in mmu_update mmuext_op update_va_mapping multicall vm_assist; do
        check_equal "$name/stats_$hc" "$(stat "$hc")" "$(made "$hc")"
    done
    pf_total=$(sed -n 's/^mmu: trapped PTE writes emulated [0-9]*, faults delivered [0-9]*, #PF total \([0-9]*\)$/\1/p' "$TMP/$name.out")
    emulated=$(sed -n 's/^mmu: trapped PTE writes emulated \([0-9]*\),.*/\1/p' "$TMP/$name.out")
    # Every trapped write and every #PF the guest took is one event for
    # vector 14 (at CPL3, or a ring-0 visit with --no-cpl3-events).
    check_equal "$name/stats_page_faults" "$(stat 'vector 14')" "$pf_total"
    # The page-table counters of --stats ("page-table updates:"): entries
    # written by hypercalls, and trapped writes emulated.
    written=$(sed -n 's/^mmu: page-table entries written by hypercalls \([0-9]*\)$/\1/p' "$TMP/$name.out")
    # Stores of a read-only page of text come through perch's patch after
    # the first: counted apart, and listed as one patched site.
    patched=$(sed -n 's/^mmu: stores through patches \([0-9]*\)$/\1/p' "$TMP/$name.out")
    if grep -Eq " +6 bytes +2 +$patched  patched( \(call\))?; restored 1x for a text write\$" "$TMP/$name.err"; then
        pass "$name/patched_site"
    else
        fail "$name/patched_site" "$(grep -A10 'trapping page-table' "$TMP/$name.err")"
    fi
    for c in "pt_updates:by hypercall (entries):$written" \
             "trapped_pte_writes:trapped writes emulated:$emulated" \
             "patched_stores:stores through patches:$patched"; do
        check=$name/stats_${c%%:*} want=${c##*:} label=${c#*:}
        label=${label%:*}
        if grep -q "^ *$label  *[0-9]*$" "$TMP/$name.err"; then
            check_equal "$check" "$(stat "$label")" "$want"
        else
            fail "$check" "perch --stats prints no '$label' line (want $want)"
        fi
    done
done
