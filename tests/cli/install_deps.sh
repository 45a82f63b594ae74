# tools/install-deps.sh, which `make run` and `make test` run before they
# compile: silent when nothing is missing; as root one "installing X (why)"
# line per group and one apt-get install of what is missing; as a user one
# line with the apt-get command and a non-zero status; a missing or denied
# /dev/kvm in one line. It runs here against fake dpkg-query, apt-get,
# apt-cache and id in a PATH of their own (nothing is installed), and
# PERCH_KVM naming a stand-in for /dev/kvm.
. tests/lib.sh

SCRIPT=$TMP/install-deps.sh
cp tools/install-deps.sh "$SCRIPT" || exit 1
chmod 644 "$SCRIPT"
# Readable by nobody too, for the setpriv cases.
chmod 711 "$TMP"
: >"$TMP/kvm_open" && chmod 666 "$TMP/kvm_open"
: >"$TMP/kvm_root" && chmod 600 "$TMP/kvm_root"

ALL_PKGS="zlib1g-dev liblzma-dev libzstd-dev liblz4-dev liburing-dev libslirp-dev clang libclang-rt-dev gdb python3 e2fsprogs"
ALL_CMDS="gcc make objcopy qemu-system-x86_64 linux.uml"

# fake_bin DIR: the fakes, steered by the FAKE_* variables below. Each
# logs its call to $FAKE_LOG.
fake_bin() {
    local d=$1 c
    mkdir -p "$d"
    # dpkg-query -W -f=FORMAT PKG...: "PKG install ok installed" for those
    # in $FAKE_INSTALLED, "PKG deinstall ok config-files" (removed) for
    # those in $FAKE_REMOVED, nothing but a complaint for the rest.
    cat >"$d/dpkg-query" <<'EOF'
#!/bin/bash
echo "dpkg-query $*" >>"$FAKE_LOG"
shift 2
rc=0
for p; do
    case " $FAKE_INSTALLED " in *" $p "*) echo "$p install ok installed"; continue ;; esac
    case " $FAKE_REMOVED " in *" $p "*) echo "$p deinstall ok config-files"; continue ;; esac
    echo "dpkg-query: no packages found matching $p" >&2
    rc=1
done
exit $rc
EOF
    # apt-get: update exits 0, install exits $FAKE_INSTALL_RC (default 0).
    cat >"$d/apt-get" <<'EOF'
#!/bin/bash
echo "apt-get $*" >>"$FAKE_LOG"
[ "$1" = install ] && exit "${FAKE_INSTALL_RC:-0}"
exit 0
EOF
    # apt-cache show PKG: known unless PKG is in $FAKE_UNKNOWN.
    cat >"$d/apt-cache" <<'EOF'
#!/bin/bash
echo "apt-cache $*" >>"$FAKE_LOG"
case " $FAKE_UNKNOWN " in *" $2 "*) echo "E: No packages found" >&2; exit 100 ;; esac
echo "Package: $2"
EOF
    # id -u: $FAKE_UID if set, else the real one (for setpriv).
    cat >"$d/id" <<'EOF'
