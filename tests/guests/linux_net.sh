# Debian's kernel with its own xen-netfront on perch's network back end,
# through --net user (libslirp): perch's initramfs gets eth0 an address by
# DHCP, busybox httpd in the guest serves a page on a forwarded port that
# is fetched here on 127.0.0.1, and a few MiB go each way through busybox
# nc with their MD5 sums compared on both ends; then, as root, the same
# card on --net tap in a network namespace made here sends to the host's
# own TCP stack. Only 127.0.0.1, ports that were free a moment ago and
# addresses inside that namespace are used.
. tests/lib.sh

MIB=4

# wait_ready NAME: until the guest of the perch running as $perch says
# READY in $TMP/NAME.out (2 minutes at most), or perch ends; true if it did.
wait_ready() {
    for _ in $(seq 1 1200); do
        grep -q '^READY' "$TMP/$1.out" 2>/dev/null && return 0
        kill -0 $perch 2>/dev/null || break
        sleep 0.1
    done
    grep -q '^READY' "$TMP/$1.out"
}

# Three TCP ports on 127.0.0.1 that nobody held just now (perl-base is
# Essential in Debian).
read -r HTTP UP DOWN < <(perl -MIO::Socket::INET -e '
    my @s = map { IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0,
                                        Listen => 1) or die "listen: $!" } 1 .. 3;
    print join(" ", map { $_->sockport } @s), "\n";')

# In the guest: the address, the page, a listener for each direction
# (started before READY, so nothing here connects too early), then the
# sums once both transfers are over.
GUEST_SCRIPT="
echo DRIVER \$(basename \$(readlink /sys/class/net/eth0/device/driver))
ip -4 addr show eth0 | sed -n 's/^ *inet \\([0-9.]*\\).*/ADDR \\1/p'
mkdir -p /www && echo perch-net-page > /www/index.html && httpd -p 80 -h /www
dd if=/dev/urandom of=/tmp/down bs=1M count=$MIB 2>/dev/null
echo DOWN_SUM \$(md5sum < /tmp/down)
(nc -l -p 82 < /tmp/down) & down=\$!
(nc -l -p 81 | md5sum > /tmp/up.sum) & up=\$!
sleep 1
echo READY
wait \$up \$down
echo UP_SUM \$(cat /tmp/up.sum)
"

timeout 180 "$PERCH" run --stats --net "user,hostfwd=tcp::$HTTP-:80,hostfwd=tcp::$UP-:81,hostfwd=tcp::$DOWN-:82" \
    -- /bin/sh -c "$GUEST_SCRIPT" >"$TMP/linux_net.out" 2>"$TMP/linux_net.err" </dev/null &
perch=$!
if ! wait_ready linux_net; then
    fail linux_net/ready "the guest never said READY: $(grep -a -v '^\[' "$TMP/linux_net.out" | tail -n 3 | tr '\n' ' ') $(head -c 300 "$TMP/linux_net.err")"
    kill $perch 2>/dev/null
    wait $perch 2>/dev/null
    exit 0
fi
pass linux_net/ready
expect_line linux_net out '^DRIVER vif[[:space:]]*$'
expect_line linux_net out '^ADDR 10\.0\.2\.15[[:space:]]*$'

# The page, by HTTP/1.0 on the forwarded port.
if exec 3<>"/dev/tcp/127.0.0.1/$HTTP"; then
    printf 'GET /index.html HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
    timeout 30 cat <&3 >"$TMP/page"
    exec 3>&-
fi
if grep -q '^HTTP/1\.[01] 200' "$TMP/page" 2>/dev/null && grep -q '^perch-net-page' "$TMP/page"; then
    pass linux_net/httpd
else
    fail linux_net/httpd "got: $(head -c 200 "$TMP/page" 2>/dev/null)"
fi

# Host to guest, then guest to host.
head -c $((MIB << 20)) /dev/urandom >"$TMP/up"
timeout 120 bash -c 'cat "$1" >"/dev/tcp/127.0.0.1/$2"' _ "$TMP/up" "$UP"
timeout 120 bash -c 'cat <"/dev/tcp/127.0.0.1/$1"' _ "$DOWN" >"$TMP/down"
wait $perch
status=$?
expect_status linux_net 0
up_sum=$(md5sum <"$TMP/up" | cut -d' ' -f1)
down_sum=$(md5sum <"$TMP/down" | cut -d' ' -f1)
expect_line linux_net out "^UP_SUM $up_sum"
expect_line linux_net out "^DOWN_SUM $down_sum"
# --stats counts the card's frames: thousands each way, none refused.
expect_line linux_net err '^ +sent \(tx\) +[0-9]{3,}$'
expect_line linux_net err '^ +received \(rx\) +[0-9]{4,}$'
expect_line linux_net err '^ +tx answered error +0$'
expect_line linux_net err '^ +rx page refused +0$'
if [ "$(stat -c %s "$TMP/down")" -eq $((MIB << 20)) ]; then
    pass linux_net/down_size
else
    fail linux_net/down_size "$(stat -c %s "$TMP/down") bytes, want $((MIB << 20))"
fi

# --net tap: the same card on a tap in a network namespace made here (so
# nothing leaves it), 4 MiB from the guest to the host's own TCP stack,
# which takes a segment only if perch filled its checksum right.
ns=perchnet$$
if [ "$(id -u)" != 0 ] || ! ip netns add "$ns" 2>/dev/null; then
    echo "SKIP linux_net/tap: cannot make a network namespace here (needs root)"
    exit 0
fi
ip netns exec "$ns" ip tuntap add ptap0 mode tap &&
    ip netns exec "$ns" ip addr add 192.168.77.1/24 dev ptap0 &&
    ip netns exec "$ns" ip link set ptap0 up
timeout 120 ip netns exec "$ns" "$PERCH" run --net tap=ptap0 -- /bin/sh -c "
ip addr add 192.168.77.2/24 dev eth0 && ip link set eth0 up
dd if=/dev/urandom of=/tmp/down bs=1M count=$MIB 2>/dev/null
echo DOWN_SUM \$(md5sum < /tmp/down)
(nc -l -p 82 < /tmp/down) & down=\$!
sleep 1
echo READY
wait \$down
" >"$TMP/linux_net_tap.out" 2>"$TMP/linux_net_tap.err" </dev/null &
perch=$!
wait_ready linux_net_tap
timeout 60 ip netns exec "$ns" bash -c 'cat </dev/tcp/192.168.77.2/82' >"$TMP/tap_down"
wait $perch
status=$?
expect_status linux_net_tap 0
expect_line linux_net_tap out "^DOWN_SUM $(md5sum <"$TMP/tap_down" | cut -d' ' -f1)"
if [ "$(stat -c %s "$TMP/tap_down")" -eq $((MIB << 20)) ]; then
    pass linux_net_tap/down_size
else
    fail linux_net_tap/down_size "$(stat -c %s "$TMP/tap_down") bytes, want $((MIB << 20))"
fi
ip netns del "$ns"
