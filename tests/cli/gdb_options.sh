# --gdb and --gdb-wait on the command line: each mistake gets one
# 'perch: ...' line, status 2 (bad command line) and nothing left running,
# a port in use included (perch listens before it builds the VM).
. tests/cli/helpers.bash

for bad in x 0 70000 65536 -1 '' 12x 99999999999999999999; do
    name=gdb_port_${bad:-empty}
    perch_run "$name" run --gdb "$bad" "$HELLO"
    expect_error "$name" 2 "--gdb.*(port|number)"
done

for bad in 0.0.0.0:1234 192.168.1.1:1234 ::1:1234 example.com:1234 :1234 127.0.0.2:1234; do
    name=gdb_host_${bad//[.:]/_}
    perch_run "$name" run --gdb "$bad" "$HELLO"
    expect_error "$name" 2 "--gdb.*127\\.0\\.0\\.1 only"
done

perch_run gdb_twice run --gdb 1234 --gdb 1235 "$HELLO"
expect_error gdb_twice 2 "option --gdb given twice"

perch_run gdb_wait_alone run --gdb-wait "$HELLO"
expect_error gdb_wait_alone 2 "--gdb-wait needs --gdb"

perch_run gdb_missing_value run "$HELLO" --gdb
expect_error gdb_missing_value 2 "--gdb.*needs a value"

# A port someone else listens on.
PORT=$((20000 + $$ % 10000))
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); print("up", flush=True); time.sleep(30)' "$PORT" >"$TMP/listener.out" &
listener=$!
for i in $(seq 50); do grep -q up "$TMP/listener.out" && break; sleep 0.1; done
perch_run gdb_port_in_use run --gdb "127.0.0.1:$PORT" "$HELLO"
expect_error gdb_port_in_use 2 "--gdb $PORT: cannot listen on 127\\.0\\.0\\.1:$PORT: Address already in use"
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null

# The good spellings are taken: the guest runs (hello.elf exits at once)
# with nobody attached, as without --gdb.
for good in "$PORT" "127.0.0.1:$PORT" "localhost:$PORT"; do
    name=gdb_good_${good//[.:]/_}
    perch_run "$name" run --gdb "$good" "$HELLO"
    expect_status "$name" 0
done
