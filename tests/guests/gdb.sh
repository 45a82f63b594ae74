# perch run --gdb: a real gdb (batch mode) against Debian's kernel held at
# its first instruction by --gdb-wait: registers, memory, a breakpoint in
# a function the guest's command calls, a step, and the command then
# finishing with its own output and status. Then a client that speaks the
# protocol badly (tests/guests/gdb_client.py): perch says at most one line,
# never crashes, and the guest's command still ends as it would. Last, a
# guest of two vCPUs: two threads, all-stop at breakpoints.
. tests/lib.sh

if ! command -v gdb >/dev/null || ! command -v python3 >/dev/null; then
    echo "SKIP gdb: needs gdb and python3 (apt-get install gdb python3)"
    exit 0
fi

# A port of our own, and no perch of ours left behind whatever happens.
PORT=$((20000 + $$ % 10000))
PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT

# Symbols from the guest itself: a PV kernel is not relocated, so the
# addresses hold for every run of the same kernel.
timeout 60 "$PERCH" run -- /bin/sh -c \
    "grep -E ' (startup_xen|do_sys_openat2|__x64_sys_exit_group|xen_hypercall_pv|ptep_clear_flush|scheduler_tick)\$' /proc/kallsyms" \
    >"$TMP/syms.out" 2>"$TMP/syms.err" </dev/null
if grep -q "cannot fetch Debian's cloud kernel" "$TMP/syms.err"; then
    echo "SKIP gdb: $(grep -m1 '^perch: ' "$TMP/syms.err")"
    exit 0
fi
tr -d '\r' <"$TMP/syms.out" >"$TMP/syms"
sym() { grep -a " $1\$" "$TMP/syms" | head -1 | cut -d' ' -f1; }
ENTRY=$(sym startup_xen)
OPENAT=$(sym do_sys_openat2)
EXIT_GROUP=$(sym __x64_sys_exit_group)
HYPERCALL=$(sym xen_hypercall_pv)
PTEP_CLEAR_FLUSH=$(sym ptep_clear_flush)
TICK=$(sym scheduler_tick)
if [ -n "$ENTRY" ] && [ -n "$OPENAT" ] && [ -n "$EXIT_GROUP" ] && [ -n "$HYPERCALL" ] && [ -n "$PTEP_CLEAR_FLUSH" ] && [ -n "$TICK" ] && [ "$OPENAT" != 0000000000000000 ]; then
    pass gdb/kallsyms
else
    fail gdb/kallsyms "no addresses in the guest's /proc/kallsyms: $(head -c 300 "$TMP/syms.out")"
    exit 0
fi

