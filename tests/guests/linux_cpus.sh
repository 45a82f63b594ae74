# Debian's kernel under every recorded CPU profile (tests/cpus/*.txt),
# replayed on this machine with perch run --cpu-profile: the kernel sees
# that CPU's vendor, family, model and MSR answers (each feature only where
# this CPU has it too) and must boot, run a command and hand back its exit
# status, keep guest processes' vector registers apart, and read and write
# a disk. The Intel Xeon profile is the one whose MISC_ENABLE answer Linux
# needs: without it every boot crashed on that machine.
. tests/lib.sh

if ! command -v mke2fs >/dev/null || ! grep -qw avx /proc/cpuinfo; then
    echo "SKIP linux_cpus: no mke2fs (e2fsprogs), or no AVX on this CPU"
    exit 0
fi
make_avx_disk "$TMP/avx.img" || exit 0
head -c 1048576 /dev/urandom >"$TMP/data"
want=$(md5sum <"$TMP/data" | cut -d' ' -f1)

for profile in tests/cpus/*.txt; do
    name=$(basename "$profile" .txt)
    vendor=$(awk '$1 == "0x00000000" { print $4; exit }' "$profile")
    case $vendor in
        ebx=0x756e6547) vendor=GenuineIntel ;;
        ebx=0x68747541) vendor=AuthenticAMD ;;
        *) fail "$name/vendor" "no known vendor in leaf 0 of $profile"; continue ;;
    esac
    # xvda: avx_state; xvdb: raw, its first MiB the host's data (read by
    # the guest), its second what the guest writes (read by the host).
    cp "$TMP/data" "$TMP/$name.scratch"
    truncate -s 4M "$TMP/$name.scratch"
    guest_run "$name" 300 --cpu-profile "$profile" --disk "$TMP/avx.img" \
        --disk "$TMP/$name.scratch" -- /bin/sh -c '
        uname -r; grep -m1 vendor_id /proc/cpuinfo
        mkdir -p /m && mount -t ext4 -o ro /dev/xvda /m && /m/avx_state 2
        head -c 1048576 /dev/xvdb | md5sum
        seq 1 100000 | dd of=/dev/xvdb bs=4096 seek=256 conv=fsync 2>/dev/null
        exit 42'
    expect_status "$name" 42
    expect_line "$name" out '^6\.[0-9]+\.[0-9]+-'
    expect_line "$name" out "^vendor_id[[:space:]]*: $vendor"
    expect_line "$name" out '^avx_state: 2 of 2 processes kept their'
    expect_line "$name" out "^$want  -"
    if [ "$(dd if="$TMP/$name.scratch" bs=4096 skip=256 2>/dev/null | head -c "$(seq 1 100000 | wc -c)" | md5sum)" = "$(seq 1 100000 | md5sum)" ]; then
        pass "$name/disk_written"
    else
        fail "$name/disk_written" "the guest's write is not in the host file"
    fi
    if grep -q 'Disabled fast string operations' "$TMP/$name.out"; then
        fail "$name/fast_strings" "the kernel turned fast strings off (MISC_ENABLE)"
    else
        pass "$name/fast_strings"
    fi
done
