#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The block store example (apps/blockstore-*.c) end to end, server and
client in two processes over the shm PMD, or over the verbs PMD on a real
device (the hw suite): RPCRDMA_TEST_PMD=verbs, the server at
RPCRDMA_TEST_VERBS_ADDR with RPCRDMA_TEST_VERBS_DEVARGS.

    test_blockstore.py options|io|workers|capture|notify|many SERVER CLIENT DECODE [TSHARK]
    test_blockstore.py drc SERVER DRC_PEER
    test_blockstore.py perf_capture PERF DECODE

options       --help exits 0 with a man page; bad options exit 2 with one line
              (--drc-entries out of range among them)
io            getattr; write then read back byte for byte (4 KiB, 64 KiB, and
              sizes crossing the chunk classes and the 1 MiB call size);
              out-of-range read and write answered BS_ERR_RANGE (exit 1) and
              counted by the server; --verify 200; the server's counters and
              its clean exit on SIGTERM
workers       the server with --workers 2 (the procedures on worker lcores):
              write then read back byte for byte, an out-of-range READ,
              --verify 100 with a second client connected, GETATTR's
              counters, every call run by the workers, a clean exit
capture       a session captured on both sides: rpcrdma-decode --json --pcap
              and tshark (skipped, exit 77, when absent) find every call and
              reply, transport XID == RPC XID, read chunks on WRITE calls and
              write chunks on READ calls, and the server's RDMA Writes and
              Reads carry the bytes moved
notify        NOTIFY callbacks (backward-direction calls): a watcher gets one
              line per WRITE of another client, with its offset, count and
              the server's write counter; a subscribed writer is never told
              of its own WRITEs; a watcher short of its count times out (exit
              1); the server's summary counts the NOTIFYs; its capture holds
              each NOTIFY as a CALL of the callback program from the server
              and the client's REPLY with the same XID; the same through
              --workers 2; a stopped watcher: NOTIFYs beyond its 8 slots are
              skipped and counted, the server never waits; and stopped for
              longer than --notify-timeout: the 8 it was sent fail. Over
              verbs, the first part only (the captured session)
drc           the duplicate request cache: a bare client (drc_peer.c) sends a
              WRITE, the same XID again on its connection and on a new one
              after a reconnect, and SUBSCRIBE likewise: each WRITE ran once
              (GETATTR), the replies are byte-identical, and the server's
              summary counts the hits, misses and stores; the same with
              --workers 2 (the cache on worker lcores); with --drc-entries 0
              every copy runs (the counts the peer checks do change)
perf_capture  rpcrdma-perf --capture: a short run writes a capture that
              rpcrdma-decode reads, one message per call and reply
