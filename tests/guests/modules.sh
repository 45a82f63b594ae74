# Debian's cloud kernel with perch's initramfs loads its Xen disk and
# network front ends: /init loads /lib/modules/*.ko (fetched with the
# kernel, or on the first run for an older cache) before anything else.
# Without the block back end there is no disk to find; this checks only
# that both modules are live in the guest's kernel.
. tests/lib.sh

timeout 120 "$PERCH" run -- /bin/sh -c 'cat /proc/modules; ls /lib/modules' \
    >"$TMP/modules.out" 2>"$TMP/modules.err" </dev/null
status=$?
if grep -q "cannot fetch Debian's cloud kernel" "$TMP/modules.err"; then
    echo "SKIP modules: $(grep -m1 '^perch: ' "$TMP/modules.err")"
    exit 0
fi
expect_status modules 0
if grep -q '^perch: note: .*Xen drivers' "$TMP/modules.err"; then
    fail modules/fetched "$(grep -m1 '^perch: note' "$TMP/modules.err")"
else
    pass modules/fetched
fi
expect_line modules out '^xen_blkfront [0-9]+ 0 - Live '
expect_line modules out '^xen_netfront [0-9]+ 0 - Live '
expect_line modules out 'xen-blkfront\.ko'
if grep -q '^perch init: cannot load' "$TMP/modules.out"; then
    fail modules/all_loaded "$(grep -m1 '^perch init: cannot load' "$TMP/modules.out")"
else
    pass modules/all_loaded
fi

# blkfront asks for what perch's back end takes (1 MiB requests, 16 ring
# pages), unless --small-disk-requests keeps Linux's defaults.
for mode in large small; do
    flag=; [ $mode = small ] && flag=--small-disk-requests
    timeout 120 "$PERCH" run $flag -- /bin/sh -c \
        'cd /sys/module/xen_blkfront/parameters && echo "blkfront $(cat max_indirect_segments) $(cat max_ring_page_order)"' \
        >"$TMP/params_$mode.out" 2>"$TMP/params_$mode.err" </dev/null
    status=$?
    expect_status params_$mode 0
done
expect_line params_large out '^blkfront 256 4[[:space:]]*$'
expect_line params_small out '^blkfront 32 0[[:space:]]*$'

# A user's own KERNEL gets no modules (they are built for perch's one).
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/perch
[ "${CACHE#/}" != "$CACHE" ] || CACHE=$HOME/.cache/perch
cp "$CACHE/vmlinuz" "$TMP/own-kernel"
timeout 120 "$PERCH" run "$TMP/own-kernel" -- /bin/sh -c \
    'echo "modules=$(ls /lib/modules | wc -l) loaded=$(wc -l </proc/modules)"' \
    >"$TMP/own.out" 2>"$TMP/own.err" </dev/null
status=$?
expect_status own 0
expect_line own out '^modules=0 loaded=0[[:space:]]*$'
