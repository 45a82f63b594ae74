#!/usr/bin/env bash
# `make image-check` (not in `make test`: the first run downloads ~100 MB
# and takes minutes): build a Debian image with `perch image debian`, then
# check it without booting or mounting it: e2fsck -fn, the files perch adds
# (read with debugfs), their owners and modes, the kernel's Xen modules,
# and the perch-cmd script itself, run natively on commands that exit, are
# killed and are not found. Prints the time, the image's and the cached
# tree's sizes. IMAGE_FRESH=1 removes the cached tree first (a cold build).
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh

IMG=build/image-check/debian.img
SIZE=${IMAGE_SIZE:-2G}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/perch
mkdir -p build/image-check
rm -f "$IMG"
[ "${IMAGE_FRESH:-0}" = 1 ] && rm -f "$cache"/debian-bookworm-root-*.tar

start=$(date +%s.%N)
if "$PERCH" image debian "$IMG" --size "$SIZE" 2>build/image-check/perch.err; then
    pass image/built
else
    fail image/built "perch image failed: $(tail -3 build/image-check/perch.err)"
    exit 1
fi
seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
grep -q '^perch: done: boot it with perch run --disk' build/image-check/perch.err &&
    pass image/done_line || fail image/done_line "$(tail -1 build/image-check/perch.err)"

if e2fsck -fn "$IMG" >build/image-check/e2fsck.out 2>&1; then
    pass image/e2fsck
else
    fail image/e2fsck "$(tail -3 build/image-check/e2fsck.out)"
fi

# dfs NAME REQUEST REGEX: debugfs's answer to REQUEST has a line matching REGEX.
dfs() {
    local out
    out=$(debugfs -R "$2" "$IMG" 2>/dev/null)
    if grep -Eq -- "$3" <<<"$out"; then
        pass "image/$1"
    else
        fail "image/$1" "debugfs -R '$2': $(head -c 300 <<<"$out")"
    fi
}
kver=$(readlink "$cache/vmlinuz"); kver=${kver#vmlinuz-}
mods=/usr/lib/modules/$kver
dfs init_is_systemd 'stat /sbin/init' 'Fast link dest: "/lib/systemd/systemd"'
dfs fstab 'cat /etc/fstab' '^/dev/xvda / ext4 errors=remount-ro 0 1$'
dfs hostname 'cat /etc/hostname' '^perch$'
dfs root_no_password 'cat /etc/shadow' '^root::'
dfs shadow_owner 'stat /etc/shadow' 'User: +0 +Group: +42 '
dfs common_auth_nullok 'cat /etc/pam.d/common-auth' 'pam_unix\.so .*nullok'
dfs getty_hvc0 'stat /etc/systemd/system/getty.target.wants/serial-getty@hvc0.service' 'serial-getty@\.service'
dfs getty_dropin 'cat /etc/systemd/system/serial-getty@hvc0.service.d/perch.conf' '^ConditionPathExists=!/run/perch/cmd$'
dfs unit_enabled 'stat /etc/systemd/system/multi-user.target.wants/perch-cmd.service' 'perch-cmd\.service'
dfs unit 'cat /etc/systemd/system/perch-cmd.service' '^ConditionPathExists=/run/perch/cmd$'
dfs script_mode 'stat /usr/local/sbin/perch-cmd' 'Type: regular +Mode: +0755 '
dfs script_owner 'stat /usr/local/sbin/perch-cmd' 'User: +0 +Group: +0 '
dfs networkd 'stat /etc/systemd/system/multi-user.target.wants/systemd-networkd.service' 'networkd'
dfs network_eth0 'cat /etc/systemd/network/80-perch-eth0.network' '^DHCP=yes$'
dfs blkfront "stat $mods/kernel/drivers/block/xen-blkfront.ko" 'Type: regular'
dfs netfront "stat $mods/kernel/drivers/net/xen-netfront.ko" 'Type: regular'
dfs modules_dep "cat $mods/modules.dep" '^kernel/drivers/block/xen-blkfront\.ko:'
dfs login 'stat /bin/login' 'Type: regular'

# The script, natively: /run/perch, /dev/hvc0 and systemctl swapped for
# files here; each command's status must reach "hvc0" as perch-exit.
T=$TMP/script
mkdir -p "$T"
debugfs -R 'dump /usr/local/sbin/perch-cmd '"$T/perch-cmd.orig" "$IMG" 2>/dev/null
sed -e "s|/run/perch|$T|g" -e "s|/dev/hvc0|$T/hvc0|" -e 's|^systemctl poweroff$|echo poweroff >>"$0.log"|' \
    "$T/perch-cmd.orig" >"$T/perch-cmd" && chmod 755 "$T/perch-cmd"
# script NAME WANT ARGS...: the command ARGS, NUL-separated, reports WANT.
script() {
    local name=$1 want=$2
    shift 2
    printf '%s\0' "$@" >"$T/cmd"
    rm -f "$T/hvc0" "$T/perch-cmd.log"
    sh "$T/perch-cmd" >"$T/$name.out" 2>&1 </dev/null
    if [ "$(cat "$T/hvc0" 2>/dev/null)" = "$(printf '\033]perch-exit;%s\007' "$want")" ] &&
       grep -q poweroff "$T/perch-cmd.log" 2>/dev/null; then
        pass "script/$name"
    else
        fail "script/$name" "hvc0: $(od -c "$T/hvc0" 2>/dev/null | head -2); out: $(head -c 200 "$T/$name.out")"
    fi
}
script exit_0 0 true
script exit_7 7 sh -c 'exit 7'
script spaces_and_newlines 3 sh -c '[ "$1" = "a b
c" ] && exit 3' x 'a b
c'
script killed 137 sh -c 'kill -9 $$'
script not_found 127 /no/such/command
script output 0 sh -c 'echo hello from perch-cmd'
grep -q '^hello from perch-cmd$' "$T/output.out" && pass script/output_shown ||
    fail script/output_shown "$(cat "$T/output.out")"

tar=$(ls "$cache"/debian-bookworm-root-*.tar)
used=$(dumpe2fs -h "$IMG" 2>/dev/null | awk -F: '/^Block count/ { b = $2 } /^Free blocks/ { f = $2 } /^Block size/ { s = $2 } END { printf "%d", (b - f) * s / 1048576 }')
printf 'image-check: %.1f s; %s: %s, %s MiB used (%s on disk, sparse); cached tree %s: %s MiB\n' \
    "$seconds" "$IMG" "$SIZE" "$used" "$(du -h "$IMG" | cut -f1)" "${tar##*/}" \
    "$(( $(stat -c %s "$tar") / 1048576 ))"
