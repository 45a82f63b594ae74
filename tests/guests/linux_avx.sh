# Guest processes run vector instructions natively (guest code runs with
# the machine's XCR0, whatever CPUID says), so the guest kernel must switch
# all of their vector state: perch offers it XSAVE for every component of
# the real XCR0 Linux can save (host/cpu/cpuid.c), and four processes that keep
# values in ymm0-15 (and, where the CPU runs AVX-512, zmm0-31 and k0-7)
# while preempting each other must find every bit of them again.
. tests/lib.sh

if ! grep -qw avx /proc/cpuinfo || ! command -v mke2fs >/dev/null; then
    echo "SKIP linux_avx: no AVX on this CPU, or no mke2fs (e2fsprogs)"
    exit 0
fi
make_avx_disk "$TMP/avx.img" || exit 0

timeout 300 "$PERCH" run --disk "$TMP/avx.img" -- /bin/sh -c \
    'dmesg | grep "x86/fpu: Enabled xstate"; mkdir -p /m && mount -t ext4 -o ro /dev/xvda /m && /m/avx_state 4' \
    >"$TMP/avx.out" 2>"$TMP/avx.err" </dev/null
status=$?
expect_status avx 0
expect_line avx out 'x86/fpu: Enabled xstate features 0x[0-9a-f]*7, .*standard'
if host_runs_avx512; then
    expect_line avx out 'x86/fpu: Enabled xstate features 0x[0-9a-f]*e7, .*standard'
    expect_line avx out '^avx_state: checking ymm0-15, zmm0-31 and k0-7'
fi
expect_line avx out '^avx_state: 4 of 4 processes kept their (ymm|ymm, zmm and opmask) registers'
