# Guests bigger than 4 GiB (the local APIC moved to machine frame 0, out
# of the memslot, so memory runs on unbroken): Linux sees what -m gave it,
# in QEMU's spellings. Skipped where the host has too little memory.
. tests/lib.sh

host_mib=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
# mem_case SIZE MIB: a guest of SIZE reports 95% to 100% of MIB as its
# MemTotal (the kernel's image and its struct pages, 1.6% of memory, are
# not counted there).
mem_case() {
    local size=$1 mib=$2 name=mem_$1 kib
    if [ "$host_mib" -lt $((mib + 1024)) ]; then
        echo "SKIP $name: the host has $host_mib MiB"
        return
    fi
    guest_run "$name" 120 -m "$size" -- sh -c 'grep MemTotal /proc/meminfo'
    expect_status "$name" 0
    kib=$(sed -n 's/^MemTotal: *\([0-9]*\) kB.*/\1/p' "$TMP/$name.out" | tr -d '\r')
    if [ -n "$kib" ] && [ "$kib" -ge $((mib * 1024 * 95 / 100)) ] && [ "$kib" -le $((mib * 1024)) ]; then
        pass "$name/memtotal"
    else
        fail "$name/memtotal" "MemTotal '${kib:-none}' kB for $mib MiB"
    fi
}
mem_case 1.5G 1536
mem_case 6G 6144
