#!/usr/bin/env python3
"""A GDB remote-protocol client for tests/guests/gdb.sh, which speaks the
protocol well and badly: `gdb_client.py PORT SCENARIO [ADDRESS]`.

Scenarios (each prints PASS/FAIL lines named gdb_client/SCENARIO/...):
  hostile ADDR  the guest held by --gdb-wait: garbage, bad checksums, reads
                of holes and of perch's own memory, a huge length, an
                oversized packet, bad numbers; register writes read back; a
                breakpoint at ADDR left to the detach to take out; detach.
  interrupt     a guest that runs (or sleeps): attach stops it, continue,
                Ctrl-C stops it again (T02), the registers read, detach,
                a second client attaches, kill.
  user          a guest process in a busy loop: stopped in user mode,
                stepped there, a breakpoint in its text, detach.
  deaf ADDR     a breakpoint at ADDR, then requests whose replies it never
                reads, until perch drops it.
  smp ADDR      two vCPUs, held by --gdb-wait before the second is up: it is
                listed and unavailable; threads the guest does not have are
                errors; a breakpoint at ADDR stops both and names one; each
                thread's own registers; a step of one holds the other; detach.
"""
import socket
import sys
import time


def checksum(data):
    return sum(data) & 0xff


def frame(data):
    if isinstance(data, str):
        data = data.encode()
    return b"$" + data + b"#%02x" % checksum(data)


class Client:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=20)
        self.buf = b""

    def send(self, raw):
        self.s.sendall(raw)

    def _more(self):
        chunk = self.s.recv(65536)
        if not chunk:
            raise EOFError("perch closed the connection")
        self.buf += chunk

    def ack(self):
        """The next ack byte, '+' or '-'."""
        while not self.buf:
            self._more()
        c, self.buf = self.buf[:1], self.buf[1:]
        return c

    def packet(self):
        """The next packet's data (acks before it are skipped), checked."""
        while True:
            while b"$" not in self.buf:
                self._more()
            start = self.buf.index(b"$")
            while b"#" not in self.buf[start:] or len(self.buf) < self.buf.index(b"#", start) + 3:
                self._more()
            end = self.buf.index(b"#", start)
            data, cs = self.buf[start + 1:end], self.buf[end + 1:end + 3]
            self.buf = self.buf[end + 3:]
            if int(cs, 16) != checksum(data):
                raise ValueError("bad checksum from perch: %r" % data[:80])
            return data.decode("latin-1")

    def ask(self, data):
        """Send a packet, expect '+', return the reply."""
        self.send(frame(data))
        a = self.ack()
        if a != b"+":
            raise ValueError("packet %r got ack %r" % (data[:40], a))
        return self.packet()


failures = 0


def check(name, ok, why=""):
    global failures
    if ok:
        print("PASS gdb_client/%s" % name)
    else:
        failures += 1
        print("FAIL gdb_client/%s: %s" % (name, why))


def hostile(port, addr):
    c = Client(port)
    c.send(b"hello, this is not a packet\x00\xff\x7f}}")
    c.send(b"$g#00")
    check("hostile/bad_checksum_refused", c.ack() == b"-")
    c.send(b"$g#zz")
    check("hostile/bad_checksum_digits_refused", c.ack() == b"-")
    r = c.ask("qSupported:multiprocess+;swbreak+")
    check("hostile/qSupported", "PacketSize=1000" in r, r)
    r = c.ask("?")
    check("hostile/stopped", r.startswith("T05"), r)
    for a in ("0", "ffff808000000000", "ffff810000000000", "ffff800000000000",
              "800000000000", "ffff7fffffffffff", "1234"):
        r = c.ask("m%s,10" % a)
        check("hostile/m_%s_refused" % a, r == "E14", r[:80])
    r = c.ask("M0,4:01020304")
    check("hostile/M_0_refused", r == "E14", r)
    r = c.ask("Mffff808000000000,1:cc")
    check("hostile/M_perch_refused", r == "E14", r)
    r = c.ask("Z0,ffff808000020000,1")
    check("hostile/Z0_perch_refused", r == "E14", r)
    r = c.ask("m%s,ffffffffffffffff" % addr)
    check("hostile/m_huge_length_bounded", 0 < len(r) <= 4096 and all(ch in "0123456789abcdef" for ch in r),
          "reply of %d bytes: %r" % (len(r), r[:40]))
    r = c.ask("m%s,ffffffffffffffffff" % addr)
    check("hostile/m_too_long_a_number", r.startswith("E"), r[:40])
    r = c.ask("mzz,4")
    check("hostile/m_not_a_number", r.startswith("E"), r[:40])
    r = c.ask("m" + "f" * 5000 + ",1")
    check("hostile/oversized_packet", r.startswith("E"), r[:40])
    r = c.ask("p99")
    check("hostile/p_unknown_register", r.startswith("E"), r)
    r = c.ask("Pzz=00")
    check("hostile/P_not_a_number", r.startswith("E"), r)
    r = c.ask("G0102")
    check("hostile/G_short", r == "OK", r)
    r = c.ask("G0")
    check("hostile/G_odd_digits", r.startswith("E"), r)
    r = c.ask("vCont;x")
    check("hostile/vCont_unknown", r.startswith("E"), r)
    r = c.ask("Xfoo,1:a")
    check("hostile/unknown_packet_empty_reply", r == "", r)
    r = c.ask("Z1,%s,1" % addr)
    check("hostile/Z1_not_offered", r == "", r)
    # Register writes read back (r15 is 15; at the kernel's entry it is 0).
    r = c.ask("Pf=3412000000000000")
    check("hostile/P_r15", r == "OK", r)
    r = c.ask("pf")
    check("hostile/p_r15_reads_back", r == "3412000000000000", r)
    c.ask("Pf=0000000000000000")
    r = c.ask("g")
    check("hostile/g_164_bytes", len(r) == 328, "%d hex digits" % len(r))
    check("hostile/threads", c.ask("qfThreadInfo") == "m1" and c.ask("qsThreadInfo") == "l"
          and c.ask("qC") == "QC1" and c.ask("Hg1") == "OK" and c.ask("qAttached") == "1")
    check("hostile/vCont_query", c.ask("vCont?").startswith("vCont;c"))
    # A breakpoint the guest's command will reach: the detach takes it out.
    r = c.ask("Z0,%s,1" % addr)
    check("hostile/Z0", r == "OK", r)
    r = c.ask("m%s,1" % addr)
    check("hostile/m_shows_original_byte", r != "cc", r)
    c.send(b"\x03")   # Ctrl-C while stopped: nothing to say
    r = c.ask("D")
    check("hostile/detach", r == "OK", r)
    c.s.close()


