#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A peer killed with SIGKILL under load, across two processes over the shm
PMD: the survivor goes on.

    test_restart.py server_kill PERF
    test_restart.py client_kill SERVER CLIENT
    test_restart.py drc_reconnect SERVER CLIENT

server_kill   rpcrdma-perf --client at depth 8 against an rpcrdma-perf
              --server that is killed (SIGKILL) in the middle of the run.
              Without --reconnect the client ends the run: exit 1, "the
              connection is lost". With --reconnect 200 and a new server
              started on the same address, the client connects again by
              itself, sends the calls that were in flight again (at most the
              depth) and finishes its run: exit 0, the reconnection reported,
              calls measured; the new server exits 0 when it leaves.
client_kill   blockstore-server with a client watching (--watch: the server
              calls it back after every WRITE of another client) and a
              client running --verify; the watcher is killed (SIGKILL) while
              NOTIFYs go to it. The other finishes its 300 rounds with no
              mismatch and no error, a new client is served after the kill,
              and the server exits 0 on SIGTERM with nothing on stderr: no
              connection left open, no buffer lost.
drc_reconnect blockstore-client --reconnect --verify 20 against servers whose
              Nth work request fails, N 3 to 11 (an RDMA Read, an RDMA
              Write or a reply Send: the connection is lost, the client
              reconnects and sends that call again). Every run verifies,
              and the server ran exactly 20 WRITEs: where the lost reply
              was a WRITE's, its duplicate request cache answered the copy
              (at least one N does); with --drc-entries 0 the same N runs
              the copy too (21).

