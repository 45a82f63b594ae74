# An older kernel's hypercall page (the hcpage guest: hypercalls as calls
# to its slots, the iret as a jump to slot 23): by default the Host makes
# each slot a jump to its direct entry, so the page's calls come without a
# trap ("of them direct"); with --trap-hypercalls the slots stay the
# Launcher's `syscall` stubs. Either way every answer is the `syscall`
# road's and rcx and r11 come back as they went.
. tests/lib.sh

for opts in "" --trap-hypercalls; do
    name=hcpage${opts:+_trap}
    perch_run "$name" run --stats $opts "$GUESTS/hcpage.elf"
    grep -E '^(PASS|FAIL) ' "$TMP/$name.out"
    expect_status "$name" 0
    expect_line "$name" out '^hcpage: [0-9]+ passed, 0 failed$'
    direct=$(sed -n 's/^ *of them direct, no trap *\([0-9]*\) .*/\1/p' "$TMP/$name.err")
    # 1000 calls and 100 irets go through the page, besides the guest's own
    if [ -z "$opts" ] && [ "${direct:-0}" -ge 1100 ]; then
        pass "$name/page_calls_direct"
    elif [ -n "$opts" ] && [ "${direct:-1}" -eq 0 ]; then
        pass "$name/page_calls_trap"
    else
        fail "$name/direct_count" "of them direct: '$direct'"
    fi
done