def interrupt(port):
    c = Client(port)
    r = c.ask("?")
    check("interrupt/attach_stops", r.startswith("T05"), r)
    # One client at a time: a second is closed, the first goes on.
    second = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        check("interrupt/second_client_closed", second.recv(16) == b"")
    except OSError as e:
        check("interrupt/second_client_closed", False, str(e))
    second.close()
    check("interrupt/first_client_still_served", c.ask("qC") == "QC1")
    c.send(frame("c"))
    check("interrupt/continue_acked", c.ack() == b"+")
    time.sleep(0.5)
    t = time.time()
    c.send(b"\x03")
    r = c.packet()
    check("interrupt/ctrl_c_stops", r.startswith("T02"), r)
    check("interrupt/ctrl_c_soon", time.time() - t < 5, "%.1f s" % (time.time() - t))
    r = c.ask("g")
    rip = int.from_bytes(bytes.fromhex(r[256:272]), "little") if len(r) >= 272 else 0
    check("interrupt/registers", len(r) == 328 and rip != 0, r[:80])
    c.send(b"\x03")   # again while stopped: no second stop reply
    r = c.ask("qC")
    check("interrupt/no_second_stop_reply", r == "QC1", r)
    c.send(frame("vCont;c"))
    check("interrupt/vcont_acked", c.ack() == b"+")
    time.sleep(0.3)
    c.send(b"\x03")
    r = c.packet()
    check("interrupt/ctrl_c_again", r.startswith("T02"), r)
    # Detach, and a second client finds the guest again.
    r = c.ask("D")
    check("interrupt/detach", r == "OK", r)
    c.s.close()
    time.sleep(0.3)
    c = Client(port)
    r = c.ask("?")
    check("interrupt/reattach_stops", r.startswith("T05"), r)
    c.send(frame("k"))
    c.s.settimeout(10)
    try:
        while c.s.recv(4096):
            pass
        check("interrupt/kill_closes", True)
    except OSError as e:
        check("interrupt/kill_closes", False, str(e))


def rip_of(c):
    r = c.ask("g")
    return int.from_bytes(bytes.fromhex(r[256:272]), "little") if len(r) >= 272 else 0


def in_user(rip):
    return 0 < rip < 0x800000000000


def stop_in_user(c):
    """Let the guest run and interrupt it until it stops in user mode."""
    rip = 0
    for attempt in range(20):
        c.send(frame("c"))
        c.ack()
        time.sleep(0.2)
        c.send(b"\x03")
        c.packet()
        rip = rip_of(c)
        if in_user(rip):
            break
    return rip


