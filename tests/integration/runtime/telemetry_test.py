#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Query a running rpcrdma process over the EAL telemetry socket and check
the JSON of every /rpcrdma/ command; then the same through DPDK's
dpdk-telemetry.py, driven on stdin, when it is installed.

usage: telemetry_test.py TELEMETRY_SERVER
"""
import json
import os
import socket
import subprocess
import sys
import tempfile

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what, file=sys.stderr)


def query(sock, cmd, maxlen):
    sock.send(cmd.encode())
    reply = sock.recv(maxlen).decode()
    return json.loads(reply)


def main():
    server = sys.argv[1]
    prefix = "rpcrdma_tel_%d" % os.getpid()
    with tempfile.TemporaryDirectory() as rundir:
        # EAL and dpdk-telemetry.py both put the socket under
        # $RUNTIME_DIRECTORY/dpdk/<prefix>/ (the default is /var/run for root)
        env = dict(os.environ, RUNTIME_DIRECTORY=rundir)
        proc = subprocess.Popen([server, prefix], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, env=env, text=True)
        line = proc.stdout.readline()
        if line.strip() != "READY":
            proc.kill()
            proc.wait()
            if proc.returncode == 77:
                print("SKIP: the EAL does not start here")
                return 77
            print("server did not start: %r" % line, file=sys.stderr)
            return 1
        path = os.path.join(rundir, "dpdk", prefix, "dpdk_telemetry.v2")
        check(os.path.exists(path), "socket at " + path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        sock.connect(path)
        hello = json.loads(sock.recv(1024).decode())
        check(hello["pid"] == proc.pid, "hello names the server's pid")
        maxlen = hello["max_output_len"]

        cmds = query(sock, "/", maxlen)["/"]
        for c in ["/rpcrdma/lcores", "/rpcrdma/pools", "/rpcrdma/programs",
                  "/rpcrdma/program", "/rpcrdma/conns", "/rpcrdma/conn"]:
            check(c in cmds, c + " is registered")
        hlp = query(sock, "/help,/rpcrdma/conn", maxlen)["/help"]
        check("connection id" in hlp.get("/rpcrdma/conn", ""), "help text: %s" % hlp)

        lc = query(sock, "/rpcrdma/lcores", maxlen)["/rpcrdma/lcores"]
        check(lc["tsc_hz"] > 0, "tsc_hz")
        roles = {k: v for k, v in lc.items() if k != "tsc_hz"}
        check(sorted(v["role"] for v in roles.values()) == ["poller", "worker"],
              "one poller and one worker: %s" % roles)
        for k, v in roles.items():
            check(k.isdigit() and int(k) in (1, 2), "lcore id key %s" % k)
            check(v["iterations"] > 0 and v["idle_cycles"] > 0,
                  "lcore %s iterated and idled" % k)
            check(v["items"] == 64, "lcore %s: 64 items (%d)" % (k, v["items"]))
            if v["role"] == "poller":
                check(v["returned"] == 64 and v["busy_cycles"] > 0,
                      "poller: 64 returned, busy")

        pools = query(sock, "/rpcrdma/pools", maxlen)["/rpcrdma/pools"]
        p = pools.get("tel_inline", {})
        check(p.get("size") == 64 and p.get("in_use") == 3 and p.get("free") == 61 and
              p.get("high_water") == 3 and p.get("buf_size") == 1024,
              "pool tel_inline: %s" % p)

        progs = query(sock, "/rpcrdma/programs", maxlen)["/rpcrdma/programs"]
        d = progs.get("dispatch", {})
        # rt_build_call(0..63): i % 8 == 5 with i % 3 == 1 is PROG_UNAVAIL
        unavail = sum(1 for i in range(64) if i % 8 == 5 and i % 3 == 1)
        check(d.get("calls") == 64 and d.get("prog_unavail") == unavail,
              "dispatch counters %s (want 64 calls, %d prog_unavail)" % (d, unavail))
        # the registry's DRC: there, and no idempotent call went near it
        check(d.get("drc_entries") == 32 and d.get("drc_misses") == 0 and
              d.get("drc_hits") == 0 and d.get("drc_stores") == 0 and "drc_inprog_drops" in d,
              "dispatch DRC counters %s (want 32 entries, untouched)" % d)
        t = progs.get(str(0x20000010), {})
        check(t.get("name") == "rttest" and t.get("low") == 1 and t.get("high") == 3,
              "program entry %s" % t)
        check(t.get("calls") == 64 - unavail, "program calls %s" % t.get("calls"))

        procs = query(sock, "/rpcrdma/program,%d" % 0x20000010,
                      maxlen)["/rpcrdma/program"]
        add1 = procs.get("v1_1_ADD", {})
        want = sum(1 for i in range(64) if i % 8 in (0, 1, 2) and i & 1)
        check(add1.get("success") == want, "v1 ADD successes %s, want %d" % (add1, want))
        fail = sum(procs.get("v%d_2_FAIL" % v, {}).get("system_err", 0) for v in (1, 3))
        check(fail == 8, "FAIL system_err %d, want 8" % fail)
        check(query(sock, "/rpcrdma/program,5", maxlen)["/rpcrdma/program"] is None,
              "unknown program: null")

        conns = query(sock, "/rpcrdma/conns", maxlen)["/rpcrdma/conns"]
        check(conns == [7, 9], "conns %s" % conns)
        c7 = query(sock, "/rpcrdma/conn,7", maxlen)["/rpcrdma/conn"]
        check(c7 == {"state": "CONNECTED", "credits_granted": 32,
                     "credits_outstanding": 3, "sends": 700, "provider": "fake"},
              "conn 7: %s" % c7)
        check(query(sock, "/rpcrdma/conn,8", maxlen)["/rpcrdma/conn"] is None,
              "unknown connection: null")
        check(query(sock, "/rpcrdma/conn,x", maxlen)["/rpcrdma/conn"] is None,
              "bad parameter: null")
        sock.close()

        client = "/usr/bin/dpdk-telemetry.py"
        if os.path.exists(client):
            out = subprocess.run([sys.executable, client, "-f", prefix],
                                 input="/rpcrdma/conns\n/rpcrdma/lcores\n",
                                 capture_output=True, text=True, env=env, timeout=20)
            lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
            check(len(lines) == 2, "dpdk-telemetry.py answered twice: %r" % out.stdout)
            if len(lines) == 2:
                check(json.loads(lines[0]) == {"/rpcrdma/conns": [7, 9]},
                      "dpdk-telemetry.py conns")
                check("tsc_hz" in json.loads(lines[1])["/rpcrdma/lcores"],
                      "dpdk-telemetry.py lcores")
        else:
            print("note: %s not installed; own client only" % client)

        proc.stdin.close()
        rc = proc.wait(timeout=20)
        check(rc == 0, "server exit status %d" % rc)
    print("telemetry: %d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
