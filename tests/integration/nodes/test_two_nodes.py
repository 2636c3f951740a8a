#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The stack across a network: one side of a two-node run (two guests joined
by an Ethernet link, rxe1 on each; scripts/vm/two-nodes.sh starts them).

    test_two_nodes.py server|client BUILD SERVER_IP DEVARGS

server  runs, one after the other, an rpcrdma-perf --server for each perf
        run of the client and then two blockstore-servers (--once; the second
        with --workers 2), each on its own port of SERVER_IP; each must exit 0
        having answered no call with an error, every buffer back
client  connects to each in turn (retrying while the server starts):
        rpcrdma-perf --client in every mode, with the counts asked for, 0
        errors, in version 1 and in version 2; blockstore-client writes a file and
        reads it back byte for byte, then --verify 100
Both print one line per run and exit 1 if any check failed.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

ROLE, BUILD, SERVER_IP, DEVARGS = sys.argv[1:5]
PERF = os.path.join(BUILD, "rpcrdma-perf")
BS_SERVER = os.path.join(BUILD, "blockstore-server")
BS_CLIENT = os.path.join(BUILD, "blockstore-client")
DEV = ["--pmd", "verbs", "--devargs", DEVARGS]
PORT = 21100
MiB = 1 << 20
# name, client options, calls asked for: every mode, each op, sizes across the
# chunk classes; counts small (the guests are emulated, and two share the CPUs)
PERF_RUNS = [
    ("lat null", ["--mode", "lat", "--count", "200"], 200),
    ("iops null", ["--mode", "iops", "--depth", "16", "--count", "2000"], 2000),
    ("bw read 4k", ["--mode", "bw", "--op", "read", "--size", "4k", "--count", "500"], 500),
    ("bw write 4k", ["--mode", "bw", "--op", "write", "--size", "4k", "--count", "500"], 500),
    ("bw read 64k", ["--mode", "bw", "--op", "read", "--size", "64k", "--count", "300"], 300),
    ("bw write 64k", ["--mode", "bw", "--op", "write", "--size", "64k", "--count", "300"],
     300),
    ("bw read 1m", ["--mode", "bw", "--op", "read", "--size", "1m", "--depth", "4",
                    "--count", "40"], 40),
    ("bw write 1m", ["--mode", "bw", "--op", "write", "--size", "1m", "--depth", "4",
                     "--count", "40"], 40),
    ("lat null v2", ["--mode", "lat", "--count", "200", "--version", "2"], 200),
    ("bw write 64k v2", ["--mode", "bw", "--op", "write", "--size", "64k", "--count", "300",
                         "--version", "2"], 300),
]
BS_RUNS = [("blockstore", []), ("blockstore --workers 2", ["--workers", "2"])]
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what, file=sys.stderr, flush=True)
    return cond


def say(msg):
    print("%s: %s" % (ROLE, msg), flush=True)


def serve(name, cmd, want, timeout=600):
    """Run one server to its end; check its exit and that @want is in its output."""
    t = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        check(False, "%s: the server did not end in %d s" % (name, timeout))
        return
    ok = check(p.returncode == 0, "%s: server exit %d %r" % (name, p.returncode,
                                                           p.stderr[-2000:]))
    ok = check(want in p.stdout, "%s: server output %r, want %r" % (name, p.stdout, want)) and ok
    say("%s: %s in %.0f s: %s" % (name, "ok" if ok else "FAILED", time.monotonic() - t,
                                 p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""))


def connect(name, cmd, timeout=600):
    """Run a client, again while the server is not yet listening: (rc, out, err)."""
    end = time.monotonic() + timeout
    while True:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if p.returncode == 0 or "cannot connect" not in p.stderr or time.monotonic() > end:
            return p.returncode, p.stdout, p.stderr
        time.sleep(1)


def server():
    port = PORT
    for name, opts, _ in PERF_RUNS:
        # a server with --version 2 takes both versions; the default, version 1 only
        vers = ["--version", "2"] if "--version" in opts else []
        serve(name, [PERF, "--server", "%s:%d" % (SERVER_IP, port)] + vers + DEV,
              ", 0 answered with an error")
        port += 1
    for name, opts in BS_RUNS:
        serve(name, [BS_SERVER, "--listen", "%s:%d" % (SERVER_IP, port), "--size", "64m",
                     "--once"] + opts + DEV, " 0 errors;")
        port += 1


def client():
    port = PORT
    with tempfile.TemporaryDirectory(dir=BUILD) as d:
        for name, opts, calls in PERF_RUNS:
            res = os.path.join(d, "perf.json")
            rc, out, err = connect(name, [PERF, "--client", "%s:%d" % (SERVER_IP, port),
                                          "--json", res, "--quiet"] + DEV + opts)
            port += 1
            if not check(rc == 0, "%s: client exit %d %r" % (name, rc, err[-2000:])):
                continue
            doc = json.load(open(res))
            version = 2 if "--version" in opts else 1
            check(doc["calls"] == calls and doc["errors"] == 0 and doc["pmd"] == "verbs" and
                  doc["topology"] == "client" and doc["version"] == version,
                  "%s: calls %d (want %d), errors %d, pmd %s, topology %s, version %d" %
                  (name, doc["calls"], calls, doc["errors"], doc["pmd"], doc["topology"],
                   doc["version"]))
            say("%s: %d calls, %d errors, p50 %.0f us (emulated)" %
                (name, doc["calls"], doc["errors"], doc["latency_ns"]["p50"] / 1e3))
        data = os.urandom(3 * MiB + 3)
        src, dst = os.path.join(d, "in"), os.path.join(d, "out")
        open(src, "wb").write(data)
        for name, _ in BS_RUNS:
            if os.path.exists(dst):
                os.unlink(dst)
            rc, out, err = connect(name, [BS_CLIENT, "--connect", "%s:%d" % (SERVER_IP, port),
                                          "--write", "4096:" + src,
                                          "--read", "4096:%d:%s" % (len(data), dst),
                                          "--verify", "100", "--seed", "5"] + DEV)
            port += 1
            ok = check(rc == 0, "%s: client exit %d %r" % (name, rc, err[-2000:]))
            ok = check(os.path.exists(dst) and open(dst, "rb").read() == data,
                       "%s: %d bytes read back byte for byte" % (name, len(data))) and ok
            ok = check(" 0 mismatches, 0 errors" in out, "%s: --verify %r" % (name, out)) and ok
            say("%s: %s: %s" % (name, "ok" if ok else "FAILED",
                                out.strip().splitlines()[-1] if out.strip() else ""))


def main():
    with open("/proc/sys/vm/nr_hugepages", "w") as f:
        f.write("256")
    {"server": server, "client": client}[ROLE]()
    say("%d failed" % failures)
    return 1 if failures else 0


sys.exit(main())
