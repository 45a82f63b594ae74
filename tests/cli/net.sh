# --net on the command line: every value that cannot be a network gets one
# 'perch: ...' line, status 2, and no guest output; a forwarded port that
# is in use or a tap that cannot be had gets one line and status 1, before
# the guest starts (the test kernel would otherwise run: hello.elf ends
# by itself). Only 127.0.0.1 and ports that were free are used.
. tests/cli/helpers.bash

# expect_no_guest NAME: the guest never ran (nothing on stdout).
expect_no_guest() {
    if [ ! -s "$TMP/$1.out" ]; then
        pass "$1/no_guest_output"
    else
        fail "$1/no_guest_output" "stdout: $(head -c 200 "$TMP/$1.out")"
    fi
}

# run_as NAME CMD...: as perch_run, but CMD (setpriv ...) runs perch.
run_as() {
    local name=$1
    shift
    timeout 60 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
    status=$?
}

# Option mistakes: status 2.
i=0
while IFS='|' read -r value want; do
    i=$((i + 1))
    perch_run "net_bad_$i" run --net "$value" "$HELLO"
    expect_error "net_bad_$i" 2 "$want"
    expect_no_guest "net_bad_$i"
done <<'CASES'
|--net needs a value: user\[,hostfwd=tcp::HOSTPORT-:GUESTPORT\]\.\.\. or tap=NAME
slirp|--net 'slirp': unknown network 'slirp'
user,restrict=on|unknown user option 'restrict=on' \(only hostfwd=
user,hostfwd=tcp::8080|hostfwd 'tcp::8080' is not \[tcp\|udp\]:\[127.0.0.1\]:HOSTPORT-\[10.0.2.15\]:GUESTPORT
user,hostfwd=tcp:0.0.0.0:8080-:80|host address '0.0.0.0' refused: forwarded ports listen on 127.0.0.1 only
user,hostfwd=tcp::8080-192.168.1.2:80|guest address '192.168.1.2' refused: the guest is 10.0.2.15
user,hostfwd=tcp::0-:80|host port '0' is not a number from 1 to 65535
user,hostfwd=tcp::80-:70000|guest port '70000' is not a number from 1 to 65535
user,hostfwd=icmp::1-:2|protocol 'icmp' is neither tcp nor udp
user,hostfwd=tcp::9-:9,hostfwd=tcp::9-:10|host port 9 is forwarded twice
tap|--net 'tap' needs a name: tap=NAME
tap=|tap= needs an interface name
tap=a-name-of-16-bytes|interface name is longer than 15 bytes
tap=../x|'../x' cannot be an interface name
CASES
perch_run net_no_value run "$HELLO" --net
expect_error net_no_value 2 "option --net needs a value"
perch_run net_twice run --net user --net tap=tap0 "$HELLO"
expect_error net_twice 2 "option --net given twice"
expect_no_guest net_twice

# A forwarded port another program listens on (perl-base is Essential).
perl -MIO::Socket::INET -e '
    my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0,
                                  Listen => 1) or die "listen: $!";
    open(my $f, ">", $ARGV[0]) or die; print $f $s->sockport, "\n"; close $f;
    sleep 30;' "$TMP/port" &
holder=$!
for _ in $(seq 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
port=$(cat "$TMP/port")
perch_run net_port_in_use run --net "user,hostfwd=tcp::$port-:80" "$HELLO"
expect_error net_port_in_use 1 "cannot listen on 127\.0\.0\.1:$port \(tcp\) to forward to the guest's port 80: Address already in use"
expect_no_guest net_port_in_use
kill $holder 2>/dev/null; wait $holder 2>/dev/null

# With a free port the guest runs (and the forward goes with perch).
perch_run net_user run --net "user,hostfwd=tcp::$port-:80,hostfwd=udp::$port-:53" "$HELLO"
expect_status net_user 0
expect_line net_user out "hello: done"
expect_nothing_running net_user

# Taps: one that does not exist, one that is not a tap.
perch_run net_no_tap run --net tap=perchnosuch0 "$HELLO"
expect_error net_no_tap 1 "there is no interface perchnosuch0 \(make it with: ip tuntap add"
expect_no_guest net_no_tap
perch_run net_not_a_tap run --net tap=lo "$HELLO"
if [ -e /dev/net/tun ] && [ -r /dev/net/tun ]; then
    expect_error net_not_a_tap 1 "lo is not a tap device"
else
    expect_error net_not_a_tap 1 "cannot open /dev/net/tun"
fi

# A tap made for another user (uid 1, daemon): without CAP_NET_ADMIN
# perch may not attach, as root with the capability dropped, and as
# nobody (where /dev/net/tun is root's alone, opening it is what fails).
tap=perch$$
if [ "$(id -u)" = 0 ] && ip tuntap add "$tap" mode tap user 1 2>/dev/null; then
    cp "$HELLO" "$TMP/hello.elf" && chmod 0755 "$TMP" && chmod 0644 "$TMP/hello.elf"
    run_as net_tap_no_cap setpriv --bounding-set=-net_admin "$PERCH" run --net "tap=$tap" "$TMP/hello.elf"
    expect_error net_tap_no_cap 1 "not allowed to attach to $tap: it needs CAP_NET_ADMIN, or a tap made for this user"
    expect_no_guest net_tap_no_cap
    run_as net_tap_nobody setpriv --reuid=nobody --regid=nogroup --clear-groups "$PERCH" run --net "tap=$tap" "$TMP/hello.elf"
    expect_error net_tap_nobody 1 "needs CAP_NET_ADMIN|cannot open /dev/net/tun: Permission denied"
    expect_no_guest net_tap_nobody
    # With the capability, perch attaches and the guest runs.
    perch_run net_tap run --net "tap=$tap" "$HELLO"
    expect_status net_tap 0
    expect_line net_tap out "hello: done"
    ip tuntap del "$tap" mode tap
else
    echo "SKIP net_tap: cannot make a tap here (needs root with CAP_NET_ADMIN)"
fi
