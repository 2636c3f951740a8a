#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Telemetry of processes started by rpcrdma_mempool_eal_init(), the EAL
start-up of every rpcrdma program: on by default under EAL's default file
prefix, read with DPDK's own client (dpdk-telemetry.py fed on stdin), off
with RPCRDMA_TELEMETRY=0.

1. TELEMETRY_SERVER - (a runtime poller running 64 calls to completion, a
   pool with 3 buffers taken, connections 7 and 9): /rpcrdma/lcores,
   /rpcrdma/pools and /rpcrdma/conns checked through dpdk-telemetry.py.
2. The same with RPCRDMA_TELEMETRY=0: no socket.
3. rpcrdma-perf --server @name: the socket answers, /info names its pid,
   /rpcrdma/conns is a list (the engine's connections), /rpcrdma/pools has
   its pool set.

usage: eal_telemetry_test.py TELEMETRY_SERVER RPCRDMA_PERF
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

CLIENT = "/usr/bin/dpdk-telemetry.py"
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what, file=sys.stderr)


def client(env, cmds):
    """dpdk-telemetry.py with the default prefix; one JSON object per command."""
    out = subprocess.run([sys.executable, CLIENT], input="".join(c + "\n" for c in cmds),
                         capture_output=True, text=True, env=env, timeout=20)
    lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
    check(len(lines) == len(cmds), "dpdk-telemetry.py answered %d of %d: %r %r" %
          (len(lines), len(cmds), out.stdout, out.stderr))
    return [json.loads(l) for l in lines] + [{}] * (len(cmds) - len(lines))


def start_server(server, env):
    proc = subprocess.Popen([server, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env=env, text=True)
    line = proc.stdout.readline()
    if line.strip() != "READY":
        proc.kill()
        proc.wait()
        return None, proc.returncode
    return proc, 0


def stop_server(proc):
    proc.stdin.close()
    rc = proc.wait(timeout=20)
    check(rc == 0, "server exit status %d" % rc)


def test_server(server, rundir):
    env = dict(os.environ, RUNTIME_DIRECTORY=rundir)
    env.pop("RPCRDMA_TELEMETRY", None)
    proc, rc = start_server(server, env)
    if proc is None:
        return rc if rc == 77 else 1
    sock = os.path.join(rundir, "dpdk", "rte", "dpdk_telemetry.v2")
    check(os.path.exists(sock), "socket at " + sock)
    lc, pools, conns, c7 = client(env, ["/rpcrdma/lcores", "/rpcrdma/pools",
                                        "/rpcrdma/conns", "/rpcrdma/conn,7"])
    lc = lc.get("/rpcrdma/lcores", {})
    check(lc.get("tsc_hz", 0) > 0, "tsc_hz in %s" % lc)
    roles = {k: v for k, v in lc.items() if k != "tsc_hz"}
    check(len(roles) == 1, "one role lcore: %s" % roles)
    for k, v in roles.items():
        # run to completion: the poller ran every call itself
        check(k.isdigit() and v.get("role") == "poller" and v.get("runtime") == "rt",
              "lcore %s: %s" % (k, v))
        check(v.get("inline_runs") == 64 and v.get("items") == 0 and
              v.get("iterations", 0) > 0 and v.get("busy_cycles", 0) > 0 and
              v.get("idle_cycles", 0) > 0, "poller counters %s" % v)
    p = pools.get("/rpcrdma/pools", {}).get("tel_inline", {})
    check(p.get("size") == 64 and p.get("in_use") == 3 and p.get("free") == 61 and
          p.get("buf_size") == 1024, "pool tel_inline: %s" % p)
    check(conns == {"/rpcrdma/conns": [7, 9]}, "conns %s" % conns)
    check(c7.get("/rpcrdma/conn", {}).get("credits_granted") == 32, "conn 7 %s" % c7)
    stop_server(proc)

    # RPCRDMA_TELEMETRY=0: no socket (a fresh runtime directory)
    off = os.path.join(rundir, "off")
    os.mkdir(off)
    env = dict(env, RUNTIME_DIRECTORY=off, RPCRDMA_TELEMETRY="0")
    proc, rc = start_server(server, env)
    check(proc is not None, "server with RPCRDMA_TELEMETRY=0 starts (%d)" % rc)
    if proc is not None:
        sockdir = os.path.join(off, "dpdk", "rte")
        found = os.listdir(sockdir) if os.path.isdir(sockdir) else []
        check(not any(f.startswith("dpdk_telemetry") for f in found),
              "no socket with RPCRDMA_TELEMETRY=0: %s" % found)
        stop_server(proc)
    return 0


def test_perf(perf, rundir):
    env = dict(os.environ, RUNTIME_DIRECTORY=rundir)
    env.pop("RPCRDMA_TELEMETRY", None)
    name = "@rpcrdma-teltest-%d" % os.getpid()
    proc = subprocess.Popen([perf, "--server", name], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, text=True)
    sock = os.path.join(rundir, "dpdk", "rte", "dpdk_telemetry.v2")
    for _ in range(200):
        if os.path.exists(sock) or proc.poll() is not None:
            break
        time.sleep(0.05)
    if proc.poll() is not None:
        out, err = proc.communicate()
        check(False, "rpcrdma-perf --server exited %d: %s" % (proc.returncode, err))
        return
    # the commands are registered before the socket, the server's pools after
    # it: wait for them, bounded (a loaded machine can take more than 0.2 s)
    for _ in range(100):
        info, cmds, conns, pools = client(env, ["/info", "/", "/rpcrdma/conns",
                                                "/rpcrdma/pools"])
        if len(pools.get("/rpcrdma/pools", {})) >= 2 or proc.poll() is not None:
            break
        time.sleep(0.1)
    check(info.get("/info", {}).get("pid") == proc.pid, "/info names rpcrdma-perf: %s" % info)
    cmds = cmds.get("/", [])
    for c in ("/rpcrdma/lcores", "/rpcrdma/pools", "/rpcrdma/conns"):
        check(c in cmds, "rpcrdma-perf has %s" % c)
    check(isinstance(conns.get("/rpcrdma/conns"), list), "rpcrdma-perf conns %s" % conns)
    # its pool set: the inline pool and the chunk classes, each with its figures
    plist = pools.get("/rpcrdma/pools", {})
    check(len(plist) >= 2 and all("in_use" in v and "free" in v for v in plist.values()),
          "rpcrdma-perf pools %s" % pools)
    proc.send_signal(signal.SIGTERM)
    try:
        proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        check(False, "rpcrdma-perf --server did not stop on SIGTERM")
    check(proc.returncode == 0, "rpcrdma-perf --server exit status %d" % proc.returncode)
    check(not os.path.exists(sock), "socket removed at exit")


def main():
    if not os.path.exists(CLIENT):
        print("SKIP: %s is not installed" % CLIENT)
        return 77
    with tempfile.TemporaryDirectory() as rundir:
        rc = test_server(sys.argv[1], rundir)
        if rc:
            print("SKIP: the EAL does not start here" if rc == 77 else "server failed")
            return rc
    with tempfile.TemporaryDirectory() as rundir:
        test_perf(sys.argv[2], rundir)
    print("eal telemetry: %d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