# start_perch NAME ARGS...: perch run ARGS in the background (pid in $PERCH_PID)
# and wait until its port listens.
start_perch() {
    local name=$1 i
    shift
    timeout 60 "$PERCH" run "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null &
    PERCH_PID=$!
    PIDS="$PIDS $PERCH_PID"
    for i in $(seq 50); do
        # Listening (state 0A) on 127.0.0.1 (0100007F), from the kernel's
        # table: a connection would attach, and stop the guest.
        grep -q " 0100007F:$(printf '%04X' "$PORT") 00000000:0000 0A " /proc/net/tcp && return 0
        kill -0 "$PERCH_PID" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# wait_perch: its exit status in $status.
wait_perch() {
    wait "$PERCH_PID"
    status=$?
}

# gdb_session NAME SCRIPT ELF PERCH_ARGS...: perch run PERCH_ARGS in the
# background, gdb -batch on SCRIPT (with ELF's symbols; "": none), then
# perch's end: gdb's output in $TMP/gdb.out, its status in $gdb_status,
# perch's in $status.
gdb_session() {
    local name=$1 script=$2 elf=$3
    shift 3
    start_perch "$name" "$@" || fail "$name/listens" "$(head -c 300 "$TMP/$name.err")"
    timeout 50 gdb -batch -nx -x "$script" ${elf:+"$elf"} >"$TMP/gdb.out" 2>&1 </dev/null
    gdb_status=$?
    wait_perch
}

# --- a gdb session ---
cat >"$TMP/session.gdb" <<EOF
set architecture i386:x86-64
set pagination off
target remote 127.0.0.1:$PORT
echo @first\n
info registers rip
echo @entry_bytes\n
x/4bx \$pc
break *0x$OPENAT
continue
echo @at_break\n
info registers rip
echo @bytes\n
x/4bx \$pc
echo @gs_base\n
info registers gs_base
echo @mxcsr\n
info registers mxcsr fctrl
echo @monitor\n
monitor sym
monitor addr startup_xen
stepi
echo @stepped\n
info registers rip
delete
continue
EOF
gdb_session session "$TMP/session.gdb" "" --gdb "$PORT" --gdb-wait -- /bin/sh -c 'cat /proc/version; echo session-done; exit 7'
# section NAME: the lines gdb printed after "@NAME".
section() { sed -n "/^@$1\$/,/^@/p" "$TMP/gdb.out" | grep -v '^@'; }
# reg NAME SECTION: the value of register NAME gdb showed after "@SECTION".
reg() { section "$2" | sed -n "s/^$1 \+\(0x[0-9a-f]*\) .*/\1/p"; }
# expect_exit_heard NAME CODE: gdb heard the guest end with CODE (octal,
# as gdb prints it).
expect_exit_heard() {
    if grep -q "exited with code $2" "$TMP/gdb.out"; then
        pass "$1"
    else
        fail "$1" "$(tail -c 300 "$TMP/gdb.out")"
    fi
}
# expect_section NAME SECTION REGEX: a line gdb printed after "@SECTION"
# matches REGEX.
expect_section() {
    if section "$2" | grep -Eq -- "$3"; then
        pass "$1"
    else
        fail "$1" "want /$3/ after @$2, got: $(section "$2" | head -c 200)"
    fi
}

if [ "$gdb_status" -eq 0 ]; then pass gdb/batch_ends; else fail gdb/batch_ends "gdb status $gdb_status: $(tail -c 300 "$TMP/gdb.out")"; fi
expect_section gdb/held_at_first_instruction first "^rip +0x$ENTRY "
# startup_xen begins with cld (fc).
expect_section gdb/reads_kernel_text entry_bytes "^0x$ENTRY:[[:space:]]+0xfc"
if grep -Eq "^Breakpoint 1, 0x0*$OPENAT in" "$TMP/gdb.out" && section at_break | grep -Eq "^rip +0x$OPENAT "; then
    pass gdb/breakpoint_hit
else
    fail gdb/breakpoint_hit "want a stop at 0x$OPENAT (do_sys_openat2): $(section at_break | head -c 200)"
fi
# gdb shows the original byte, not the int3 under it.
bytes=$(section bytes | grep -E "^0x$OPENAT:" | head -1)
if [ -n "$bytes" ] && ! printf '%s' "$bytes" | grep -Eq ":[[:space:]]+0xcc"; then
    pass gdb/memory_at_breakpoint
else
    fail gdb/memory_at_breakpoint "x/4bx gave '$bytes'"
fi
# From the target description: the guest kernel's per-CPU base.
expect_section gdb/gs_base gs_base "^gs_base +0xffff8880[0-9a-f]+ "
# The SSE and x87 control words, from the vCPU (Linux's defaults).
if section mxcsr | grep -Eq "^mxcsr +0x1f80 " && section mxcsr | grep -Eq "^fctrl +0x37f "; then
    pass gdb/fpu_registers
else
    fail gdb/fpu_registers "$(section mxcsr | head -c 200)"
fi
# perch's monitor names kernel addresses from the kernel's own kallsyms.
if section monitor | grep -q "^0x$OPENAT: do_sys_openat2+0\$" &&
   section monitor | grep -q "^startup_xen = 0x$ENTRY\$"; then
    pass gdb/monitor_symbols
else
    fail gdb/monitor_symbols "$(section monitor | head -c 200)"
fi
stepped=$(reg rip stepped)
if [ -n "$stepped" ] && [ "$stepped" != "0x$OPENAT" ]; then
    pass gdb/stepi_moves
else
    fail gdb/stepi_moves "rip after stepi: '${stepped:-none}', the breakpoint was 0x$OPENAT"
fi
expect_exit_heard gdb/hears_the_exit 07
expect_status session 7
expect_line session out '^Linux version '
expect_line session out '^session-done'
if [ ! -s "$TMP/session.err" ]; then pass session/quiet; else fail session/quiet "$(head -c 300 "$TMP/session.err")"; fi

# step_script ADDR N: a gdb script that breaks at ADDR, shows N
# instructions there (@insns), steps one and shows rip (@after), then
# lets the guest finish.
step_script() {
    cat <<EOF
set architecture i386:x86-64
target remote 127.0.0.1:$PORT
break *0x$1
continue
echo @insns\n
x/$2i \$pc
stepi
echo @after\n
info registers rip
delete
continue
EOF
}

# --- a step over a hypercall: xen_hypercall_pv is push rcx; push r11;
# syscall; pop r11 ...; the step of its `syscall` makes the hypercall and
# stops after it. With and without DPL3 gates (the #DB and #BP then come
# through the Switcher). ---
SYSCALL_AT=$(printf '%x' $((0x$HYPERCALL + 3)))
AFTER=$(printf '%x' $((0x$HYPERCALL + 5)))
step_script "$SYSCALL_AT" 1 >"$TMP/hypercall.gdb"
for opts in "" --no-cpl3-events; do
    name=hypercall_step${opts//-/_}
    gdb_session "$name" "$TMP/hypercall.gdb" "" --gdb "$PORT" --gdb-wait $opts -- /bin/true
    if section insns | grep -q "0x$SYSCALL_AT:[[:space:]]*syscall" && section after | grep -Eq "^rip +0x$AFTER "; then
        pass "$name/stops_after_the_hypercall"
    else
        fail "$name/stops_after_the_hypercall" "$(grep -v '^warning\|^determining' "$TMP/gdb.out" | head -c 400)"
    fi
    expect_status "$name" 0
done

# --- a step over an instruction the Host carries out: ptep_clear_flush's
# xchg into a page table traps and is emulated (ptwr); the step ends at
# the next instruction, not one further. ---
STORE_AT=$(printf '%x' $((0x$PTEP_CLEAR_FLUSH + 0xc)))
step_script "$STORE_AT" 2 >"$TMP/store.gdb"
gdb_session store "$TMP/store.gdb" "" --gdb "$PORT" --gdb-wait -- /bin/true
next_insn=$(section insns | sed -n '2s/^ *\(0x[0-9a-f]*\):.*/\1/p')
if ! section insns | head -1 | grep -q "0x$STORE_AT:[[:space:]]*xchg"; then
    echo "SKIP store/step_over_emulated: ptep_clear_flush+0xc is no xchg in this kernel"
elif [ -n "$next_insn" ] && section after | grep -Eq "^rip +$next_insn "; then
    pass store/step_over_emulated
else
    fail store/step_over_emulated "want rip $next_insn: $(grep -v '^warning\|^determining' "$TMP/gdb.out" | head -c 400)"
fi
expect_status store 0

# --- gdb changes the guest: conditional breakpoints at exit_group (each
# miss is a stop and a continue), a memory write into the inner shell's
# pt_regs (its di, the status: 3 becomes 42) and a register write for the
# outer one (its pt_regs pointer moved one word on, so the status read is
# orig_ax, exit_group's number 231). ---
cat >"$TMP/changes.gdb" <<EOF
set architecture i386:x86-64
target remote 127.0.0.1:$PORT
break *0x$EXIT_GROUP if *(long *)(\$rdi + 0x70) == 3
continue
set *(long *)(\$rdi + 0x70) = 42
delete
break *0x$EXIT_GROUP if *(long *)(\$rdi + 0x70) == 4
continue
set \$rdi = \$rdi + 8
delete
continue
EOF
gdb_session changes "$TMP/changes.gdb" "" --gdb "$PORT" --gdb-wait -- /bin/sh -c '/bin/sh -c "exit 3"; echo inner=$?; exit 4'
expect_line changes out '^inner=42'
expect_status changes 231
expect_exit_heard changes/gdb_hears_231 0347

# --- with symbols: perch's own test guest, source-level (a breakpoint by
# name, the backtrace through the guest's frames, finish's temporary
# breakpoint at the return address) ---
cat >"$TMP/symbols.gdb" <<EOF
target remote 127.0.0.1:$PORT
break printk
continue
bt
finish
delete
continue
EOF
gdb_session symbols "$TMP/symbols.gdb" "$GUESTS/hello.elf" --gdb "$PORT" --gdb-wait "$GUESTS/hello.elf"
expect_status symbols 0
if grep -q '^Breakpoint 1, printk (fmt=.*"Hello from a perch PV guest' "$TMP/gdb.out" &&
   grep -q '^#1 .* in guest_main ' "$TMP/gdb.out" && grep -q '^Value returned is .* = 28$' "$TMP/gdb.out"; then
    pass symbols/source_level
else
    fail symbols/source_level "$(grep -v '^warning' "$TMP/gdb.out" | head -c 400)"
fi
expect_line symbols out '^hello: done'

# --- a client that speaks the protocol badly, then detaches ---
start_perch hostile --gdb "127.0.0.1:$PORT" --gdb-wait -- /bin/sh -c 'cat /proc/version; echo hostile-done; exit 5' ||
    fail hostile/listens "$(head -c 300 "$TMP/hostile.err")"
timeout 40 python3 tests/guests/gdb_client.py "$PORT" hostile "$OPENAT"
wait_perch
expect_status hostile 5
expect_line hostile out '^Linux version '
expect_line hostile out '^hostile-done'
# At most one line, and only perch's word on the client.
if [ "$(wc -l <"$TMP/hostile.err")" -le 1 ] && ! grep -qv '^perch: gdb: ' "$TMP/hostile.err"; then
    pass hostile/at_most_one_line
else
    fail hostile/at_most_one_line "stderr: $(head -c 400 "$TMP/hostile.err")"
fi

# --- a client that stops reading: dropped, its breakpoint taken out ---
start_perch deaf --gdb "$PORT" --gdb-wait -- /bin/sh -c 'cat /proc/version; echo deaf-done' ||
    fail deaf/listens "$(head -c 300 "$TMP/deaf.err")"
timeout 40 python3 tests/guests/gdb_client.py "$PORT" deaf "$OPENAT"
wait_perch
expect_status deaf 0
expect_line deaf out '^deaf-done'

# --- attach to a running guest, Ctrl-C, kill ---
start_perch interrupt --gdb "$PORT" -- /bin/sh -c 'sleep 30; echo not-killed' ||
    fail interrupt/listens "$(head -c 300 "$TMP/interrupt.err")"
sleep 1   # let it boot some way: the stop must find it running or idle
timeout 40 python3 tests/guests/gdb_client.py "$PORT" interrupt
wait_perch
expect_status interrupt 130
expect_line interrupt err '^perch: stopped by gdb \(kill\)$'
if grep -q not-killed "$TMP/interrupt.out"; then fail interrupt/killed "the guest ran on"; else pass interrupt/killed; fi

# --- a guest process stopped, stepped and broken into, in both isolation
# levels (its #DB and #BP come through the user view's stubs, or the
# kernel view's DPL3 gates) ---
for opts in "" --no-guest-isolation; do
    name=user${opts//-/_}
    start_perch "$name" --gdb "$PORT" $opts -- /bin/sh -c \
        'i=0; while [ $i -lt 2000000 ]; do i=$((i+1)); done; echo loop-done' ||
        fail "$name/listens" "$(head -c 300 "$TMP/$name.err")"
    timeout 40 python3 tests/guests/gdb_client.py "$PORT" user | sed "s#gdb_client/user/#gdb_client/$name/#"
    wait_perch
    expect_status "$name" 0
    expect_line "$name" out '^loop-done'
done

# --- two vCPUs, two threads: a real gdb lists them, shows each one's own
# registers (the other vCPU's stack and per-CPU base), and a breakpoint on
# the scheduler's tick, which both vCPUs' timers run while both spin,
# stops the guest and names the thread that hit it; then the guest runs
# to its end. ---
cat >"$TMP/smp.gdb" <<EOF
set architecture i386:x86-64
set pagination off
target remote 127.0.0.1:$PORT
break *0x$OPENAT
continue
delete
echo @threads\n
info threads
thread 1
echo @t1\n
info registers rsp gs_base
thread 2
echo @t2\n
info registers rsp gs_base
break *0x$TICK
continue
echo @tick\n
info threads
delete
continue
EOF
gdb_session smp "$TMP/smp.gdb" "" --cpus 2 --gdb "$PORT" --gdb-wait -- /bin/sh -c \
    'spin() { i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; }; spin & spin; wait; echo smp-done; exit 6'
if section threads | grep -Eq '^[* ] 1 +Thread 1 \(vCPU 0\) +0x' &&
   section threads | grep -Eq '^[* ] 2 +Thread 2 \(vCPU 1\) +0x'; then
    pass smp/info_threads
else
    fail smp/info_threads "$(section threads | head -c 300)"
fi
if [ -n "$(reg rsp t1)" ] && [ -n "$(reg rsp t2)" ] && [ "$(reg rsp t1)" != "$(reg rsp t2)" ] &&
   [ -n "$(reg gs_base t2)" ] && [ "$(reg gs_base t1)" != "$(reg gs_base t2)" ]; then
    pass smp/own_registers
else
    fail smp/own_registers "thread 1: $(section t1 | tr '\n' ' '); thread 2: $(section t2 | tr '\n' ' ')"
fi
if grep -Eq "^Thread [12] hit Breakpoint 2, 0x0*$TICK in" "$TMP/gdb.out"; then
    pass smp/breakpoint_names_a_thread
else
    fail smp/breakpoint_names_a_thread "$(grep -v '^warning\|^determining' "$TMP/gdb.out" | head -c 400)"
fi
expect_exit_heard smp/hears_the_exit 06
expect_status smp 6
expect_line smp out '^smp-done'

# --- two vCPUs at the protocol's level: the second not up yet, threads
# the guest does not have, a step of one thread holding the other ---
start_perch smp_client --cpus 2 --gdb "$PORT" --gdb-wait -- /bin/sh -c 'cat /proc/version; echo smp-client-done' ||
    fail smp_client/listens "$(head -c 300 "$TMP/smp_client.err")"
timeout 40 python3 tests/guests/gdb_client.py "$PORT" smp "$OPENAT"
wait_perch
expect_status smp_client 0
expect_line smp_client out '^smp-client-done'