#!/bin/bash
[ -n "${FAKE_UID-}" ] && { echo "$FAKE_UID"; exit 0; }
exec /usr/bin/id "$@"
EOF
    for c in $ALL_CMDS; do
        case " $FAKE_NO_CMDS " in *" $c "*) continue ;; esac
        printf '#!/bin/bash\nexit 0\n' >"$d/$c"
    done
    chmod 755 "$d" "$d"/*
    ln -s "$(command -v stat)" "$d/stat"
}

# deps NAME [AS...] -- ARGS...: run the script with ARGS, through the
# command AS (e.g. setpriv) if given, in a PATH of fakes only, with the
# FAKE_* and KVM settings of the caller. Leaves $status,
# $TMP/NAME.{out,err} and the fakes' calls in $TMP/NAME.log.
FAKE_INSTALLED=$ALL_PKGS FAKE_REMOVED='' FAKE_UNKNOWN='' FAKE_NO_CMDS='' FAKE_UID=0
FAKE_INSTALL_RC=0 KVM=$TMP/kvm_open
deps() {
    local name=$1 as=()
    shift
    while [ "$1" != -- ]; do as+=("$1"); shift; done
    shift
    fake_bin "$TMP/$name.bin"
    : >"$TMP/$name.log" && chmod 666 "$TMP/$name.log"
    timeout 20 "${as[@]}" /usr/bin/env -i PATH="$TMP/$name.bin" \
        FAKE_LOG="$TMP/$name.log" FAKE_INSTALLED="$FAKE_INSTALLED" \
        FAKE_REMOVED="$FAKE_REMOVED" FAKE_UNKNOWN="$FAKE_UNKNOWN" \
        FAKE_UID="$FAKE_UID" FAKE_INSTALL_RC="$FAKE_INSTALL_RC" \
        PERCH_KVM="$KVM" /bin/bash "$SCRIPT" "$@" \
        >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
    status=$?
}

# without WORD... : $ALL_PKGS less those words.
without() {
    local p out=
    for p in $ALL_PKGS; do
        case " $* " in *" $p "*) ;; *) out+="$p " ;; esac
    done
    echo "$out"
}

# expect_nonzero NAME: the last deps NAME failed.
expect_nonzero() {
    if [ "$status" -ne 0 ]; then pass "$1/failed"; else fail "$1/failed" "status 0"; fi
}

# expect_lines NAME FILE N: $TMP/NAME.FILE has N lines.
expect_lines() {
    local n
    n=$(wc -l <"$TMP/$1.$2")
    if [ "$n" -eq "$3" ]; then
        pass "$1/$2_lines_$3"
    else
        fail "$1/$2_lines_$3" "$n lines: $(head -c 400 "$TMP/$1.$2")"
    fi
}

# expect_calls NAME REGEX N: N of the fakes' calls match REGEX.
expect_calls() {
    local n
    n=$(grep -Ec -- "$2" "$TMP/$1.log")
    if [ "$n" -eq "$3" ]; then
        pass "$1/calls_${3}x $2"
    else
        fail "$1/calls_${3}x $2" "$n such calls; all: $(tr '\n' ';' <"$TMP/$1.log")"
    fi
}

# expect_installs NAME PKG...: one apt-get install, -y and -qq, of exactly
# PKG... in that order.
expect_installs() {
    local name=$1 line got
    shift
    expect_calls "$name" '^apt-get install ' 1
    line=$(grep '^apt-get install ' "$TMP/$name.log")
    got=$(echo "$line" | tr ' ' '\n' | sed '1,2d' | grep -v '^-' | tr '\n' ' ')
    if [ "$got" = "$* " ] && echo "$line" | grep -qw -- -y && echo "$line" | grep -qw -- -qq; then
        pass "$name/installs $*"
    else
        fail "$name/installs $*" "the call was: $line"
    fi
}

# expect_quiet NAME: status 0, no output, and no apt call at all.
expect_quiet() {
    expect_status "$1" 0
    expect_lines "$1" out 0
    expect_lines "$1" err 0
    expect_calls "$1" '^apt' 0
}

# --- nothing missing ---
deps quiet_run -- run
expect_quiet quiet_run
deps quiet_test -- test
expect_quiet quiet_test
# What only the tests use is no business of `make run`.
FAKE_NO_CMDS="qemu-system-x86_64 linux.uml" FAKE_INSTALLED=$(without clang e2fsprogs) \
    deps run_needs_no_test_tools -- run
expect_quiet run_needs_no_test_tools

# --- root: installs, saying what and why ---
FAKE_INSTALLED=$(without liburing-dev) deps root_liburing -- run
expect_status root_liburing 0
expect_lines root_liburing out 1
expect_line root_liburing out '^deps: installing liburing-dev \(libraries perch links: .*liburing for the block back end.*\)$'
expect_lines root_liburing err 0
expect_installs root_liburing liburing-dev
expect_calls root_liburing '^apt-get update' 0

# Removed with its configuration left: dpkg knows it, but not installed.
FAKE_INSTALLED=$(without libslirp-dev) FAKE_REMOVED=libslirp-dev deps root_removed -- run
expect_status root_removed 0
expect_line root_removed out '^deps: installing libslirp-dev \(.*libslirp for --net user\)$'
expect_installs root_removed libslirp-dev

# One line per group, one apt-get for them all.
FAKE_NO_CMDS="gcc qemu-system-x86_64 linux.uml" FAKE_INSTALLED=$(without liblz4-dev clang e2fsprogs) \
    deps root_groups -- test
expect_status root_groups 0
expect_lines root_groups out 6
expect_line root_groups out '^deps: installing build-essential \(gcc, make and binutils'
expect_line root_groups out '^deps: installing liblz4-dev \(libraries perch links: decompressors'
expect_line root_groups out '^deps: installing qemu-system-x86 \(.*QEMU TCG'
expect_line root_groups out '^deps: installing user-mode-linux \(.*User-Mode Linux: perch bench --uml\)$'
expect_line root_groups out '^deps: installing clang \(libFuzzer'
expect_line root_groups out '^deps: installing e2fsprogs \(.*ext4'
expect_installs root_groups build-essential liblz4-dev qemu-system-x86 user-mode-linux clang e2fsprogs
expect_calls root_groups '^apt-get install .*--no-install-recommends' 1

# apt's lists do not have it: one update, then the install.
FAKE_INSTALLED=$(without liburing-dev) FAKE_UNKNOWN=liburing-dev deps root_update -- run
expect_status root_update 0
expect_calls root_update '^apt-get update' 1
expect_installs root_update liburing-dev
if grep -n '^apt-get' "$TMP/root_update.log" | head -1 | grep -q update; then
    pass root_update/update_first
else
    fail root_update/update_first "calls: $(tr '\n' ';' <"$TMP/root_update.log")"
fi

# An install that fails: one update and one more try, then one line and
# a non-zero status.
FAKE_INSTALLED=$(without liburing-dev) FAKE_INSTALL_RC=100 deps root_fails -- run
expect_nonzero root_fails
expect_calls root_fails '^apt-get update' 1
expect_calls root_fails '^apt-get install ' 2
expect_line root_fails err '^deps: could not install liburing-dev'
# ... and no second update after the first.
FAKE_INSTALLED=$(without liburing-dev) FAKE_UNKNOWN=liburing-dev FAKE_INSTALL_RC=100 \
    deps root_fails_updated -- run
expect_nonzero root_fails_updated
expect_calls root_fails_updated '^apt-get update' 1
expect_calls root_fails_updated '^apt-get install ' 1

# --- a user: the command to run, and stop ---
FAKE_UID=1000 FAKE_INSTALLED=$(without liburing-dev libslirp-dev) deps user -- run
expect_nonzero user
expect_lines user out 0
expect_lines user err 1
expect_line user err '^deps: make run needs liburing-dev libslirp-dev: run sudo apt-get install -y --no-install-recommends liburing-dev libslirp-dev$'
expect_calls user '^apt-get' 0

FAKE_UID=1000 FAKE_NO_CMDS=make FAKE_INSTALLED=$(without clang) FAKE_UNKNOWN=clang \
    deps user_update -- test
expect_nonzero user_update
expect_lines user_update err 1
expect_line user_update err '^deps: make test needs build-essential clang: run sudo apt-get update && sudo apt-get install -y --no-install-recommends build-essential clang$'
expect_calls user_update '^apt-get' 0

# The same as a real user, nobody, with the real id.
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
    echo "SKIP user_nobody, kvm_denied, kvm_group: need root and setpriv"
else
    FAKE_UID='' FAKE_INSTALLED=$(without liburing-dev) deps user_nobody "${nobody[@]}" -- run
    expect_nonzero user_nobody
    expect_lines user_nobody err 1
    expect_line user_nobody err '^deps: make run needs liburing-dev: run sudo apt-get install -y --no-install-recommends liburing-dev$'
    expect_calls user_nobody '^apt-get' 0

    # Mode 600, as /dev/kvm is on some machines: no group to join.
    FAKE_UID='' KVM=$TMP/kvm_root deps kvm_denied "${nobody[@]}" -- test
    expect_nonzero kvm_denied
    expect_lines kvm_denied err 1
    expect_line kvm_denied err "^deps: $TMP/kvm_root is not readable and writable by you: run as root \(its mode, -rw------- root, lets no group in\)\$"
    # Mode 660: join its group (users, which nobody is not in).
    : >"$TMP/kvm_group" && chmod 660 "$TMP/kvm_group" && chgrp users "$TMP/kvm_group"
    FAKE_UID='' KVM=$TMP/kvm_group deps kvm_group "${nobody[@]}" -- run
    expect_nonzero kvm_group
    expect_lines kvm_group err 1
    expect_line kvm_group err "^deps: $TMP/kvm_group is not readable and writable by you: run as root, or join its group: sudo usermod -aG users \\\$USER, then log in again\$"
fi

# --- /dev/kvm missing: one line, and as root nothing installed ---
KVM=$TMP/no_kvm deps kvm_missing -- run
expect_nonzero kvm_missing
expect_lines kvm_missing err 1
expect_line kvm_missing err "^deps: $TMP/no_kvm is missing: perch runs its guests under KVM"
expect_calls kvm_missing '^apt' 0

KVM=$TMP/no_kvm FAKE_INSTALLED=$(without liburing-dev) deps kvm_missing_root -- test
expect_nonzero kvm_missing_root
expect_lines kvm_missing_root err 1
expect_calls kvm_missing_root '^apt-get' 0

deps usage --
expect_status usage 2

# --- the Makefile: run and test check first (even the dry run shows it
# before any compile), all and unit not at all ---
for t in run test all unit; do
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n "$t" >"$TMP/make_$t.out" 2>&1
    first=$(grep -m1 -E 'install-deps|(^| )(cc|gcc|clang) ' "$TMP/make_$t.out")
    case $t in
    run | test) want="tools/install-deps.sh $t" ;;
    *) want= ;;
    esac
    if [ -n "$want" ] && [ "$first" = "$want" ]; then
        pass "make/$t/checks_first"
    elif [ -z "$want" ] && ! grep -q install-deps "$TMP/make_$t.out"; then
        pass "make/$t/no_check"
    else
        fail "make/$t" "want '${want:-no install-deps}' first, got: $first"
    fi
done
