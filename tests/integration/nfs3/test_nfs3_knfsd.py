#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rpcrdma-perf --program nfs3 drives Linux's kernel NFS server (knfsd,
svcrdma) over RDMA: the hw suite, in the test guest (scripts/vm/), as root,
on the device at RPCRDMA_TEST_VERBS_ADDR (RPCRDMA_TEST_VERBS_DEVARGS).

    test_nfs3_knfsd.py PERF [TSHARK]

knfsd exports a tmpfs with RDMA on port 20049 (rpcbind, rpc.mountd on TCP
port 20048, rpc.nfsd); against it, each with 0 errors:
- NULL and GETATTR;
- WRITE and READ of 4 KiB, 64 KiB and 1 MiB with --verify (read chunks and
  write chunks: Linux moves the data with RDMA Read and Write into our
  registered memory);
- READDIRPLUS of a directory of 2,000 entries (reply chunks);
- READ at depth 32 (iops);
- --version 2: the fallback to version 1, said once, the JSON's version 1.
Linux's own view agrees: for every run, the NFSv3 calls the kernel counted
(/proc/net/rpc/nfsd, proc3) are the calls the tool sent; and a capture of a
READ run decodes in tshark as rpcordma + rpc + nfs, one READ per call the
kernel counted, on one file handle.

Exit 77 when not root, or without knfsd's tools or the address.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

from nfs3_guest import check, summary, tshark_rows

PERF = sys.argv[1]
TSHARK = sys.argv[2] if len(sys.argv) > 2 else None
HOST = os.environ.get("RPCRDMA_TEST_VERBS_ADDR", "").rsplit(":", 1)[0]
DEVARGS = os.environ.get("RPCRDMA_TEST_VERBS_DEVARGS", "")
PORT, MOUNT_PORT = 20049, 20048
TOOLS = ("rpcbind", "rpc.mountd", "rpc.nfsd", "exportfs")
NFS3_PROCS = ("NULL GETATTR SETATTR LOOKUP ACCESS READLINK READ WRITE CREATE MKDIR SYMLINK "
              "MKNOD REMOVE RMDIR RENAME LINK READDIR READDIRPLUS FSSTAT FSINFO PATHCONF "
              "COMMIT").split()

def say(what):
    print("knfsd: " + what, flush=True)


def sh(*args, timeout=60):
    p = subprocess.run(list(args), capture_output=True, text=True, timeout=timeout)
    check(p.returncode == 0, "%s: exit %d %r" % (" ".join(args), p.returncode, p.stderr))
    return p.returncode == 0


def proc3():
    """knfsd's count of NFSv3 calls by procedure."""
    with open("/proc/net/rpc/nfsd") as f:
        for line in f:
            w = line.split()
            if w and w[0] == "proc3":
                return dict(zip(NFS3_PROCS, (int(x) for x in w[2:])))
    return {}


class Knfsd:
    """knfsd exporting a tmpfs over RDMA, and taken down again."""

    def __init__(self):
        self.export = tempfile.mkdtemp(prefix="knfsd-export-", dir="/mnt")
        self.saved = open("/etc/exports").read() if os.path.exists("/etc/exports") else None
        self.up = False
        if not sh("mount", "-t", "tmpfs", "-o", "size=256m", "tmpfs", self.export):
            return
        os.makedirs("/run/rpcbind", exist_ok=True)
        os.makedirs("/var/lib/nfs/v4recovery", exist_ok=True)
        with open("/etc/exports", "w") as f:
            f.write("%s *(rw,no_root_squash,insecure,no_subtree_check,fsid=1)\n" % self.export)
        if not os.path.ismount("/proc/fs/nfsd"):
            sh("mount", "-t", "nfsd", "nfsd", "/proc/fs/nfsd")
        # knfsd sizes its largest READ and WRITE by the memory: 512 KiB in
        # this guest. 1 MiB, as on a server, before the threads start.
        with open("/proc/fs/nfsd/max_block_size", "w") as f:
            f.write("1048576\n")
        self.up = (sh("rpcbind", "-w") and sh("rpc.mountd", "-p", str(MOUNT_PORT)) and
                   sh("exportfs", "-ra") and sh("rpc.nfsd", "4"))
        if self.up:
            with open("/proc/fs/nfsd/portlist", "w") as f:
                f.write("rdma %d\n" % PORT)
            ports = open("/proc/fs/nfsd/portlist").read()
            self.up = check("rdma %d" % PORT in ports, "knfsd listens on rdma: %r" % ports)

    def down(self):
        subprocess.run(["rpc.nfsd", "0"], capture_output=True, timeout=60)
        subprocess.run(["exportfs", "-ua"], capture_output=True, timeout=60)
        for name in ("rpc.mountd", "rpcbind"):
            subprocess.run(["pkill", "-x", name], capture_output=True, timeout=30)
        subprocess.run(["umount", self.export], capture_output=True, timeout=60)
        os.rmdir(self.export)
        if self.saved is None:
            os.remove("/etc/exports")
        else:
            with open("/etc/exports", "w") as f:
                f.write(self.saved)


