#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Query the engine's connections over the EAL telemetry socket of a running
process (xprt_telemetry_server): /rpcrdma/conns lists both connections,
/rpcrdma/conn,<id> gives each one's role, state, credit state and counters
after a known number of calls; once the connections are destroyed they are
no longer listed.

usage: xprt_telemetry_test.py XPRT_TELEMETRY_SERVER
"""
import json
import os
import socket
import subprocess
import sys
import tempfile

NCALLS = 10
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what, file=sys.stderr)


def query(sock, cmd, maxlen):
    sock.send(cmd.encode())
    return json.loads(sock.recv(maxlen).decode())


def main():
    server = sys.argv[1]
    prefix = "rpcrdma_xtel_%d" % os.getpid()
    with tempfile.TemporaryDirectory() as rundir:
        env = dict(os.environ, RUNTIME_DIRECTORY=rundir)
        proc = subprocess.Popen([server, prefix], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, env=env, text=True)
        words = proc.stdout.readline().split()
        if len(words) != 3 or words[0] != "READY":
            proc.kill()
            proc.wait()
            if proc.returncode == 77:
                print("SKIP: the EAL does not start here")
                return 77
            print("server did not start: %r" % words, file=sys.stderr)
            return 1
        cid, sid = int(words[1]), int(words[2])
        path = os.path.join(rundir, "dpdk", prefix, "dpdk_telemetry.v2")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        sock.connect(path)
        maxlen = json.loads(sock.recv(1024).decode())["max_output_len"]

        conns = query(sock, "/rpcrdma/conns", maxlen)["/rpcrdma/conns"]
        check(sorted(conns) == sorted([cid, sid]) and cid != sid,
              "conns %s, want %d and %d" % (conns, cid, sid))
        c = query(sock, "/rpcrdma/conn,%d" % cid, maxlen)["/rpcrdma/conn"] or {}
        s = query(sock, "/rpcrdma/conn,%d" % sid, maxlen)["/rpcrdma/conn"] or {}
        want_c = {"provider": "xprt", "id": cid, "role": "client", "state": "ESTABLISHED",
                  "vers": 1, "calls": NCALLS, "replies": NCALLS, "short_msgs": NCALLS,
                  "failed": 0, "credit_max": 32, "credit_grant": 16,
                  "credit_outstanding": 0, "calls_busy": 0, "recvs_posted": 32 + 4,
                  "send_inline": 4096, "recv_inline": 4096, "mr_regs": 0,
                  "vers_settled": 1, "vers_state": "V1", "xchar_state": "IDLE"}
        want_s = {"provider": "xprt", "id": sid, "role": "server", "state": "ESTABLISHED",
                  "calls_recv": NCALLS, "replies": NCALLS, "short_msgs": NCALLS,
                  "dropped": 0, "errors_sent": 0, "credit_max": 16, "credit_target": 16,
                  "credit_last_grant": 16, "credit_active": 0, "credit_posted": 24,
                  "excess_calls": 0, "recvs_posted": 24, "vers_state": "V1"}
        # the client posts 4 receives beyond its 32 credits for messages a
        # server sends unasked; the server posts 8 beyond its grant; its reply Sends are
        # unsignaled, one in 16 retires those before it
        sq = s.get("sq_outstanding")
        check(isinstance(sq, int) and 0 <= sq < 16, "server sq_outstanding = %r, want 0..15" % sq)
        for name, got, want in (("client", c, want_c), ("server", s, want_s)):
            for k, v in want.items():
                check(got.get(k) == v, "%s %s = %r, want %r" % (name, k, got.get(k), v))
        check(c.get("wrs", 0) >= NCALLS and c.get("doorbells", 0) >= 1 and
              c.get("polls", 0) > 0, "client work requests and doorbells: %s" % c)
        check(query(sock, "/rpcrdma/conn,999999", maxlen)["/rpcrdma/conn"] is None,
              "unknown connection: null")

        proc.stdin.write("close\n")
        proc.stdin.flush()
        check(proc.stdout.readline().strip() == "CLOSED", "closed")
        conns = query(sock, "/rpcrdma/conns", maxlen)["/rpcrdma/conns"]
        check(conns == [], "no connection listed after destroy: %s" % conns)
        sock.close()
        proc.stdin.close()
        rc = proc.wait(timeout=20)
        check(rc == 0, "server exit status %d" % rc)
    print("xprt telemetry: %d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
