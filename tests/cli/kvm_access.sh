# Without a usable /dev/kvm perch says so in one line naming /dev/kvm,
# exits with status 1 and leaves nothing running. A case this machine
# cannot set up prints a SKIP note instead of a PASS.
. tests/cli/helpers.bash

# cmd_run NAME CMD...: like perch_run, for a command that runs perch itself.
cmd_run() {
    local name=$1
    shift
    timeout 60 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
    status=$?
}

# /dev/kvm missing: an empty /dev in a private mount namespace.
if unshare -m true 2>/dev/null; then
    cmd_run no_dev_kvm unshare -m bash -c \
        'mount -t tmpfs none /dev && exec "$0" run "$1"' "$PERCH" "$HELLO"
    expect_error no_dev_kvm 1 '/dev/kvm'
else
    echo "SKIP no_dev_kvm: cannot make a private mount namespace here"
fi

# /dev/kvm not allowed: perch as user nobody, with perch and the kernel
# where nobody can read them.
cp "$HELLO" "$TMP/hello.elf"
chmod 711 "$TMP"
chmod 755 "$PERCH"
chmod 644 "$TMP/hello.elf"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if ! nobody test -r "$TMP/hello.elf" 2>/dev/null; then
    echo "SKIP dev_kvm_denied: cannot run as nobody (not root?)"
elif nobody test -r /dev/kvm -a -w /dev/kvm; then
    echo "SKIP dev_kvm_denied: nobody may open /dev/kvm on this machine"
else
    cmd_run dev_kvm_denied setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$PERCH" run "$TMP/hello.elf"
    expect_error dev_kvm_denied 1 '/dev/kvm.*(permission|denied)'
fi
