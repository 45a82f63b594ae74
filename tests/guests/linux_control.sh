# The control socket (launcher/control/): `perch list` shows running
# guests with their name, vCPUs, memory and disks; `perch shutdown GUEST`
# (by --name or pid) powers one off cleanly, as `xl shutdown` does; a name
# is had once; a socket left by a killed perch is swept away; a request
# that is not one gets "error". Debian's kernel, a private control folder.
. tests/lib.sh

export XDG_RUNTIME_DIR=$TMP/runtime
mkdir -m 0700 "$XDG_RUNTIME_DIR"
truncate -s 16M "$TMP/d.img"

# wait_listed NAME: until perch list shows NAME (up to 20 s).
wait_listed() {
    for _ in $(seq 1 40); do
        "$PERCH" list 2>/dev/null | grep -q " $1 " && return 0
        sleep 0.5
    done
    return 1
}

perch_run list_none list
expect_status list_none 0
expect_line list_none out '^PID +NAME +VCPUS +MEMORY +UPTIME +DISKS$'

guest_start a --name ctl-a --cpus 2 -m 512M --disk "$TMP/d.img" -- sleep 60
guest_start b --name ctl-b -- sleep 60
if wait_listed ctl-a && wait_listed ctl-b; then pass control/listed; else fail control/listed "$(cat "$TMP"/a.err)"; fi
perch_run list_two list
expect_line list_two out "^$pid_a +ctl-a +2 +512 MiB +[0-9]+ s  $TMP/d.img\$"
# (make test-cpus gives every guest PERCH_CPUS vCPUs unless it says.)
expect_line list_two out "^$pid_b +ctl-b +${PERCH_CPUS:-1} +256 MiB +[0-9]+ s  -\$"

# A name is had once.
perch_run name_taken run --name ctl-a -- true
expect_status name_taken 1
expect_one_line_error name_taken
expect_line name_taken err 'a running guest has that name already'

# A request that is not one; then the guests powered off, by name and by pid.
reply=$(python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"reboot now\n"); print(s.recv(200).decode().strip())' "$XDG_RUNTIME_DIR/perch/$pid_a.sock")
if [ "$reply" = "error no such request (info, shutdown, mem-set, save)" ]; then pass control/bad_request; else fail control/bad_request "got '$reply'"; fi
perch_run shutdown_a shutdown ctl-a
expect_status shutdown_a 0
perch_run shutdown_b shutdown "$pid_b"
expect_status shutdown_b 0
for g in a b; do
    eval "p=\$pid_$g"
    if wait "$p"; then pass "control/$g/powered_off"; else fail "control/$g/powered_off" "status $?: $(tail -c 200 "$TMP/$g.err")"; fi
    if [ ! -e "$XDG_RUNTIME_DIR/perch/$p.sock" ]; then pass "control/$g/socket_gone"; else fail "control/$g/socket_gone" "still there"; fi
done

# --wait returns once the guest's perch has ended.
guest_start w --name ctl-w -- sleep 60
wait_listed ctl-w
perch_run shutdown_wait shutdown --wait ctl-w
expect_status shutdown_wait 0
if ! kill -0 "$pid_w" 2>/dev/null; then pass control/wait_until_gone; else fail control/wait_until_gone "perch $pid_w still runs"; fi
wait "$pid_w"
expect_status_of() { if [ "$2" -eq "$3" ]; then pass "$1"; else fail "$1" "status $2, want $3"; fi; }
expect_status_of control/w/powered_off $? 0

# A killed perch leaves its socket; the next list sweeps it away.
guest_start c --name ctl-c -- sleep 60
wait_listed ctl-c
kill -9 "$pid_c"
wait "$pid_c" 2>/dev/null
perch_run list_after_kill list
if ! grep -q ctl-c "$TMP/list_after_kill.out" && [ ! -e "$XDG_RUNTIME_DIR/perch/$pid_c.sock" ]; then
    pass control/stale_socket_swept
else
    fail control/stale_socket_swept "$(cat "$TMP/list_after_kill.out")"
fi
pkill -9 -f "name ctl-c" 2>/dev/null

perch_run shutdown_nosuch shutdown nosuch
expect_status shutdown_nosuch 1
expect_one_line_error shutdown_nosuch
expect_line shutdown_nosuch err 'no running guest is nosuch'

# A folder others may enter is not used: list and --name refuse with one
# line; a run without --name goes on, with one note.
mkdir -p "$TMP/open/perch"
chmod 0755 "$TMP/open/perch"
XDG_RUNTIME_DIR=$TMP/open perch_run list_open list
expect_status list_open 1
expect_line list_open err "^perch: $TMP/open/perch is not a folder only you may enter"
XDG_RUNTIME_DIR=$TMP/open perch_run name_open run --name ctl-d "$GUESTS/hello.elf"
expect_status name_open 1
expect_one_line_error name_open
XDG_RUNTIME_DIR=$TMP/open perch_run noname_open run "$GUESTS/hello.elf"
expect_status noname_open 0
expect_line noname_open err '^perch: note: .*perch list will not show this guest$'
