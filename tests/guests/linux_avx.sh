# Guest processes run `cpuid` and AVX natively (this machine's KVM gives
# guest code the host's CPUID, CR4.OSXSAVE and XCR0), so the guest kernel
# must switch their whole ymm registers: perch offers it XSAVE for x87, SSE
# and AVX (host/cpuid.c), and four processes that keep values in ymm0-15
# while preempting each other must find every bit of them again.
. tests/lib.sh

if ! grep -qw avx /proc/cpuinfo || ! command -v mke2fs >/dev/null; then
    echo "SKIP linux_avx: no AVX on this CPU, or no mke2fs (e2fsprogs)"
    exit 0
fi
mkdir -p "$TMP/tree"
if ! gcc -O2 -static -mavx -o "$TMP/tree/avx_state" tests/guests/linux/avx_state.c; then
    fail linux_avx/built "gcc -static -mavx failed"
    exit 0
fi
mke2fs -q -t ext4 -d "$TMP/tree" "$TMP/avx.img" 16M || { fail linux_avx/made "mke2fs failed"; exit 0; }

timeout 300 "$PERCH" run --disk "$TMP/avx.img" -- /bin/sh -c \
    'dmesg | grep "x86/fpu: Enabled xstate"; mkdir -p /m && mount -t ext4 -o ro /dev/xvda /m && /m/avx_state 4' \
    >"$TMP/avx.out" 2>"$TMP/avx.err" </dev/null
status=$?
expect_status avx 0
expect_line avx out 'x86/fpu: Enabled xstate features 0x[0-9a-f]*7, .*standard'
expect_line avx out '^avx_state: 4 of 4 processes kept their ymm registers'
