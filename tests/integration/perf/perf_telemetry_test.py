#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rpcrdma-perf's test program in telemetry, queried over the EAL socket of
a running server (as dpdk-telemetry.py queries it), in two processes over
the shm PMD:

1. rpcrdma-perf --server: before any call, /rpcrdma/programs lists the
   program (536871248, "rpcrdma-perf", versions 1..1) with 0 calls, and
   /rpcrdma/program,536871248 its three procedures.
2. rpcrdma-perf --client --mode lat --duration 2 (NULL calls): while it
   runs, the counters are read again and again; they grow, the NULL
   procedure has the program's calls and answers them SUCCESS (give or
   take the call in flight), nothing else is counted, and the service
   times (time_ns, mean_ns, max_ns) of the program and of NULL are there.
3. After the run: the server's closing line, which it reads from the same
   counters, gives as many calls as the client sent (its short_msgs: every
   NULL call is a Short message), at least the last count read during the
   run, and none answered with an error.
4. rpcrdma-perf --server --pollers 2 and a client of 4 connections: while
   it runs, /rpcrdma/lcores has the runtime's two pollers, each with 2
   connections placed on it, the second having run the 2 messages that
   handed it its connections; /rpcrdma/programs counts the calls of both
   (one registry); the server's closing lines give 2 connections each.
   The client's own telemetry, read during the run: its 4 connections, in
   one poll group that shares 16 call slots (twice --depth 8), at most 16
   of them busy and more than 0 in some reading, none refused.