def user(port):
    """A guest process in a busy loop: stopped in user mode, stepped
    there, a breakpoint in its text hit, then let go. A step of a
    `syscall` (the shell makes a few) rightly ends in the kernel's entry:
    then it is stopped in user mode again and the steps go on."""
    c = Client(port)
    c.ask("?")
    rip = stop_in_user(c)
    check("user/stopped_in_user_mode", in_user(rip), "rip %x" % rip)
    i = retries = 0
    while i < 3:
        before = rip
        c.send(frame("s"))
        c.ack()
        r = c.packet()
        rip = rip_of(c)
        if r.startswith("T05") and not in_user(rip) and retries < 5 and \
                c.ask("m%x,2" % before) == "0f05":
            retries += 1
            rip = stop_in_user(c)
            continue
        check("user/step_%d" % i, r.startswith("T05") and in_user(rip),
              "%s rip %x" % (r, rip))
        i += 1
    r = c.ask("m%x,1" % rip)
    check("user/reads_its_text", len(r) == 2, r)
    r = c.ask("Z0,%x,1" % rip)
    check("user/Z0", r == "OK", r)
    c.send(frame("c"))
    c.ack()
    r = c.packet()
    check("user/breakpoint_hit", r.startswith("T05") and rip_of(c) == rip,
          "%s at %x, the breakpoint at %x" % (r, rip_of(c), rip))
    r = c.ask("z0,%x,1" % rip)
    check("user/z0", r == "OK", r)
    check("user/detach", c.ask("D") == "OK")
    c.s.close()


def deaf(port, addr):
    """A client that sets a breakpoint, then asks and asks and never reads
    the replies: perch must drop it (taking the breakpoint out) rather
    than wait on it, and the guest goes on."""
    c = Client(port)
    c.ask("?")
    r = c.ask("Z0,%s,1" % addr)
    check("deaf/Z0", r == "OK", r)
    c.s.settimeout(30)
    t = time.time()
    request = frame("m%s,800" % addr) * 64
    dropped = False
    try:
        while time.time() - t < 25:
            c.send(request)
    except OSError:
        dropped = True
    check("deaf/dropped", dropped, "perch still reads after %.0f s" % (time.time() - t))
    c.s.close()


def stop_thread(r):
    """The thread a stop reply names, or 0."""
    for field in r[3:].split(";"):
        if field.startswith("thread:"):
            return int(field[7:], 16)
    return 0


def registers_of(c, thread):
    check("smp/Hg%d" % thread, c.ask("Hg%d" % thread) == "OK")
    return c.ask("g")


def rsp_of(g):
    return int.from_bytes(bytes.fromhex(g[112:128]), "little") if len(g) >= 128 else 0


def smp(port, addr):
    c = Client(port)
    r = c.ask("?")
    check("smp/held", r.startswith("T05") and stop_thread(r) == 1, r)
    check("smp/two_threads", c.ask("qfThreadInfo") == "m1,2" and c.ask("qsThreadInfo") == "l")
    r = c.ask("qThreadExtraInfo,2")
    check("smp/second_not_up", bytes.fromhex(r) == b"vCPU 1, not up", r)
    r = registers_of(c, 2)
    check("smp/not_up_unavailable", len(r) == 328 and set(r) == {"x"}, r[:40])
    check("smp/no_step_of_one_not_up", c.ask("vCont;s:2").startswith("E"))
    for bad in ("Hg3", "Hc3", "T3", "T0", "vCont;c:3", "qThreadExtraInfo,3", "Hgzz"):
        r = c.ask(bad)
        check("smp/%s_refused" % bad, r.startswith("E"), r)
    check("smp/T2", c.ask("T2") == "OK")
    check("smp/Z0", c.ask("Z0,%s,1" % addr) == "OK")
    c.send(frame("vCont;c"))
    c.ack()
    r = c.packet()
    stopped = stop_thread(r)
    check("smp/breakpoint_names_a_thread", r.startswith("T05") and stopped in (1, 2), r)
    other = 3 - stopped
    r = c.ask("qThreadExtraInfo,%d" % other)
    check("smp/other_up_now", bytes.fromhex(r) == b"vCPU %d" % (other - 1), r)
    mine, theirs = registers_of(c, stopped), registers_of(c, other)
    check("smp/own_registers", rsp_of(mine) != rsp_of(theirs) and "x" not in theirs,
          "rsp %x and %x" % (rsp_of(mine), rsp_of(theirs)))
    check("smp/z0", c.ask("z0,%s,1" % addr) == "OK")
    c.send(frame("vCont;s:%d;c" % stopped))
    c.ack()
    r = c.packet()
    check("smp/step_names_its_thread", r.startswith("T05") and stop_thread(r) == stopped, r)
    check("smp/other_held_while_it_stepped", registers_of(c, other) == theirs)
    check("smp/detach", c.ask("D") == "OK")
    c.s.close()


def main():
    port, scenario = int(sys.argv[1]), sys.argv[2]
    try:
        if scenario == "hostile":
            hostile(port, sys.argv[3])
        elif scenario == "user":
            user(port)
        elif scenario == "deaf":
            deaf(port, sys.argv[3])
        elif scenario == "smp":
            smp(port, sys.argv[3])
        else:
            interrupt(port)
    except (OSError, EOFError, ValueError) as e:
        check("%s/talks" % scenario, False, "%s: %s" % (type(e).__name__, e))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