The kill comes once the server's socket shows the clients connected
(/proc/net/unix), and a moment of calls after that.
"""
import os
import re
import signal
import subprocess
import sys
import time

failures = 0
checks = 0

# The EAL's one-line warning on a machine without free hugepages.
NO_HUGE_WARNING = re.compile(r"^rpcrdma: warning: .* running the EAL with --no-huge\n",
                             re.MULTILINE)


def check(cond, what):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAIL: " + what, file=sys.stderr)
    return cond


def quiet(err):
    return NO_HUGE_WARNING.sub("", err)


def popen(args):
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(p, timeout=60):
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        check(False, "%s did not exit" % p.args[0])
    return p.returncode, out, quiet(err)


def sockets(addr):
    """The UNIX sockets bound or connected to the abstract address @addr."""
    name = "@" + addr.lstrip("@")
    with open("/proc/net/unix") as f:
        return sum(1 for line in f if line.split()[-1:] == [name])


def wait_sockets(addr, n, p, limit=60):
    """Wait until @addr has n sockets (the listener and n - 1 accepted ones)."""
    end = time.monotonic() + limit
    while time.monotonic() < end and p.poll() is None:
        if sockets(addr) >= n:
            return True
        time.sleep(0.02)
    return False


def kill_under(perf, addr, client, nconns):
    """A server on @addr and the client command @client, whose @nconns
    connections are made; the server killed with SIGKILL and another started
    on the address. The client's exit status, output and errors, and the
    new server."""
    srv = popen([perf, "--server", addr, "--quiet"])
    cli = popen(client)
    if check(wait_sockets(addr, nconns + 1, cli), "the client's %d connection(s) made" % nconns):
        time.sleep(0.5)
    srv.send_signal(signal.SIGKILL)
    srv.wait()
    srv = popen([perf, "--server", addr, "--quiet"])
    rc, out, err = finish(cli)
    return rc, out, err, srv


def test_server_kill(perf):
    addr = "@restart-perf-%d" % os.getpid()
    client = [perf, "--client", addr, "--mode", "iops", "--depth", "8", "--duration", "4",
              "--warmup", "100", "--timeout", "20"]

    # without --reconnect: the run ends at the loss
    srv = popen([perf, "--server", addr, "--quiet"])
    cli = popen(client)
    if check(wait_sockets(addr, 2, cli), "the client connects"):
        time.sleep(0.5)
    srv.send_signal(signal.SIGKILL)
    srv.wait()
    rc, out, err = finish(cli)
    check(rc == 1 and ("the connection is lost" in err or
                       "call(s) failed: Connection reset by peer" in err),
          "without --reconnect the run ends: exit %d %r" % (rc, err))

    # with --reconnect: a new server on the same address, and the run goes on;
    # a client of four connections, each made again, the line adding them up
    # (one connection's line: restart_drc_reconnect's blockstore-client)
    rc, out, err, srv = kill_under(perf, addr,
                                   client + ["--reconnect", "200", "--connections", "4"], 4)
    m = re.search(r"the 4 connections were made again (\d+) time\(s\) in (\d+) attempt\(s\); "
                  r"(\d+) call\(s\) sent again", err)
    # a connect refused while the first server starts counts as a reconnect too
    check(rc == 0 and m is not None and int(m.group(1)) >= 4 and
          int(m.group(2)) >= int(m.group(1)) and 1 <= int(m.group(3)) <= 8,
          "every connection reconnects and sends its calls in flight again, the line adds "
          "them up: exit %d %r" % (rc, err))
    check(re.search(r"rpcrdma xprt \d+: the connection to %s is lost: connecting again "
                    r"\(at most 200 attempts\)" % addr, err) is not None and
          re.search(r"rpcrdma xprt \d+: connected to %s again, attempt \d+" % addr, err)
          is not None, "the engine says it lost the connection and made it again: %r" % err)
    rows = [line.split() for line in out.splitlines() if line.startswith("iops ")]
    check(len(rows) == 1 and int(rows[0][5]) > 0, "calls measured: %r" % out)
    rc, out, err = finish(srv)
    check(rc == 0 and err == "", "the new server exits 0 when the client leaves: %d %r" %
          (rc, err))


def test_client_kill(server, client):
    addr = "@restart-bs-%d" % os.getpid()
    srv = popen([server, "--listen", addr, "--size", "64m"])
    try:
        check(wait_sockets(addr, 1, srv), "the server listens")
        # the victim watches: the server calls it back (NOTIFY) after each of
        # the other's WRITEs, so it has backward calls out to it when it dies
        victim = popen([client, "--connect", addr, "--watch", "1000000", "--timeout", "120"])
        check(wait_sockets(addr, 2, srv), "the watcher connects")
        other = popen([client, "--connect", addr, "--verify", "300", "--seed", "2"])
        if check(wait_sockets(addr, 3, srv), "two clients connect"):
            time.sleep(0.3)
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        check(victim.returncode == -signal.SIGKILL, "the watcher was killed: %d" %
              victim.returncode)
        rc, out, err = finish(other, 120)
        check(rc == 0 and re.search(r"300 rounds, .* 0 mismatches, 0 errors", out) is not None,
              "the other client's 300 rounds: exit %d %r %r" % (rc, out, err))
        rc, out, err = finish(popen([client, "--connect", addr, "--getattr"]))
        check(rc == 0 and "size 67108864" in out,
              "a new client is served after the kill: exit %d %r %r" % (rc, out, err))
    finally:
        if srv.poll() is None:
            srv.send_signal(signal.SIGTERM)
        rc, out, err = finish(srv)
    check(rc == 0 and err == "" and "connection(s)" in out,
          "the server exits 0, nothing left open: %d %r %r" % (rc, out, err))


def drc_run(server, client, n, extra=()):
    """One --verify 20 against a server whose Nth work request fails: the
    client's exit, its verify line, the server's WRITE count and DRC hits."""
    addr = "@restart-drc-%d-%d" % (os.getpid(), n)
    srv = popen([server, "--listen", addr, "--size", "64m", "--devargs", "fail_wr=%d" % n] +
                list(extra))
    try:
        check(wait_sockets(addr, 1, srv), "N %d: the server listens" % n)
        rc, out, err = finish(popen([client, "--connect", addr, "--reconnect", "10", "--verify",
                                     "20", "--seed", "5", "--getattr"]))
    finally:
        srv.send_signal(signal.SIGTERM)
        src, sout, serr = finish(srv)
    check(src == 0 and serr == "", "N %d: the server exits 0: %d %r" % (n, src, serr))
    writes = re.search(r"\bwrites (\d+)", out)
    hits = re.search(r"DRC (\d+) hits", sout)
    check(rc == 0 and "20 rounds, 20 writes, 20 reads" in out and
          " 0 mismatches, 0 errors" in out and
          re.search(r"made again 1 time\(s\) in \d+ attempt\(s\); 1 call\(s\) sent again",
                    err) is not None,
          "N %d: the client reconnects, sends its call again, verifies: %d %r %r" %
          (n, rc, out, err))
    return (int(writes.group(1)) if writes else -1), (int(hits.group(1)) if hits else -1)


def test_drc_reconnect(server, client):
    first_hit = None
    for n in range(3, 12):
        writes, hits = drc_run(server, client, n)
        check(writes == 20, "N %d: 20 WRITEs ran, whatever was sent again: %d" % (n, writes))
        if hits > 0 and first_hit is None:
            first_hit = n
    check(first_hit is not None, "a lost reply was a WRITE's: the cache answered its copy")
    if first_hit is not None:
        # the same loss without the cache: the copy runs again
        writes, hits = drc_run(server, client, first_hit, ["--drc-entries", "0"])
        check(writes == 21, "N %d without the cache: the copy ran too: %d writes" %
              (first_hit, writes))


def main():
    group = sys.argv[1]
    if group == "server_kill":
        test_server_kill(sys.argv[2])
    elif group == "client_kill":
        test_client_kill(sys.argv[2], sys.argv[3])
    elif group == "drc_reconnect":
        test_drc_reconnect(sys.argv[2], sys.argv[3])
    else:
        print("unknown group %s" % group, file=sys.stderr)
        return 2
    print("test_restart %s: %d checks, %d failed" % (group, checks, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