usage: perf_telemetry_test.py RPCRDMA_PERF
"""
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

PROG = "536871248"  # 0x20000150
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what, file=sys.stderr)
    return cond


def query(sock, cmd, maxlen):
    sock.send(cmd.encode())
    return json.loads(sock.recv(maxlen).decode())


def read_counters(sock, maxlen):
    """/rpcrdma/programs, and /rpcrdma/program of the test's program: None
    once the server has let its registry go (it does as it exits)."""
    progs = query(sock, "/rpcrdma/programs", maxlen)["/rpcrdma/programs"] or {}
    procs = query(sock, "/rpcrdma/program,%s" % PROG, maxlen)["/rpcrdma/program"]
    return progs, procs


def telemetry_socket(srv, srv_dir, who="rpcrdma-perf --server"):
    """The telemetry socket of a process (srv: a server, or who) and its
    max_output_len, or (None, 0)."""
    path = os.path.join(srv_dir, "dpdk", "rte", "dpdk_telemetry.v2")
    for _ in range(400):
        if os.path.exists(path) or srv.poll() is not None:
            break
        time.sleep(0.05)
    if not check(srv.poll() is None and os.path.exists(path),
                 "%s: no telemetry socket at %s (exit %s)" % (who, path, srv.poll())):
        return None, 0
    # the EAL binds the socket, then listens: a connect in between is refused
    for _ in range(100):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            sock.connect(path)
            break
        except ConnectionRefusedError:
            sock.close()
            sock = None
            time.sleep(0.05)
    if not check(sock is not None, "%s: %s refuses connections" % (who, path)):
        return None, 0
    return sock, json.loads(sock.recv(1024).decode())["max_output_len"]


def client_slots(sock, maxlen):
    """The call slots of a client of 4 connections in one group, from each
    connection: (group_slots, group_slots_busy, group_slots_short), or []
    before all 4 are listed."""
    ids = query(sock, "/rpcrdma/conns", maxlen)["/rpcrdma/conns"] or []
    if len(ids) != 4:
        return []
    out = []
    for i in ids:
        c = query(sock, "/rpcrdma/conn,%d" % i, maxlen)["/rpcrdma/conn"] or {}
        check(c.get("role") == "client" and c.get("group_conns") == 4,
              "a client connection of --connections 4, in its group: %r" % c)
        out.append((c.get("group_slots"), c.get("group_slots_busy"), c.get("group_slots_short")))
    return out


def pollers(perf, rundir, env):
    """Part 4: a server on two pollers, in telemetry."""
    addr = "@rpcrdma-perf-tel2-%d" % os.getpid()
    srv_dir, cli_dir = os.path.join(rundir, "s2"), os.path.join(rundir, "c2")
    os.mkdir(srv_dir)
    os.mkdir(cli_dir)
    srv = subprocess.Popen([perf, "--server", addr, "--pollers", "2", "--clients", "4"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=dict(env, RUNTIME_DIRECTORY=srv_dir))
    cli = None
    try:
        sock, maxlen = telemetry_socket(srv, srv_dir)
        if sock is None:
            return
        cli = subprocess.Popen([perf, "--client", addr, "--connections", "4", "--mode", "iops",
                                "--depth", "8", "--duration", "2", "--quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(env, RUNTIME_DIRECTORY=cli_dir))
        csock, cmaxlen = telemetry_socket(cli, cli_dir, "rpcrdma-perf --client")
        got, slots = None, []
        while cli.poll() is None and (got is None or not any(b > 0 for _, b, _ in slots)):
            time.sleep(0.2)
            try:
                lc = query(sock, "/rpcrdma/lcores", maxlen)["/rpcrdma/lcores"] or {}
                progs = query(sock, "/rpcrdma/programs", maxlen)["/rpcrdma/programs"] or {}
                if csock is not None:
                    slots += client_slots(csock, cmaxlen)
            except (OSError, ValueError):
                break
            polls = sorted((v for k, v in lc.items() if k != "tsc_hz" and
                            v.get("runtime") == "perf" and v.get("role") == "poller"),
                           key=lambda v: v.get("placed", 0))
            if sum(v.get("placed", 0) for v in polls) == 4 and \
                    progs.get(PROG, {}).get("calls", 0) > 0:
                got = (polls, progs[PROG]["calls"])
        check(len(slots) > 0 and all(n == 16 and 0 <= b <= 16 and short == 0
                                     for n, b, short in slots) and
              any(b > 0 for _, b, _ in slots),
              "the client's group slots (group_slots, busy, short) of its 4 connections: %r" %
              slots)
        if check(got is not None, "two pollers with 4 connections placed in /rpcrdma/lcores"):
            polls, calls = got
            check(len(polls) == 2 and [v.get("placed") for v in polls] == [2, 2] and
                  sorted(v.get("msgs") for v in polls) == [0, 2],
                  "the pollers' placed and msgs: %r" % polls)
        cout, cerr = cli.communicate(timeout=60)
        sout, serr = srv.communicate(timeout=30)
        # the server's lines say which of a lost call's ends dropped it
        check(cli.returncode == 0, "client of two pollers: exit %d %r; the server's: %r %r" %
              (cli.returncode, cerr, serr, sout))
        check(srv.returncode == 0, "server on two pollers: exit %s %r" % (srv.returncode, serr))
        per = re.findall(r"server: poller (\d): (\d+) connections, (\d+) calls", sout)
        total = re.search(r"server: (\d+) calls, 0 answered with an error", sout)
        check(len(per) == 2 and all(n == "2" and int(c) > 0 for _, n, c in per) and
              total is not None and sum(int(c) for _, _, c in per) == int(total.group(1)) and
              (got is None or int(total.group(1)) >= got[1]),
              "the closing lines of a server on two pollers: %r" % sout)
    finally:
        for p in (cli, srv):
            if p is not None and p.poll() is None:
                p.kill()
                p.communicate()


def main():
    perf = sys.argv[1]
    addr = "@rpcrdma-perf-tel-%d" % os.getpid()
    with tempfile.TemporaryDirectory() as rundir:
        srv_dir, cli_dir = os.path.join(rundir, "s"), os.path.join(rundir, "c")
        os.mkdir(srv_dir)
        os.mkdir(cli_dir)
        env = dict(os.environ)
        env.pop("RPCRDMA_TELEMETRY", None)
        srv = subprocess.Popen([perf, "--server", addr], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               env=dict(env, RUNTIME_DIRECTORY=srv_dir))
        cli = None
        try:
            sock, maxlen = telemetry_socket(srv, srv_dir)
            if sock is None:
                return 1

            # 1. registered (the socket comes with the EAL, the program a
            # little later), nothing counted yet
            for _ in range(200):
                progs, procs = read_counters(sock, maxlen)
                if PROG in progs or srv.poll() is not None:
                    break
                time.sleep(0.05)
            p, procs = progs.get(PROG, {}), procs or {}
            check(p.get("name") == "rpcrdma-perf" and p.get("low") == 1 and
                  p.get("high") == 1 and p.get("calls") == 0,
                  "/rpcrdma/programs before the run: %r" % progs)
            check(sorted(procs) == ["v1_0_NULL", "v1_1_READ", "v1_2_WRITE"] and
                  all(v.get("calls") == 0 for v in procs.values()),
                  "/rpcrdma/program,%s before the run: %r" % (PROG, procs))

            # 2. during a run
            res = os.path.join(rundir, "c.json")
            cli = subprocess.Popen([perf, "--client", addr, "--mode", "lat", "--duration", "2",
                                    "--quiet", "--json", res], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True,
                                   env=dict(env, RUNTIME_DIRECTORY=cli_dir))
            seen = []
            conn_checked = False
            while cli.poll() is None:
                time.sleep(0.2)
                try:
                    progs, procs = read_counters(sock, maxlen)
                except (OSError, ValueError):
                    break  # the server exits once the client is gone
                if procs is None:
                    # the client is done and the server on its way out: its
                    # registry went between the two reads (the checks below
                    # stand on the readings before)
                    break
                p, null = progs.get(PROG, {}), procs.get("v1_0_NULL", {})
                if p.get("calls", 0) == 0:
                    continue
                seen.append(p["calls"])
                # counters read one after the other while calls go on, one
                # at a time (--mode lat): the program's counter is read
                # first and counts a call before its procedure's does
                check(null.get("calls", 0) >= p["calls"] - 1,
                      "NULL procedure %r has the program's calls %r" % (null, p))
                check(abs(null.get("calls", 0) - null.get("success", 0)) <= 1,
                      "NULL calls answered SUCCESS: %r" % null)
                for k in ("prog_mismatch", "proc_unavail", "auth_tooweak"):
                    check(p.get(k) == 0, "program %s = %r" % (k, p.get(k)))
                # service times on the TSC: a NULL call is served in well
                # under a millisecond on average, and the longest is no
                # shorter than the mean
                for what, t in (("program", p), ("NULL procedure", null)):
                    check(0 < t.get("mean_ns", 0) < 1000000 and
                          t.get("max_ns", 0) >= t["mean_ns"] and
                          t.get("time_ns", 0) >= t["mean_ns"],
                          "%s service times: %r" % (what, t))
                for name in ("v1_1_READ", "v1_2_WRITE"):
                    check(procs.get(name, {}).get("calls") == 0,
                          "%s counted calls in a NULL run: %r" % (name, procs.get(name)))
                # the server's connection, in its poll group (the only member)
                if not conn_checked:
                    ids = query(sock, "/rpcrdma/conns", maxlen)["/rpcrdma/conns"] or []
                    if len(ids) == 1:
                        c = query(sock, "/rpcrdma/conn,%d" % ids[0], maxlen)["/rpcrdma/conn"]
                        conn_checked = True
                        check(c.get("role") == "server" and c.get("group_conns") == 1 and
                              c.get("group_share", 0) >= c.get("credit_target", 1) >= 1 and
                              c.get("group_srq_posted", 0) >= c.get("group_reserved", 1) and
                              c.get("group_unreserved") == 0 and
                              c.get("group_conn_visits", 0) > 0 and
                              0 < c.get("mem_bytes", 0) <= 16384,
                              "/rpcrdma/conn of the server's connection in its poll group: %r" % c)
            cout, cerr = cli.communicate(timeout=60)
            check(cli.returncode == 0, "client: exit %d %r" % (cli.returncode, cerr))
            check(conn_checked, "the server's connection was read from /rpcrdma/conn")
            check(len(seen) >= 2 and seen[-1] > seen[0],
                  "the program's calls grow during the run: %r" % seen)

            # 3. after it
            sout, serr = srv.communicate(timeout=30)
            check(srv.returncode == 0, "server: exit %s %r" % (srv.returncode, serr))
            m = re.search(r"server: (\d+) calls, (\d+) answered with an error", sout)
            if check(m is not None, "server's closing line: %r" % sout) and cli.returncode == 0:
                sent = json.load(open(res))["xprt"]["short_msgs"]
                calls, bad = int(m.group(1)), int(m.group(2))
                check(calls == sent and bad == 0,
                      "server counted %d calls (%d with an error), the client sent %d" %
                      (calls, bad, sent))
                check(not seen or calls >= seen[-1],
                      "final count %d below one read during the run %r" % (calls, seen))
        finally:
            for p in (cli, srv):
                if p is not None and p.poll() is None:
                    p.kill()
                    p.communicate()
        pollers(perf, rundir, env)
    if failures:
        print("%d failed checks" % failures, file=sys.stderr)
        return 1
    print("perf_telemetry: %d readings during the run, last %d calls" % (len(seen), seen[-1]))
    return 0


sys.exit(main())