def perf(k, what, args, version=1, capture=None, probes=0):
    """One run; its JSON, after checking the kernel counted what it sent."""
    with tempfile.TemporaryDirectory() as d:
        res = os.path.join(d, "r.json")
        cmd = [PERF, "--pmd", "verbs", "--address", "%s:%d" % (HOST, PORT), "--program", "nfs3",
               "--export", k.export, "--mount-port", str(MOUNT_PORT), "--quiet",
               "--json", res] + args
        if DEVARGS:
            cmd += ["--devargs", DEVARGS]
        if capture:
            cmd += ["--capture", capture]
        before = proc3()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        after = proc3()
        if not check(p.returncode == 0, "%s: exit %d %r" % (what, p.returncode, p.stderr)):
            return None, {}, p.stderr
        doc = json.load(open(res))
    delta = {op: after[op] - before.get(op, 0) for op in after if after[op] != before.get(op, 0)}
    x = doc["xprt"]
    sent = x["short_msgs"] + x["chunked_msgs"] + x["long_msgs"]
    check(doc["errors"] == 0 and doc["calls"] > 0 and doc["version"] == version,
          "%s: calls %d errors %d version %d" % (what, doc["calls"], doc["errors"],
                                                 doc["version"]))
    # a version 2 probe is answered by svcrdma (ERR_VERS), not by NFS
    check(sum(delta.values()) == sent - probes, "%s: knfsd counted %d NFSv3 calls %r, the tool "
          "sent %d, %d of them version 2 probes" % (what, sum(delta.values()), delta, sent,
                                                   probes))
    say("%s: %d calls, %d errors; knfsd counted %r" % (what, doc["calls"], doc["errors"], delta))
    return doc, delta, p.stderr


def capture_check(path, reads):
    """The capture of a READ run: rpcordma + rpc + nfs, one READ per call
    knfsd counted, all on one file handle."""
    fields = ["rpcordma.xid", "rpc.xid", "rpc.msgtyp", "rpc.program", "nfs.procedure_v3",
              "nfs.fh.hash"]
    calls, handles, replies = {}, set(), set()
    for c in tshark_rows(TSHARK, path, fields, 300):
        if c["rpc.msgtyp"] == "0" and c["rpc.program"] == "100003":
            check(c["rpc.xid"] == c["rpcordma.xid"], "transport XID is RPC XID: %r" % c)
            calls[c["rpc.xid"]] = int(c["nfs.procedure_v3"])
            if c["nfs.procedure_v3"] == "6":
                handles.add(c["nfs.fh.hash"])
        elif c["rpc.msgtyp"] == "1":
            replies.add(c["rpc.xid"])
    n = list(calls.values()).count(6)
    check(n == reads, "capture: %d READ calls decoded, knfsd counted %d" % (n, reads))
    check(len(handles) == 1 and "" not in handles, "capture: READs on one handle: %r" % handles)
    check(set(calls) <= replies, "capture: every call's reply")
    say("capture: %d NFS calls decoded by tshark, %d READs on handle %s" %
        (len(calls), n, ",".join(handles)))


def main():
    if os.geteuid() != 0:
        print("skip: knfsd needs root (the guest suite runs as root)")
        return 77
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        print("skip: no %s (Debian package nfs-kernel-server)" % ", ".join(missing))
        return 77
    if not HOST:
        print("skip: RPCRDMA_TEST_VERBS_ADDR is not set (an IP address of an RDMA device)")
        return 77
    say("kernel %s, device %s" % (os.uname().release, DEVARGS or HOST))
    k = Knfsd()
    cap = os.path.join(tempfile.gettempdir(), "knfsd-%d.pcapng" % os.getpid())
    try:
        if not k.up:
            return 1
        perf(k, "null", ["--op", "null", "--count", "200"])
        perf(k, "getattr", ["--op", "getattr", "--count", "200"])
        for size, count in (("4k", 100), ("64k", 50), ("1m", 20)):
            for op in ("write", "read"):
                _, delta, _ = perf(k, "%s %s" % (op, size),
                                   ["--op", op, "--size", size, "--verify", "--count",
                                    str(count), "--warmup", "2"])
                check(delta.get(op.upper(), 0) >= count, "%s %s: knfsd counted %d %ss" %
                      (op, size, delta.get(op.upper(), 0), op.upper()))
        _, delta, _ = perf(k, "readdir 2000", ["--op", "readdir", "--files", "2000",
                                               "--count", "3", "--warmup", "1"])
        # four listings (one of warm-up), each checked whole by the tool
        check(delta.get("READDIRPLUS", 0) >= 4 and delta.get("CREATE", 0) == 2000,
              "readdir: READDIRPLUS calls %d, CREATE %d" % (delta.get("READDIRPLUS", 0),
                                                           delta.get("CREATE", 0)))
        perf(k, "read 4k iops depth 32", ["--op", "read", "--size", "4k", "--mode", "iops",
                                          "--depth", "32", "--count", "2000"])
        _, _, err = perf(k, "version 2 fallback", ["--op", "null", "--count", "50",
                                                   "--version", "2"], version=1, probes=1)
        check(err.count("the server does not support version 2: running in version 1") == 1,
              "fallback: one warning: %r" % err)
        if TSHARK:
            _, delta, _ = perf(k, "read 4k captured", ["--op", "read", "--size", "4k",
                                                        "--count", "40", "--warmup", "0"],
                               capture=cap)
            capture_check(cap, delta.get("READ", 0))
    finally:
        k.down()
        if os.path.exists(cap):
            os.remove(cap)
    return summary("test_nfs3_knfsd")


sys.exit(main())