many          more clients than the old limit of 16: 20 clients at once, each
              writing its own 64 KiB and reading it back byte for byte; the
              server says each arrival and leave on stdout ("client N
              connected from PEER (K connected now)", PEER each client's
              pid on shm, "client N left after C calls");
              --max-connections 2: two watchers connected, a third client
              refused (one line on the server's stderr, the client fails),
              one watcher killed (SIGKILL) frees its slot for the next
              client; a clean exit with the counts
"""
import json
import os
import re
import random
import signal
import struct
import subprocess
import time
import sys
import tempfile

GROUP = sys.argv[1]
GROUPS = ["options", "io", "workers", "capture", "notify", "perf_capture", "drc", "many"]
PMD = os.environ.get("RPCRDMA_TEST_PMD", "shm")
VERBS_HOST = os.environ.get("RPCRDMA_TEST_VERBS_ADDR", "").rsplit(":", 1)[0]
VERBS_DEVARGS = os.environ.get("RPCRDMA_TEST_VERBS_DEVARGS", "")
# the guest is emulated: everything takes longer there
SLOW = 4 if PMD == "verbs" else 1
# how long a --watch that should get all its NOTIFYs may wait for them, and
# the server's --notify-timeout then (a stall of the machine loses no NOTIFY)
WATCH_S = 120 * SLOW
failures = 0
checks = 0
PROG = 0x2000b10c
CB_PROG = 0x2000b10d
MiB = 1 << 20


def check(cond, what):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAIL: " + what, file=sys.stderr)
    return cond


# The EAL's one-line warning on a machine without free hugepages
# (rpcrdma_mempool_eal_init()): expected there, and no other message.
NO_HUGE_WARNING = re.compile(r"^rpcrdma: warning: .* running the EAL with --no-huge\n",
                             re.MULTILINE)


def quiet(err):
    """stderr less the EAL's no-hugepages warning (str or bytes)."""
    if isinstance(err, bytes):
        return NO_HUGE_WARNING.sub("", err.decode(errors="replace")).encode()
    return NO_HUGE_WARNING.sub("", err)


def argv(exe, args):
    """The command line of @exe: the project's programs get the PMD's options."""
    if PMD == "shm" or not os.path.basename(exe).startswith(("blockstore-", "rpcrdma-perf")):
        return [exe] + list(args)
    return [exe] + list(args) + ["--pmd", "verbs"] + (["--devargs", VERBS_DEVARGS]
                                                       if VERBS_DEVARGS else [])


def run(exe, args, timeout=60):
    p = subprocess.run(argv(exe, args), capture_output=True, text=True,
                       timeout=timeout * SLOW)
    return p.returncode, p.stdout, quiet(p.stderr)


def popen(exe, args):
    return subprocess.Popen(argv(exe, args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


servers = 0


class Server:
    """A blockstore-server in the background, on its own abstract socket (shm)
    or its own port (verbs)."""

    def __init__(self, exe, name, args=()):
        global servers
        if PMD == "shm":
            self.addr = "@bs-test-%d-%s" % (os.getpid(), name)
        else:
            servers += 1
            self.addr = "%s:%d" % (VERBS_HOST, 22000 + 20 * GROUPS.index(GROUP) + servers)
            if "--max-connections" not in args:
                # the guest is emulated: pools for the few clients a test makes, not
                # the default 64 (128 inline buffers each to create and register)
                args = list(args) + ["--max-connections", "8"]
        self.p = popen(exe, ["--listen", self.addr] + list(args))

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if self.p.poll() is None and sig is not None:
            self.p.send_signal(sig)
        try:
            out, err = self.p.communicate(timeout=timeout * SLOW)
        except subprocess.TimeoutExpired:
            self.p.kill()
            out, err = self.p.communicate()
            check(False, "server did not exit")
        return self.p.returncode, out, quiet(err)


def attrs(line):
    """'size 1 block_size 2 ...' -> {'size': 1, ...}"""
    w = line.split()
    return {w[i]: int(w[i + 1]) for i in range(0, len(w) - 1, 2)}


# ------------------------------------------------------------ options

def test_options(server, client):
    for exe, words in ((server, ["--listen", "--size", "--once", "--workers N", "--capture", "--log-level",
                                 "NOTIFY", "SUBSCRIBE", "0x2000b10d", "--drc-entries N",
                                 "duplicate request cache", "--notify-timeout SECONDS"]),
                       (client, ["--connect", "--getattr", "--write OFFSET:FILE",
                                 "--read OFFSET:COUNT:FILE", "--verify N", "--capture",
                                 "NOTIFY", "--watch N", "0x2000b10d"])):
        rc, out, err = run(exe, ["--help"])
        check(rc == 0 and err == "", "%s --help: exit %d" % (exe, rc))
        for w in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS"] + words:
            check(w in out, "%s --help mentions %s" % (os.path.basename(exe), w))
        rc, hout, err = run(exe, ["-h"])
        check(rc == 0 and hout == out and err == "", "%s -h is --help: exit %d" % (exe, rc))
    bad = [
        (server, []),
        (server, ["--listen"]),
        (server, ["--listen", "@x", "--size", "12q"]),
        (server, ["--listen", "@x", "--size", "2g"]),
        (server, ["--listen", "@x", "--size", "10000"]),        # not a multiple of 4096
        (server, ["--listen", "@x", "--block-size", "1000"]),
        (server, ["--listen", "@x", "--pmd", "tcp"]),
        (server, ["--listen", "@x", "--bogus"]),
        (server, ["--listen", "@x", "extra"]),
        (server, ["--listen", "@x", "--workers", "x"]),
        (server, ["--listen", "@x", "--workers", "17"]),
        (server, ["--listen", "@x", "--workers", "-1"]),
        (server, ["--listen", "@x", "--workers"]),
        (server, ["--listen", "@x", "--drc-entries", "1048577"]),
        (server, ["--listen", "@x", "--drc-entries", "-1"]),
        (server, ["--listen", "@x", "--drc-entries", "x"]),
        (server, ["--listen", "@x", "--drc-entries"]),
        (server, ["--listen", "@x", "--notify-timeout", "0"]),
        (server, ["--listen", "@x", "--notify-timeout", "3601"]),
        (server, ["--listen", "@x", "--notify-timeout", "1s"]),
        (server, ["--listen", "@x", "--log-level", "rpcrdma.pmd"]),
        (server, ["--listen", "@x", "--log-level", "rpcrdma.pmd:loud"]),
        (server, ["--listen", "@x", "--log-level", ":info"]),
        (server, ["--listen", "@x", "--log-level", "rpcrdma.pmd:9"]),
        (client, ["--connect", "@x", "--getattr", "--log-level", "rpcrdma.pmd:"]),
        (client, []),
        (client, ["--connect", "@x"]),                          # no action
        (client, ["--getattr"]),                                # no --connect
        (client, ["--connect", "@x", "--write", "12"]),
        (client, ["--connect", "@x", "--write", "-1:f"]),
        (client, ["--connect", "@x", "--write", "1:"]),
        (client, ["--connect", "@x", "--read", "0:f"]),
        (client, ["--connect", "@x", "--read", "0:1x:f"]),
        (client, ["--connect", "@x", "--verify", "0"]),
        (client, ["--connect", "@x", "--verify"]),
        (client, ["--connect", "@x", "--getattr", "--timeout", "0"]),
        (client, ["--connect", "@x", "--getattr", "--nope"]),
        (client, ["--connect", "@x", "--watch", "0"]),
        (client, ["--connect", "@x", "--watch", "x"]),
        (client, ["--connect", "@x", "--watch", "-3"]),
        (client, ["--connect", "@x", "--watch", "1000001"]),
        (client, ["--connect", "@x", "--watch"]),
        (client, ["--connect", "@x", "--watch", "1", "--getattr"]),   # not the last action
        (client, ["--connect", "@x", "--watch", "1", "--watch", "2"]),
        (client, ["--watch", "1"]),                                   # no --connect
    ]
    for exe, args in bad:
        rc, out, err = run(exe, args)
        name = os.path.basename(exe)
        check(rc == 2, "%s %s: exit %d, want 2" % (name, args, rc))
        check(err.count("\n") == 1 and err.startswith(name + ": "),
              "%s %s: one-line error, got %r" % (name, args, err))
        check(out == "", "%s %s: nothing on stdout" % (name, args))
    # --pmd verbs without a device: app_ep_open()'s clear error, exit 1
    if not os.path.isdir("/sys/class/infiniband"):
        for exe, args in ((server, ["--listen", "127.0.0.1:20049", "--pmd", "verbs"]),
                          (client, ["--connect", "127.0.0.1:20049", "--pmd", "verbs",
                                    "--getattr"])):
            rc, out, err = run(exe, args)
            name = os.path.basename(exe)
            check(rc == 1 and name + ": no RDMA device for --pmd verbs" in err,
                  "%s --pmd verbs without a device: exit %d %r" % (name, rc, err))


# ------------------------------------------------------------ io

def write_read_back(client, a, ios, who):
    """Write each (size, offset, src, dst, data) of @ios and read it back into
    dst: a client per size over shm; over verbs, where each process starts on
    an emulated CPU, one client for them all. Checks each exit and each byte;
    returns each size's client output."""
    outs = {}
    for group in ([[io] for io in ios] if PMD == "shm" else [ios]):
        args = ["--connect", a]
        for n, off, src, dst, _ in group:
            args += ["--write", "%d:%s" % (off, src), "--read", "%d:%d:%s" % (off, n, dst)]
        rc, out, err = run(client, args)
        check(rc == 0, "%swrite/read %r: exit %d %r" % (who, [io[0] for io in group], rc, err))
        for n, off, src, dst, data in group:
            outs[n] = out
            check(os.path.exists(dst) and open(dst, "rb").read() == data,
                  "%s%d bytes at %d read back byte for byte" % (who, n, off))
    return outs


def test_io(server, client):
    srv = Server(server, "io", ["--size", "16m", "--block-size", "512"])
    a = srv.addr
    try:
        rc, out, err = run(client, ["--connect", a, "--getattr"])
        check(rc == 0, "getattr: exit %d %r" % (rc, err))
        at = attrs(out.splitlines()[0]) if out else {}
        check(at.get("size") == 16 * MiB and at.get("block_size") == 512 and
              at.get("max_io") == MiB and at.get("reads") == 0 and at.get("errors") == 0,
              "getattr values %r" % at)

        rng = random.Random(7)
        sizes = [4096, 65536, 1, 4095, 65536 + 1, 200000, MiB - 4, MiB, MiB + 12345,
                 3 * MiB + 3]
        with tempfile.TemporaryDirectory() as d:
            off = 0
            ios = []
            for n in sizes:
                src = os.path.join(d, "in-%d" % n)
                dst = os.path.join(d, "out-%d" % n)
                data = bytes(rng.getrandbits(8) for _ in range(min(n, 4096)))
                data = (data * (n // len(data) + 1))[:n]
                # vary the bytes past the first page too: a stale chunk would show
                data = bytearray(data)
                for i in range(0, n, 4093):
                    data[i] = rng.getrandbits(8)
                open(src, "wb").write(data)
                ios.append((n, off, src, dst, bytes(data)))
                off += n + 4095 - (n + 4095) % 4096 + 100   # unaligned offsets too
            outs = write_read_back(client, a, ios, "")
            for n, off, src, _, _ in ios:
                calls = (n + MiB - 1) // MiB
                check("wrote %d bytes at %d from %s (%d calls)" % (n, off, src, calls) in outs[n],
                      "write %d: %r" % (n, outs[n]))

            # data written by one client is read by the next, to standard output
            src0 = open(os.path.join(d, "in-4096"), "rb").read()
            p = subprocess.run(argv(client, ["--connect", a, "--read", "0:4096:-"]),
                               capture_output=True, timeout=60 * SLOW)
            check(p.returncode == 0 and p.stdout == src0, "stdout carries the data")
            check(quiet(p.stderr).startswith(b"read 4096 bytes at 0 into - (1 calls)"),
                  "messages on stderr with --read to -: %r" % p.stderr)
            # the PMD's informational messages on demand, on stderr
            rc, out, err = run(client, ["--connect", a, "--getattr", "--log-level",
                                        "rpcrdma.*:info"])
            check(rc == 0 and out.startswith("size "), "--log-level: exit %d %r" % (rc, out))
            if PMD == "verbs":
                check(re.search(r"^rpcrdma pmd verbs: .*: first QP \d+ created on the .* send "
                                r"path$", err, re.MULTILINE) is not None,
                      "--log-level rpcrdma.*:info: the verbs PMD says how it runs: %r" % err)

            # out of range: an error status in the result, exit 1, the server lives on
            one = os.path.join(d, "in-1")
            ranges = (
                    (["--read", "16m:1:%s" % os.path.join(d, "x")],
                     "read 1 bytes at 16777216: BS_ERR_RANGE"),
                    (["--read", "%d:4096:%s" % (16 * MiB - 4095, os.path.join(d, "x"))],
                     "read 4096 bytes at 16773121: BS_ERR_RANGE"),
                    (["--read", "0xffffffffffff:1:%s" % os.path.join(d, "x")],
                     "BS_ERR_RANGE"),
                    (["--write", "16m:%s" % one], "write 1 bytes at 16777216: BS_ERR_RANGE"),
                    (["--write", "%d:%s" % (16 * MiB - 4095, os.path.join(d, "in-4096"))],
                     "write 4096 bytes at 16773121: BS_ERR_RANGE"))
            if PMD == "verbs":  # the server's checks do not depend on the PMD
                ranges = ranges[::2]
            for args, msg in ranges:
                rc, out, err = run(client, ["--connect", a] + args)
                check(rc == 1 and msg in err, "%s: exit %d %r" % (args, rc, err))
            # the last byte of the device is in range
            rc, out, err = run(client, ["--connect", a, "--write", "%d:%s" % (16 * MiB - 1, one),
                                        "--read", "%d:1:%s" % (16 * MiB - 1,
                                                              os.path.join(d, "last"))])
            check(rc == 0 and open(os.path.join(d, "last"), "rb").read() ==
                  open(one, "rb").read(), "the last byte: %d %r" % (rc, err))

        rc, out, err = run(client, ["--connect", a, "--verify", "200", "--seed", "11",
                                    "--getattr"], timeout=120)
        check(rc == 0, "verify 200: exit %d %r" % (rc, err))
        lines = out.splitlines()
        check(len(lines) == 2 and lines[0].startswith(
            "verify: seed 11, 200 rounds, 200 writes, 200 reads, ") and
            lines[0].endswith(" 0 mismatches, 0 errors"), "verify output %r" % out)
        at = attrs(lines[1]) if len(lines) == 2 else {}
        check(at.get("errors") == len(ranges), "the server counted %d errors: %r" %
              (len(ranges), at))
        check(at.get("writes") == 200 + 1 + sum((n + MiB - 1) // MiB for n in sizes),
              "the server counted the writes: %r" % at)
    finally:
        rc, out, err = srv.stop()
    check(rc == 0, "server exit %d %r" % (rc, err))
    check("errors" in out and "connection(s)" in out and quiet(err) == "",
          "server summary %r %r" % (out, err))


# ------------------------------------------------------------ workers

def test_workers(server, client):
    srv = Server(server, "wk", ["--size", "8m", "--workers", "2"])
    a = srv.addr
    try:
        rng = random.Random(5)
        with tempfile.TemporaryDirectory() as d:
            off = 0
            ios = []
            for n in (1, 4096, 65537, MiB + 12345):
                src = os.path.join(d, "in-%d" % n)
                data = bytes(rng.getrandbits(8) for _ in range(n))
                open(src, "wb").write(data)
                ios.append((n, off, src, os.path.join(d, "out-%d" % n), data))
                off += n + 1000
            write_read_back(client, a, ios, "workers: ")
            rc, out, err = run(client, ["--connect", a, "--read",
                                        "8m:1:%s" % os.path.join(d, "x")])
            check(rc == 1 and "BS_ERR_RANGE" in err, "workers: out of range %d %r" % (rc, err))

            # two clients at once, each on its own range: 10 writes and reads back
            procs = []
            for k in range(2):
                src = os.path.join(d, "c%d" % k)
                data = bytes(rng.getrandbits(8) for _ in range(100000 + k))
                open(src, "wb").write(data)
                args = ["--connect", a]
                for i in range(10):
                    args += ["--write", "%d:%s" % ((4 + 2 * k) * MiB, src), "--read",
                             "%d:%d:%s" % ((4 + 2 * k) * MiB, len(data),
                                           os.path.join(d, "c%d-%d" % (k, i)))]
                procs.append((popen(client, args), k, data))
            for p, k, data in procs:
                out, err = p.communicate(timeout=120 * SLOW)
                check(p.returncode == 0, "workers: client %d exit %d %r" %
                      (k, p.returncode, err))
                check(all(open(os.path.join(d, "c%d-%d" % (k, i)), "rb").read() == data
                          for i in range(10)), "workers: client %d read its data back" % k)

        rc, out, err = run(client, ["--connect", a, "--verify", "100", "--seed", "9"],
                           timeout=120)
        check(rc == 0 and out.strip().endswith(" 0 mismatches, 0 errors"),
              "workers: verify 100: exit %d %r %r" % (rc, out, err))
    finally:
        rc, out, err = srv.stop()
    check(rc == 0, "workers: server exit %d %r" % (rc, err))
    # 1 + 1 + 1 + 2 writes of the files, 2 x 10 of the two clients, 100 of --verify
    check(" 125 writes " in out and " 1 errors;" in out,
          "workers: the server counted the writes and the error: %r" % out)
    m = re.search(r"; (\d+) calls, (\d+) run on 2 worker\(s\)", out)
    check(m is not None and int(m.group(1)) > 250 and m.group(1) == m.group(2),
          "workers: every call run on the workers: %r" % out)


# ------------------------------------------------------------ capture

def decode_pcap(decode, path):
    p = subprocess.run([decode, "--json", "--pcap", path], capture_output=True, text=True,
                       timeout=60)
    check(p.returncode == 0, "rpcrdma-decode --pcap %s: exit %d %r" % (path, p.returncode,
                                                                       p.stderr[:200]))
    msgs = [json.loads(line) for line in p.stdout.splitlines()]
    check(all("error" not in m for m in msgs), "rpcrdma-decode: every message decodes")
    return msgs


def check_decoded(msgs, who, want, missing=0):
    """Every call and reply (but @missing calls); XIDs; chunks per procedure.
    want: {proc: calls}."""
    calls, replies = {}, {}
    for m in msgs:
        r = m.get("rpc")
        if not check(r is not None and r["xid"] == m["xid"],
                     "%s: transport XID == RPC XID: %r" % (who, m)):
            continue
        if r["type"] == "CALL":
            check(r["prog"] == PROG and r["vers"] == 1, "%s: program %r" % (who, r))
            calls[m["xid"]] = m
        else:
            check(r.get("accept_stat") == "SUCCESS", "%s: reply %r" % (who, r))
            replies[m["xid"]] = m
    check(set(calls) <= set(replies) and len(replies) - len(calls) == missing,
          "%s: every call has its reply, %d calls missing: %d, %d" %
          (who, missing, len(calls), len(replies)))
    procs = {}
    for x, m in calls.items():
        p = m["rpc"]["proc"]
        procs[p] = procs.get(p, 0) + 1
        if p == 3:      # WRITE: 4 KiB and more leave through a read chunk
            check(len(m["reads"]) == 1 and len(m["writes"]) == 0,
                  "%s: WRITE call xid %#x has a read chunk: %r" % (who, x, m["reads"]))
        elif p == 2:    # READ: the data comes back through a write chunk
            check(len(m["writes"]) == 1 and len(m["reads"]) == 0,
                  "%s: READ call xid %#x has a write chunk" % (who, x))
            check(len(replies.get(x, {}).get("writes", [])) == 1,
                  "%s: READ reply xid %#x names the write chunk" % (who, x))
        else:
            check(not m["reads"] and not m["writes"], "%s: proc %d has no chunks" % (who, p))
    check(procs == want, "%s: calls per procedure %r, want %r" % (who, procs, want))
    return calls, set(replies) - set(calls)


TSHARK_FIELDS = ["frame.number", "ip.src", "infiniband.bth.opcode", "rpcordma.xid",
                 "rpcordma.msg_type", "rpcordma.reads_count", "rpcordma.writes_count",
                 "rpc.xid", "rpc.msgtyp", "rpc.program", "infiniband.reth.dmalen"]


def num(s):
    s = s.split(",")[0]
    return int(s, 0) if s else None


def check_tshark(tshark, path, who, calls, orphans, caller, rdma):
    """calls: xid -> decoded call; orphans: XIDs of replies whose call is not
    in the capture; caller: ip.src of calls; rdma: expected RDMA bytes."""
    cmd = [tshark, "-n", "-r", path, "--enable-heuristic", "rpcrdma_infiniband",
           "-o", "infiniband.try_heuristic_first:TRUE", "-o", "rpc.dissect_unknown_programs:TRUE",
           "-T", "fields", "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in TSHARK_FIELDS:
        cmd += ["-e", f]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "%s: tshark exit %d" % (who, p.returncode))
    seen_call, seen_reply, rpc_calls, rpc_replies = set(), set(), set(), set()
    write_bytes = read_bytes = 0
    for line in p.stdout.splitlines():
        c = dict(zip(TSHARK_FIELDS, line.split("|")))
        op = num(c["infiniband.bth.opcode"])
        if op == 10:            # RDMA_WRITE_ONLY: READ data to the client
            write_bytes += num(c["infiniband.reth.dmalen"]) or 0
        elif op == 12:          # RDMA_READ_REQUEST: WRITE data from the client
            read_bytes += num(c["infiniband.reth.dmalen"]) or 0
        xid = num(c["rpcordma.xid"])
        if xid is None:
            continue
        check(xid in calls or xid in orphans, "%s: frame %s: XID %#x is no call's" % (who, c["frame.number"], xid))
        rxid = num(c["rpc.xid"])
        if rxid is not None:
            check(rxid == xid, "%s: frame %s: rpc.xid %#x != rpcordma.xid %#x" %
                  (who, c["frame.number"], rxid, xid))
        if c["ip.src"] == caller:
            seen_call.add(xid)
            proc = calls.get(xid, {}).get("rpc", {}).get("proc")
            reads, writes = num(c["rpcordma.reads_count"]), num(c["rpcordma.writes_count"])
            if proc == 3:
                check(reads == 1 and not writes, "%s: tshark: WRITE %#x reads_count %r" %
                      (who, xid, reads))
            elif proc == 2:
                check(writes == 1 and not reads, "%s: tshark: READ %#x writes_count %r" %
                      (who, xid, writes))
            if rxid is not None:
                check(num(c["rpc.msgtyp"]) == 0 and num(c["rpc.program"]) == PROG,
                      "%s: tshark: RPC call of the program: %r" % (who, c))
                rpc_calls.add(xid)
        else:
            seen_reply.add(xid)
            if rxid is not None:
                check(num(c["rpc.msgtyp"]) == 1, "%s: tshark: RPC reply %r" % (who, c))
                rpc_replies.add(xid)
    check(seen_call == set(calls) and seen_reply == set(calls) | orphans,
          "%s: tshark: every call (%d of %d) and reply (%d)" %
          (who, len(seen_call), len(calls), len(seen_reply)))
    # Wireshark 4.0 dissects the RPC message of a call with a read chunk only
    # after reassembling the chunk, which it does not do here (see the README).
    want_rpc = {x for x, m in calls.items() if not m["reads"]}
    check(want_rpc <= rpc_calls, "%s: tshark: RPC calls without a read chunk dissected" % who)
    check(rpc_replies == set(calls) | orphans, "%s: tshark: every RPC reply dissected" % who)
    if rdma is not None:
        check((write_bytes, read_bytes) == rdma, "%s: tshark: RDMA Write, Read bytes %r, "
              "want %r" % (who, (write_bytes, read_bytes), rdma))


def test_capture(server, client, decode, tshark):
    with tempfile.TemporaryDirectory() as d:
        spath, cpath = os.path.join(d, "server.pcapng"), os.path.join(d, "client.pcapng")
        srv = Server(server, "cap", ["--size", "4m", "--once", "--capture", spath])
        f4k, f64k = os.path.join(d, "4k"), os.path.join(d, "64k")
        open(f4k, "wb").write(os.urandom(4096))
        open(f64k, "wb").write(os.urandom(65536))
        rc, out, err = run(client, ["--connect", srv.addr, "--capture", cpath, "--getattr",
                                    "--write", "0:" + f4k, "--write", "8k:" + f64k,
                                    "--read", "0:4k:" + os.path.join(d, "r4k"),
                                    "--read", "8k:64k:" + os.path.join(d, "r64k")])
        check(rc == 0, "client: exit %d %r" % (rc, err))
        # 14 frames of calls, replies and RDMA data, and the engine's own
        # (a zero-length RDMA Write drains the send queue at disconnect)
        m = re.search(r"capture: (\d+) frames", out)
        check(m is not None and int(m.group(1)) >= 14 and " 0 drops, 0 untracked" in out,
              "client capture counters %r" % out)
        src, sout, serr = srv.stop(sig=None)
        check(src == 0, "server: exit %d %r" % (src, serr))
        # the QP is captured before its first receive: the NULL ping is there too
        check(" 0 drops, 0 untracked" in sout, "server capture counters %r" % sout)
        check(open(os.path.join(d, "r64k"), "rb").read() == open(f64k, "rb").read(),
              "64 KiB read back")

        # NULL, GETATTR x2 (the client's own, then --getattr), 2 WRITEs, 2 READs
        calls, orphans = check_decoded(decode_pcap(decode, cpath), "client capture",
                              {0: 1, 1: 2, 3: 2, 2: 2})
        scalls, sorphans = check_decoded(decode_pcap(decode, spath), "server capture",
                               {0: 1, 1: 2, 3: 2, 2: 2})
        check(set(scalls) | sorphans <= set(calls) and not orphans,
              "the server saw the client's XIDs")
        if tshark is None:
            print("tshark not found: the Wireshark checks are skipped")
            return 77
        check_tshark(tshark, cpath, "client capture", calls, orphans, "10.77.1.1", None)
        check_tshark(tshark, spath, "server capture", scalls, sorphans, "10.77.1.2",
                     (4096 + 65536, 4096 + 65536))
    return 0


# ------------------------------------------------------------ notify

def send_frames(path):
    """(ip.src, ip.dst, transport XID) of every RoCEv2 Send of a pcapng capture,
    in order: the messages rpcrdma-decode --pcap decodes, one for one."""
    data = open(path, "rb").read()
    out, off = [], 0
    if data[8:12] != b"\x4d\x3c\x2b\x1a":       # the section's byte-order magic
        check(False, "%s: a little-endian pcapng" % path)
        return out
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        if blen < 12 or off + blen > len(data):
            break
        if btype == 6:                              # Enhanced Packet Block
            caplen = struct.unpack_from("<I", data, off + 20)[0]
            pkt = data[off + 28:off + 28 + caplen]
            if len(pkt) >= 54 and pkt[12:14] == b"\x08\x00" and pkt[23] == 17:
                udp = 14 + (pkt[14] & 15) * 4
                op = pkt[udp + 8]                   # BTH opcode
                if struct.unpack_from(">H", pkt, udp + 2)[0] == 4791 and op in (0x04, 0x17):
                    pl = udp + 8 + 12 + (4 if op == 0x17 else 0)    # SEND_ONLY[_WITH_INV]
                    out.append((".".join(map(str, pkt[26:30])), ".".join(map(str, pkt[30:34])),
                                struct.unpack_from(">I", pkt, pl)[0]))
        off += blen
    return out


def notify_lines(out):
    return [l for l in out.splitlines() if l.startswith("notify:")]


def stop_all(bg, srv):
    """Kill the background clients still running (a stopped one is woken
    first), then stop the server: its (returncode, stdout, stderr)."""
    for p in bg:
        if p.poll() is None:
            p.send_signal(signal.SIGCONT)
            p.kill()
            p.communicate()
    return srv.stop()


def notify_counts(who, out):
    """The server summary's NOTIFY counters: (sent, answered, failed, skipped)."""
    m = re.search(r"; (\d+) notifies sent \((\d+) answered, (\d+) failed\), (\d+) skipped",
                  out)
    check(m is not None, "%s: the summary counts the NOTIFYs: %r" % (who, out))
    return tuple(int(g) for g in m.groups()) if m else (-1, -1, -1, -1)


def test_notify(server, client, decode):
    with tempfile.TemporaryDirectory() as d:
        files = {}
        for name, n in (("4k", 4096), ("70k", 70000), ("1", 1)):
            files[name] = os.path.join(d, name)
            open(files[name], "wb").write(os.urandom(n))
        bg = []

        def start(a, args):
            p = popen(client, ["--connect", a] + args)
            bg.append(p)
            return p

        def finish(p, timeout=60):
            try:
                out, err = p.communicate(timeout=timeout * SLOW)
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
                check(False, "client %r did not exit" % p.args)
            return p.returncode, out, quiet(err)

        def subscribed(p, n, who):
            first = p.stdout.readline()     # SUBSCRIBE answered: NOTIFYs come from now on
            check(first == "subscribed: watching for %d notifications\n" % n,
                  "%s subscribed: %r" % (who, first))

        def watch_and_write(a, who):
            """W watches for 3; X, subscribed too, writes 3 times and watches for 1;
            once W has its 3, Y (not subscribed) writes once: X's one NOTIFY."""
            # watchers end on their count: the timeouts only bound a failure, and are long,
            # since W, X and Y are three process starts (slow under the sanitizers)
            w = start(a, ["--watch", "3", "--timeout", str(WATCH_S)])
            subscribed(w, 3, who + ": watcher")
            x = start(a, ["--write", "0:" + files["4k"], "--write", "100000:" + files["70k"],
                          "--write", "5:" + files["4k"], "--watch", "1", "--timeout", str(WATCH_S)])
            rc, out, err = finish(w)
            check(rc == 0 and err == "", "%s: watcher: exit %d %r" % (who, rc, err))
            # one WRITE after the other: seq 1, 2, 3 (the order of the NOTIFYs is not promised)
            check(sorted(notify_lines(out)) == ["notify: 4096 bytes at 0 (write 1)",
                                                "notify: 4096 bytes at 5 (write 3)",
                                                "notify: 70000 bytes at 100000 (write 2)"],
                  "%s: watcher: the 3 WRITEs of the other client: %r" % (who, out))
            rc, out, err = run(client, ["--connect", a, "--write", "7777:" + files["4k"]])
            check(rc == 0 and "notify" not in out and "subscribed" not in out,
                  "%s: plain writer: exit %d, no NOTIFY %r %r" % (who, rc, out, err))
            rc, out, err = finish(x)
            check(rc == 0 and err == "", "%s: subscribed writer: exit %d %r" % (who, rc, err))
            check(out.count("wrote ") == 3, "%s: subscribed writer: its 3 writes %r" % (who, out))
            check(notify_lines(out) == ["notify: 4096 bytes at 7777 (write 4)"],
                  "%s: subscribed writer: no NOTIFY of its own 3 WRITEs, one of the other "
                  "client's: %r" % (who, out))

        # --- run to completion, captured
        spath = os.path.join(d, "server.pcapng")
        srv = Server(server, "ntf", ["--size", "16m", "--capture", spath,
                                     "--notify-timeout", str(WATCH_S)])
        a = srv.addr
        zl = []
        try:
            watch_and_write(a, "notify")
            # Z waits for 2 NOTIFYs and gets at most 1: exit 1, one line saying so
            z = start(a, ["--watch", "2", "--timeout", "3"])
            subscribed(z, 2, "short watcher")
            rc, out, err = run(client, ["--connect", a, "--write", "123:" + files["1"]])
            check(rc == 0, "the one write: exit %d %r" % (rc, err))
            rc, out, err = finish(z)
            zl = notify_lines(out)
            check(rc == 1, "short watcher: exit %d, want 1" % rc)
            check(err == "blockstore-client: --watch: %d of 2 notifications in 3 seconds\n"
                  % len(zl), "short watcher: one-line error %r with %d NOTIFYs" %
                  (err, len(zl)))
            check(zl in ([], ["notify: 1 bytes at 123 (write 5)"]),
                  "short watcher: at most the one WRITE: %r" % zl)
        finally:
            rc, sout, err = stop_all(bg, srv)
        check(rc == 0 and err == "", "server exit %d %r" % (rc, err))
        check(" 5 writes " in sout, "server: 5 writes %r" % sout)
        sent, answered, failed, skipped = notify_counts("server", sout)
        # W 3 and X 1 (each says goodbye with a NULL call: the server has its
        # answers), Z what it printed; W and X may be sent one after they left
        check(answered == 4 + len(zl) and skipped == 0 and sent == answered + failed and
              failed <= 2, "server: NOTIFYs sent %d, answered %d, failed %d, skipped %d" %
              (sent, answered, failed, skipped))

        # the capture: each NOTIFY a CALL of the callback program from the server
        # (10.77.C.1), answered by a REPLY of the client (10.77.C.2) with its XID
        msgs = decode_pcap(decode, spath)
        frames = send_frames(spath)
        check(len(frames) == len(msgs) and all(f[2] == m["xid"] for f, m in zip(frames, msgs)),
              "capture: one Send frame per decoded message: %d, %d" % (len(frames), len(msgs)))
        cb_calls, fwd_calls, replies = {}, {}, {}
        for f, m in zip(frames, msgs):
            r = m.get("rpc", {})
            if r.get("type") == "CALL" and r.get("prog") == CB_PROG:
                check(r["vers"] == 1 and r["proc"] == 1 and not m["reads"] and
                      not m["writes"] and f[0].endswith(".1"),
                      "capture: CB_NOTIFY, inline, from the server: %r %r" % (f, m))
                cb_calls[m["xid"]] = f
            elif r.get("type") == "CALL":
                check(r["prog"] == PROG and f[0].endswith(".2"),
                      "capture: forward calls from the clients %r %r" % (f, m))
                fwd_calls[m["xid"]] = f
            elif r.get("type") == "REPLY":
                replies.setdefault(m["xid"], []).append((f, r))
        answered_cb = [x for x, f in cb_calls.items()
                       if any(rf == (f[1], f[0], x) and rr.get("accept_stat") == "SUCCESS"
                              for rf, rr in replies.get(x, []))]
        check(len(cb_calls) >= answered and len(answered_cb) == answered,
              "capture: %d NOTIFY calls, %d answered by the client with their XID; the "
              "server counted %d answered" % (len(cb_calls), len(answered_cb), answered))
        check(not set(cb_calls) & set(fwd_calls), "capture: backward XIDs apart from forward")
        if PMD == "verbs":
            # The rest is the engine's and the server's (workers, backward
            # slots, timeouts), the same over any PMD: the fast suite runs it
            # over shm. Over verbs it would take 50 s of the emulated guest.
            return 0

        # --- the same through --workers 2: WRITE and SUBSCRIBE run on workers,
        # the NOTIFYs still go from the poller
        srv = Server(server, "ntfwk", ["--size", "16m", "--workers", "2",
                                       "--notify-timeout", str(WATCH_S)])
        try:
            watch_and_write(srv.addr, "workers")
        finally:
            rc, sout, err = stop_all(bg, srv)
        check(rc == 0 and err == "", "workers: server exit %d %r" % (rc, err))
        check(" 4 writes " in sout and "run on 2 worker(s)" in sout,
              "workers: server: 4 writes %r" % sout)
        sent, answered, failed, skipped = notify_counts("workers", sout)
        check(answered == 4 and skipped == 0 and sent == answered + failed and failed <= 1,
              "workers: NOTIFYs sent %d, answered %d, failed %d, skipped %d" %
              (sent, answered, failed, skipped))

        # --- a watcher that stops answering: its first NOTIFY holds the one
        # backward credit, 7 more wait in the server's slots, the rest are skipped.
        # Then the same with a --notify-timeout shorter than the stop: the 8
        # fail, the watcher sees the one that reached it before it stopped.
        twenty = []
        for i in range(20):
            twenty += ["--write", "%d:%s" % (i, files["1"])]
        for name, tmo, pause in (("skips", WATCH_S, 0), ("timeouts", 1, 2.5)):
            srv = Server(server, "ntf" + name, ["--size", "1m", "--notify-timeout", str(tmo)])
            try:
                w = start(srv.addr, ["--watch", "8", "--timeout",
                                     str(WATCH_S if pause == 0 else 3)])
                subscribed(w, 8, "%s: stopped watcher" % name)
                w.send_signal(signal.SIGSTOP)
                rc, out, err = run(client, ["--connect", srv.addr] + twenty)
                time.sleep(pause)
                w.send_signal(signal.SIGCONT)
                check(rc == 0 and out.count("wrote ") == 20,
                      "%s: 20 writes: exit %d %r" % (name, rc, err))
                rc, out, err = finish(w)
                if pause == 0:
                    check(rc == 0 and err == "", "skips: stopped watcher: exit %d %r" % (rc, err))
                    check(notify_lines(out) == ["notify: 1 bytes at %d (write %d)" % (i, i + 1)
                                                for i in range(8)],
                          "skips: stopped watcher: the NOTIFYs of the first 8 WRITEs, in "
                          "order: %r" % out)
                else:
                    # the first NOTIFY reached it while stopped (its --timeout may have
                    # run out during the stop, before it polled again)
                    check(rc == 1 and notify_lines(out) in
                          ([], ["notify: 1 bytes at 0 (write 1)"]) and
                          err.startswith("blockstore-client: --watch: %d of 8 notifications"
                                         % len(notify_lines(out))),
                          "timeouts: stopped watcher: the first NOTIFY at most, exit 1: %d %r "
                          "%r" % (rc, out, err))
            finally:
                rc, sout, err = stop_all(bg, srv)
            check(rc == 0 and err == "", "%s: server exit %d %r" % (name, rc, err))
            sent, answered, failed, skipped = notify_counts(name, sout)
            if pause == 0:
                check(sent + skipped == 20 and skipped > 0 and sent == answered + failed and
                      answered >= 8, "skips: one NOTIFY per WRITE sent or skipped, never "
                      "waited for: sent %d, answered %d, failed %d, skipped %d" %
                      (sent, answered, failed, skipped))
            else:
                check((sent, answered, failed, skipped) == (8, 0, 8, 12),
                      "timeouts: the 8 NOTIFYs sent fail, 12 skipped: sent %d, answered %d, "
                      "failed %d, skipped %d" % (sent, answered, failed, skipped))
    return 0


# ------------------------------------------------------------ perf --capture

# ------------------------------------------------------------ drc

def drc_counts(out):
    """The server summary's DRC counters: (hits, misses, in progress, evictions, stored)."""
    m = re.search(r"; DRC (\d+) hits, (\d+) misses, (\d+) dropped in progress, "
                  r"(\d+) evictions, (\d+) stored$", out, re.M)
    return tuple(int(x) for x in m.groups()) if m else None


def test_drc(server, peer):
    # WRITE X (miss), its copy (hit), its copy on connection B (hit), WRITE X
    # with other data (miss); SUBSCRIBE S on B (miss), its copy (hit), SUBSCRIBE
    # S on connection C (miss: a subscription is the connection's)
    for name, args, mode in (("on", [], "on"), ("workers", ["--workers", "2"], "on"),
                             ("off", ["--drc-entries", "0"], "off")):
        srv = Server(server, "drc-" + name, args)
        try:
            first = srv.p.stdout.readline()   # listening from now on
            check("serving" in first, "%s: the server started: %r" % (name, first))
            p = subprocess.run(argv(peer, [srv.addr, mode]), capture_output=True, text=True,
                               timeout=120 * SLOW)
            check(p.returncode == 0, "%s: drc_peer exit %d: %s %s" %
                  (name, p.returncode, p.stdout, quiet(p.stderr)))
            # another client (process) then sends the first WRITE's XID and bytes: it
            # runs (shm keys the cache by process; over verbs one host is one key)
            if PMD == "shm":
                p = subprocess.run(argv(peer, [srv.addr, "other"]), capture_output=True,
                                   text=True, timeout=120 * SLOW)
                want = "writes %d" % (3 if mode == "on" else 5)
                check(p.returncode == 0 and p.stdout.splitlines()[:1] == [want],
                      "%s: the other client's WRITE ran: exit %d %r, want %r %s" %
                      (name, p.returncode, p.stdout, want, quiet(p.stderr)))
        finally:
            rc, out, err = srv.stop()
        check(rc == 0 and err == "", "%s: server exit %d %r" % (name, rc, err))
        other = 1 if PMD == "shm" else 0
        if mode == "on":
            check("%d writes (%d00 bytes)" % (2 + other, 2 + other) in out,
                  "%s: the WRITEs ran once each: %r" % (name, out))
            check(drc_counts(out) == (3, 4 + other, 0, 0, 4 + other),
                  "%s: DRC counters %r in %r" % (name, drc_counts(out), out))
        else:
            check("%d writes (%d00 bytes)" % (4 + other, 4 + other) in out,
                  "%s: every copy ran: %r" % (name, out))
            check("; no duplicate request cache" in out, "%s: no DRC: %r" % (name, out))
    return 0


def test_perf_capture(perf, decode):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "perf.pcapng")
        addr = ["--address", "%s:22199" % VERBS_HOST] if PMD == "verbs" else []
        rc, out, err = run(perf, addr + ["--mode", "bw", "--op", "write", "--size", "64k", "--depth",
                                  "2", "--count", "20", "--warmup", "5", "--capture", path])
        check(rc == 0, "rpcrdma-perf --capture: exit %d %r" % (rc, err))
        check("capture:" in err and " 0 drops" in err, "capture counters on stderr %r" % err)
        msgs = decode_pcap(decode, path)
        calls = [m for m in msgs if m.get("rpc", {}).get("type") == "CALL"]
        replies = [m for m in msgs if m.get("rpc", {}).get("type") == "REPLY"]
        check(len(calls) == 25 and len(replies) == 25,
              "25 calls and 25 replies: %d, %d" % (len(calls), len(replies)))
        check(all(len(m["reads"]) == 1 and m["rpc"]["xid"] == m["xid"] for m in calls),
              "every WRITE call with its read chunk, XIDs equal")
        rc, out, err = run(perf, ["--capture", "", "--count", "1"])
        check(rc == 2 and err.count("\n") >= 1, "--capture '': exit %d" % rc)
    return 0


def test_many(server, client):
    """More clients at once than the old limit (16), and --max-connections."""
    # over verbs (an emulated device in the guest) fewer: each process busy-polls a CPU
    nclients = 20 if PMD == "shm" else 4
    srv = Server(server, "many", ["--size", "4m"])
    a = srv.addr
    with tempfile.TemporaryDirectory() as d:
        procs = []
        for i in range(nclients):
            src = os.path.join(d, "in-%d" % i)
            data = os.urandom(65536)
            open(src, "wb").write(data)
            off = i * 65536 + 7      # each its own range, unaligned
            procs.append((popen(client, ["--connect", a, "--write", "%d:%s" % (off, src),
                                         "--read", "%d:65536:%s" % (off, src + ".out"),
                                         "--getattr", "--timeout", "30"]), src, data))
        for p, src, data in procs:
            try:
                out, err = p.communicate(timeout=60 * SLOW)
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
            back = open(src + ".out", "rb").read() if os.path.exists(src + ".out") else b""
            check(p.returncode == 0 and back == data,
                  "client %s: exit %d, %d bytes back %r" % (src, p.returncode, len(back),
                                                            quiet(err)))
    rc, out, err = srv.stop()
    check(rc == 0 and err == "", "many: server exit %d %r" % (rc, err))
    joins = re.findall(r"^blockstore-server: client (\d+) connected from (.+) "
                       r"\((\d+) connected now\)$", out, re.M)
    leaves = re.findall(r"^blockstore-server: client (\d+) left after (\d+) calls "
                        r"\((\d+) connected now\)$", out, re.M)
    check(sorted(int(j[0]) for j in joins) == list(range(1, nclients + 1)),
          "many: an arrival line for each client: %r" % out)
    check(sorted(int(l[0]) for l in leaves) == list(range(1, nclients + 1)),
          "many: a leaving line for each client: %r" % out)
    # each made NULL, GETATTR (the device's size), WRITE, READ and GETATTR
    check(all(int(l[1]) == 5 for l in leaves), "many: 5 calls each: %r" % leaves)
    check(leaves and int(leaves[-1][2]) == 0, "many: none connected at the end")
    check(max(int(j[2]) for j in joins) > 1 if joins else False,
          "many: clients connected at once: %r" % joins)
    # the arrival lines name the clients: their processes (shm), their host (verbs)
    if PMD == "shm":
        check(sorted(j[1] for j in joins) == sorted("pid %d" % p.pid for p, _, _ in procs),
              "many: each client's pid in its arrival line: %r" % joins)
    else:
        check(all(j[1].startswith(VERBS_HOST + ":") for j in joins),
              "many: each client from %s: %r" % (VERBS_HOST, joins))
    check(" %d connection(s);" % nclients in out and " %d writes " % nclients in out,
          "many: the summary counts %d clients and writes: %r" % (nclients, out))
    mem = re.search(r"^blockstore-server: resident memory [\d.]+ MiB with one connection, "
                    r"[\d.]+ MiB with (\d+) at once: -?[\d.]+ KiB per connection more "
                    r"\((\d+) bytes each in the engine\)$", out, re.M)
    check(mem is not None and joins and int(mem.group(1)) == max(int(j[2]) for j in joins) and
          int(mem.group(2)) > 0, "many: the memory line, at the most connected at once: %r" % out)

    # over the limit: two watchers hold both slots; a third client is refused
    srv = Server(server, "limit", ["--size", "1m", "--max-connections", "2"])
    a = srv.addr
    watchers = [popen(client, ["--connect", a, "--watch", "1", "--timeout", "30"])
                for _ in range(2)]
    try:
        for w in watchers:
            first = w.stdout.readline()
            check(first == "subscribed: watching for 1 notifications\n",
                  "limit: watcher subscribed: %r" % first)
        rc, out, err = run(client, ["--connect", a, "--getattr", "--timeout", "1"])
        check(rc == 1 and err != "", "limit: the third client fails: %d %r" % (rc, err))
        # a watcher killed: its slot is free once the server sees it gone
        watchers[0].kill()
        watchers[0].communicate()
        rc, out, err = run(client, ["--connect", a, "--getattr", "--timeout", "10"])
        check(rc == 0, "limit: a client in the freed slot: %d %r" % (rc, err))
    finally:
        for w in watchers:
            if w.poll() is None:
                w.kill()
                w.communicate()
    rc, out, err = srv.stop()
    check(rc == 0, "limit: server exit %d %r" % (rc, err))
    refusals = [l for l in err.splitlines()
                if l == "blockstore-server: 2 clients connected (--max-connections 2): "
                        "one more refused"]
    check(len(refusals) >= 1 and len(refusals) == len(err.splitlines()),
          "limit: the refusals, and only them, on stderr: %r" % err)
    # the watchers are clients 1 and 2 (the refused one is not counted), the next one 3
    check(re.search(r"^blockstore-server: client [12] left after \d+ calls \(1 connected now\)$",
                    out, re.M) is not None and
          re.search(r"^blockstore-server: client 3 connected from .+ \(2 connected now\)$", out,
                    re.M) is not None,
          "limit: the killed watcher left, the next client took its slot: %r" % out)


def main():
    ret = 0
    if PMD == "verbs" and not VERBS_HOST:
        print("skip: RPCRDMA_TEST_VERBS_ADDR is not set (an IP address of an RDMA device)")
        return 77
    if GROUP == "options":
        test_options(sys.argv[2], sys.argv[3])
    elif GROUP == "io":
        test_io(sys.argv[2], sys.argv[3])
    elif GROUP == "workers":
        test_workers(sys.argv[2], sys.argv[3])
    elif GROUP == "capture":
        ret = test_capture(sys.argv[2], sys.argv[3], sys.argv[4],
                           sys.argv[5] if len(sys.argv) > 5 else None)
    elif GROUP == "notify":
        ret = test_notify(sys.argv[2], sys.argv[3], sys.argv[4])
    elif GROUP == "perf_capture":
        ret = test_perf_capture(sys.argv[2], sys.argv[3])
    elif GROUP == "drc":
        ret = test_drc(sys.argv[2], sys.argv[3])
    elif GROUP == "many":
        test_many(sys.argv[2], sys.argv[3])
    else:
        print("unknown group " + GROUP, file=sys.stderr)
        return 1
    print("test_blockstore %s: %d checks, %d failed" % (GROUP, checks, failures))
    return 1 if failures else ret


sys.exit(main())
