#!/usr/bin/env bash
# What `make run` and `make test` need, checked before they compile
# anything (the Makefile runs this first): the build tools and the
# libraries perch links, for `test` also the programs its tests use, and a
# usable /dev/kvm. As root it installs what is missing with apt-get, one
# line per group saying what and why; as a user it prints the one apt-get
# command to run and fails, so make stops here rather than at a compiler
# error. With nothing missing it is silent and asks apt nothing.
#
# usage: tools/install-deps.sh run|test
#
# tests/cli/install_deps.sh runs it with fake dpkg-query, apt-get,
# apt-cache and id first in PATH, and PERCH_KVM naming a stand-in for
# /dev/kvm.
set -u

mode=${1-}
case $mode in
run | test) ;;
*)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac
kvm=${PERCH_KVM:-/dev/kvm}

missing=() # the packages to install, in group order
groups=()  # one "PACKAGES (why)" per group with something missing

# group WHY PACKAGE...: PACKAGE... are missing, needed for WHY (none: no-op).
group() {
    local why=$1
    shift
    [ $# -gt 0 ] || return 0
    missing+=("$@")
    groups+=("$* ($why)")
}

# packages WHY PACKAGE...: group WHY with those of the Debian packages
# that dpkg does not have installed (one dpkg-query for them all).
packages() {
    local why=$1 have=' ' name state p miss=()
    shift
    while read -r name _ _ state; do
        [ "$state" = installed ] && have+="$name "
    done < <(dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null)
    for p; do
        case $have in *" $p "*) ;; *) miss+=("$p") ;; esac
    done
    group "$why" "${miss[@]}"
}

# Commands, not a package, where a compiler from elsewhere serves as well.
for t in gcc make objcopy; do
    command -v "$t" >/dev/null 2>&1 ||
        { group "gcc, make and binutils, to build perch" build-essential; break; }
done
# The Launcher decompresses bzImage kernels (gzip, xz, zstd, lz4) with the
# first four; its block back end does its disk I/O through io_uring;
# --net user's network is libslirp's.
packages "libraries perch links: decompressors to read bzImage kernels, liburing for the block back end's I/O, libslirp for --net user" \
    zlib1g-dev liblzma-dev libzstd-dev liblz4-dev liburing-dev libslirp-dev
if [ "$mode" = test ]; then
    # Without these the tests that use them would only SKIP. QEMU boots a
    # -kernel through seabios, a Depends; its Recommends (GUI, OVMF) are
    # not needed, hence --no-install-recommends below.
    command -v qemu-system-x86_64 >/dev/null 2>&1 ||
        group "tests/guests/bench.sh compares perch with QEMU TCG: perch bench --qemu" qemu-system-x86
    command -v linux.uml >/dev/null 2>&1 ||
        group "tests/guests/bench.sh compares perch with User-Mode Linux: perch bench --uml" user-mode-linux
    # libFuzzer and the sanitizers' runtimes are in libclang-rt-dev, only
    # a Recommends of clang.
    packages "libFuzzer, for make test's fuzz smoke pass: tests/fuzz/smoke.sh" \
        clang libclang-rt-dev
    packages "tests/guests/gdb.sh drives a real gdb at perch run --gdb, and a python3 client that speaks the protocol badly" \
        gdb python3
    # A package check: mke2fs is in /sbin, outside a user's PATH.
    packages "tests/guests/linux_disk.sh makes an ext4 image with mke2fs and checks it with e2fsck" \
        e2fsprogs
fi

# /dev/kvm first: with no usable KVM, installing would not help.
kvm_ok=1
if [ ! -e "$kvm" ]; then
    echo "deps: $kvm is missing: perch runs its guests under KVM (no kvm module loaded, or a machine without virtualization)" >&2
    kvm_ok=0
elif [ ! -r "$kvm" ] || [ ! -w "$kvm" ]; then
    # Joining its group helps only if the group may read and write it.
    if perms=$(stat -c '%A %G' "$kvm" 2>/dev/null) && [ "${perms:4:2}" = rw ]; then
        hint="run as root, or join its group: sudo usermod -aG ${perms#* } \$USER, then log in again"
    else
        hint="run as root (its mode, ${perms:-unknown}, lets no group in)"
    fi
    echo "deps: $kvm is not readable and writable by you: $hint" >&2
    kvm_ok=0
fi

[ ${#missing[@]} -gt 0 ] || exit $((1 - kvm_ok))

# known PACKAGE...: apt's lists have every one (apt-cache show succeeds
# if any one of several is known, so one at a time).
known() {
    local p
    for p; do
        apt-cache show "$p" >/dev/null 2>&1 || return 1
    done
}

install=(apt-get install -y --no-install-recommends "${missing[@]}")
if [ "$(id -u)" != 0 ]; then
    if known "${missing[@]}"; then
        cmd="sudo ${install[*]}"
    else
        cmd="sudo apt-get update && sudo ${install[*]}"
    fi
    echo "deps: make $mode needs ${missing[*]}: run $cmd" >&2
    exit 1
fi
[ "$kvm_ok" = 1 ] || exit 1

for g in "${groups[@]}"; do
    echo "deps: installing $g"
done
# apt's and dpkg's own lines only if something fails.
export DEBIAN_FRONTEND=noninteractive
updated=0
# update: apt-get update, or say why not and stop.
update() {
    updated=1
    out=$(apt-get update -qq 2>&1) && return 0
    [ -z "$out" ] || printf '%s\n' "$out" >&2
    echo "deps: apt-get update failed" >&2
    exit 1
}
known "${missing[@]}" || update
# Lists that name a package but are older than the mirror fail at the
# download: then one update and one more try.
out=$("${install[@]}" -qq 2>&1) ||
    { [ "$updated" = 0 ] && update && out=$("${install[@]}" -qq 2>&1); } || {
    [ -z "$out" ] || printf '%s\n' "$out" >&2
    echo "deps: could not install ${missing[*]}: ${install[*]} failed" >&2
    exit 1
}
