#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Linux's NFS client mounts nfs3-server over RDMA: the hw suite, in the test
guest (scripts/vm/), as root, on the device at RPCRDMA_TEST_VERBS_ADDR
(RPCRDMA_TEST_VERBS_DEVARGS).

    test_nfs3_linux.py NFS3_SERVER [TSHARK]

- mount -t nfs -o rdma,vers=3 (Linux's xprtrdma client, our responder);
- a 64 MiB random file written, the page cache dropped, read back identical
  (write and read throughput printed: functional figures, the guest is
  emulated); dd with O_DIRECT at 4 KiB, 64 KiB and 1 MiB blocks, read back;
- 1,000 files created in a directory and listed (READDIRPLUS through reply
  chunks); rename, symlink and readlink, remove, rmdir; df (FSSTAT) gives the
  server's size;
- 32 MiB written back while the server disconnects the client (SIGUSR1):
  Linux connects again, sends again the WRITEs the disconnect caught, and
  the file reads back identical; the server had one connection before the
  disconnect and one after;
- the client's own count of the calls it sent (/proc/self/mountstats) is
  the server's count of the calls it answered, less those the disconnect
  flushed or cut (at most the 32 credits), and every procedure Linux
  called is printed;
- the server restarted under the mount: the client connects again and its
  next call is answered (NFS3ERR_STALE: the file system lived in memory);
  mounted again, a capture of a mount, a write and a read decodes in tshark
  as rpcordma + rpc + nfs, the WRITE and READ on the file's handle, their counts the client's;
- each server exits 0 on SIGTERM, every buffer back in its pool.

Exit 77 when not root, without mount.nfs, or without the address.
"""
import errno
import hashlib
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from nfs3_guest import check, summary, tshark_rows

SERVER = sys.argv[1]
TSHARK = sys.argv[2] if len(sys.argv) > 2 else None
HOST = os.environ.get("RPCRDMA_TEST_VERBS_ADDR", "").rsplit(":", 1)[0]
DEVARGS = os.environ.get("RPCRDMA_TEST_VERBS_DEVARGS", "")
PORT, MOUNT_PORT = 20049, 20048
MiB = 1 << 20
SIZE = 192 * MiB

def say(what):
    print("linux: " + what, flush=True)


class Server:
    """nfs3-server on the device, started and waited for."""

    def __init__(self, capture=None):
        args = [SERVER, "--pmd", "verbs", "--listen", "%s:%d" % (HOST, PORT), "--size",
                "%dm" % (SIZE // MiB), "--mount-port", str(MOUNT_PORT)]
        if DEVARGS:
            args += ["--devargs", DEVARGS]
        if capture:
            args += ["--capture", capture]
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        # the notes before it too (rpcbind not running, ...); the fd unbuffered,
        # so that select() sees what is not read yet
        fd, got, deadline = self.p.stdout.fileno(), b"", time.monotonic() + 120
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        while b"nfs3-server: serving" not in got and time.monotonic() < deadline:
            if sel.select(timeout=deadline - time.monotonic()):
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                got += chunk
        sel.close()
        self.head = got.decode(errors="replace")
        self.up = check("nfs3-server: serving" in self.head, "server start: %r" % self.head)

    def stop(self):
        """SIGTERM; exit status and the counters it prints."""
        self.p.send_signal(signal.SIGTERM)
        try:
            out, err = self.p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            self.p.kill()
            out, err = self.p.communicate()
            check(False, "server did not exit")
        out, err = self.head + out.decode(errors="replace"), err.decode(errors="replace")
        self.out = out
        self.err = err
        m = re.search(r"(\d+) connection\(s\); (\d+) calls, (\d+) replies, (\d+) through "
                      r"reply chunks", out)
        check(self.p.returncode == 0 and m is not None,
              "server exit %d, %r %r" % (self.p.returncode, out, err))
        return [int(x) for x in m.groups()] if m else [0, 0, 0, 0]


def kernel_rpcrdma_lines():
    """What the kernel logged of its RDMA transport (xprtrdma, rdma_cm, siw)."""
    p = subprocess.run(["dmesg"], capture_output=True, text=True)
    return [l for l in p.stdout.splitlines()
            if re.search(r"rpcrdma|xprtrdma|siw|rdma_cm|nfs:", l)][-12:]


def mount(mnt):
    opts = "rdma,port=%d,vers=3,nolock,mountport=%d,mountproto=tcp" % (PORT, MOUNT_PORT)
    p = subprocess.run(["mount", "-t", "nfs", "-o", opts, "%s:/" % HOST, mnt],
                       capture_output=True, text=True, timeout=180)
    return check(p.returncode == 0, "mount: exit %d %r" % (p.returncode, p.stderr))


def umount(mnt, force=False):
    p = subprocess.run(["umount"] + (["-f", "-l"] if force else []) + [mnt],
                       capture_output=True, text=True, timeout=120)
    return p.returncode == 0


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def mountstats(mnt):
    """{op: (ops, transmissions)} of the mount at @mnt, from the client."""
    ops, inside = {}, False
    with open("/proc/self/mountstats") as f:
        for line in f:
            if line.startswith("device "):
                inside = (" mounted on %s " % mnt) in line
            elif inside:
                m = re.match(r"\s+([A-Z]+):\s+(\d+) (\d+) ", line)
                if m:
                    ops[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return ops


def sha(path, direct=False):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(MiB), b""):
            h.update(b)
    return h.hexdigest()


def dd(src, dst, bs, direct):
    args = ["dd", "if=" + src, "of=" + dst, "bs=%d" % bs, "status=none"]
    args += [direct] if direct else ["conv=fsync"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=600)
    return check(p.returncode == 0, "%s: exit %d %r" % (" ".join(args), p.returncode, p.stderr))


def files(mnt, tmp):
    """The data part: big file, dd block sizes, a directory, names, df."""
    big = os.path.join(tmp, "big")
    with open(big, "wb") as f:
        f.write(os.urandom(64 * MiB))
    t0 = time.monotonic()
    dd(big, os.path.join(mnt, "big"), MiB, None)
    tw = time.monotonic() - t0
    drop_caches()
    t0 = time.monotonic()
    same = sha(os.path.join(mnt, "big")) == sha(big)
    tr = time.monotonic() - t0
    check(same, "64 MiB read back identical")
    say("64 MiB written in %.1f s (%.1f MB/s), read back in %.1f s (%.1f MB/s)" %
        (tw, 64 * MiB / tw / 1e6, tr, 64 * MiB / tr / 1e6))
    for bs, count in ((4096, 64), (65536, 16), (MiB, 4)):
        src = os.path.join(tmp, "dd%d" % bs)
        with open(src, "wb") as f:
            f.write(os.urandom(bs * count))
        dst = os.path.join(mnt, "dd%d" % bs)
        dd(src, dst, bs, "oflag=direct")
        back = os.path.join(tmp, "back%d" % bs)
        dd(dst, back, bs, "iflag=direct")
        check(sha(back) == sha(src), "dd O_DIRECT bs=%d read back identical" % bs)
    os.remove(big)

    d = os.path.join(mnt, "many")
    os.mkdir(d)
    t0 = time.monotonic()
    for i in range(1000):
        open(os.path.join(d, "file-%04d" % i), "w").close()
    say("1,000 files created in %.1f s" % (time.monotonic() - t0))
    drop_caches()
    names = os.listdir(d)
    check(sorted(names) == ["file-%04d" % i for i in range(1000)],
          "1,000 files listed: %d" % len(names))

    os.rename(os.path.join(d, "file-0000"), os.path.join(mnt, "renamed"))
    check(not os.path.exists(os.path.join(d, "file-0000")) and
          os.path.exists(os.path.join(mnt, "renamed")), "rename across directories")
    os.symlink("many/file-0001", os.path.join(mnt, "link"))
    drop_caches()
    check(os.readlink(os.path.join(mnt, "link")) == "many/file-0001", "symlink, readlink")
    check(os.path.exists(os.path.join(mnt, "link")), "the link resolves")
    os.remove(os.path.join(mnt, "link"))
    for n in os.listdir(d):
        os.remove(os.path.join(d, n))
    os.rmdir(d)
    check(not os.path.exists(d), "remove 999 files and rmdir")

    st = os.statvfs(mnt)
    check(st.f_blocks * st.f_frsize == SIZE, "df: size %d, want %d" %
          (st.f_blocks * st.f_frsize, SIZE))
    check(0 < st.f_bavail * st.f_frsize < SIZE, "df: free %d" % (st.f_bavail * st.f_frsize))
    p = subprocess.run(["df", "-k", mnt], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and str(SIZE // 1024) in p.stdout, "df -k: %r" % p.stdout)


TSHARK_FIELDS = ["frame.number", "rpcordma.xid", "rpc.xid", "rpc.msgtyp", "rpc.program",
                 "nfs.procedure_v3", "nfs.fh.hash"]


def capture_check(path, stats):
    """A capture of a mount, a create, a write and a read, in tshark; @stats:
    the client's count of its calls on that mount (mountstats())."""
    calls, replies, used = {}, {}, {}
    for c in tshark_rows(TSHARK, path, TSHARK_FIELDS, 120):
        if c["rpc.msgtyp"] == "0" and c["rpc.program"] == "100003":
            check(c["rpc.xid"] == c["rpcordma.xid"], "transport XID is RPC XID: %r" % c)
            calls[c["rpc.xid"]] = int(c["nfs.procedure_v3"])
            if calls[c["rpc.xid"]] in (6, 7, 19):  # READ, WRITE, FSINFO: on which handle
                used[calls[c["rpc.xid"]]] = c["nfs.fh.hash"]
        elif c["rpc.msgtyp"] == "1":
            replies[c["rpc.xid"]] = c
    procs = sorted(set(calls.values()))
    for want, name in ((0, "NULL"), (19, "FSINFO"), (20, "PATHCONF"), (8, "CREATE"),
                       (7, "WRITE"), (6, "READ")):
        check(want in procs, "capture: an NFS %s call (procedures %r)" % (name, procs))
    check(set(calls) <= set(replies), "capture: every call's reply (%d calls, %d replies)" %
          (len(calls), len(replies)))
    # Wireshark 4.0 matches no RoCE reply to its call: replies decode as RPC only
    check(used.get(7) and used.get(7) == used.get(6) and used.get(7) != used.get(19),
          "capture: WRITE and READ on the file's handle, not the root's: %r" % used)
    names = {0: "NULL", 1: "GETATTR", 3: "LOOKUP", 4: "ACCESS", 6: "READ", 7: "WRITE",
             8: "CREATE", 19: "FSINFO", 20: "PATHCONF", 21: "COMMIT"}
    seen = {names.get(n, str(n)): list(calls.values()).count(n) for n in procs}
    sent = {op: t for op, (_, t) in stats.items() if t}
    # the old mount's calls after the restart (ACCESS, LOOKUP, GETATTR) are
    # in the capture too; the rest are the new mount's alone
    for op in ("NULL", "FSINFO", "PATHCONF", "CREATE", "WRITE", "READ"):
        check(seen.get(op, 0) == sent.get(op, 0), "capture: %s calls %d, the client sent %d" %
              (op, seen.get(op, 0), sent.get(op, 0)))
    say("capture: %d NFS calls decoded by tshark: %r; the client counted %r" %
        (len(calls), seen, sent))


def connects(mnt):
    """The client's connect count of the mount at @mnt (mountstats' xprt: line)."""
    inside = False
    with open("/proc/self/mountstats") as f:
        for line in f:
            if line.startswith("device "):
                inside = (" mounted on %s " % mnt) in line
            elif inside and line.strip().startswith("xprt:"):
                w = line.split()
                return int(w[4]) if len(w) > 4 and w[1] == "rdma" else -1
    return -1


def kicked_write(srv, mnt, tmp):
    """32 MiB written back while the server drops the connection (SIGUSR1):
    Linux connects again and sends the WRITEs without replies again; the
    file reads back identical."""
    src = os.path.join(tmp, "kick")
    with open(src, "wb") as f:
        f.write(os.urandom(32 * MiB))
    c0 = connects(mnt)
    w0 = mountstats(mnt).get("WRITE", (0, 0))
    dst = os.path.join(mnt, "kick")
    t0 = time.monotonic()
    p = subprocess.Popen(["dd", "if=" + src, "of=" + dst, "bs=1M", "conv=fsync",
                          "status=none"], stderr=subprocess.PIPE, text=True)
    # the disconnect once the write-back is under way: 4 of its 32 WRITEs
    # sent, the others going out (Linux keeps several in flight)
    while p.poll() is None and time.monotonic() - t0 < 60:
        if mountstats(mnt).get("WRITE", (0, 0))[1] >= w0[1] + 4:
            break
        time.sleep(0.02)
    srv.p.send_signal(signal.SIGUSR1)
    try:
        _, err = p.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    tw = time.monotonic() - t0
    check(p.returncode == 0, "the write across the disconnect: dd exit %d %r" %
          (p.returncode, err))
    drop_caches()
    check(sha(dst) == sha(src), "32 MiB written across a disconnect read back identical")
    c1 = connects(mnt)
    check(c1 > c0 > 0, "the client connected again: connect count %d, then %d" % (c0, c1))
    w1 = mountstats(mnt).get("WRITE", (0, 0))
    ops, trans = w1[0] - w0[0], w1[1] - w0[1]
    check(trans > ops > 0, "WRITEs the disconnect caught sent again: %d WRITEs, %d "
          "transmissions" % (ops, trans))
    say("32 MiB written across a server-side disconnect in %.1f s: %d WRITEs, %d "
        "transmissions; the client's connections %d, then %d" % (tw, ops, trans, c0, c1))
    os.remove(dst)


def main():
    if os.geteuid() != 0:
        print("skip: mounting needs root (the guest suite runs as root)")
        return 77
    if shutil.which("mount.nfs") is None:
        print("skip: no mount.nfs (Debian package nfs-common)")
        return 77
    if not HOST:
        print("skip: RPCRDMA_TEST_VERBS_ADDR is not set (an IP address of an RDMA device)")
        return 77
    say("kernel %s, device %s" % (os.uname().release, DEVARGS or HOST))
    tmp = tempfile.mkdtemp(prefix="nfs3-linux-")
    mnt = tempfile.mkdtemp(prefix="nfs3-mnt-", dir="/mnt")
    cap = os.path.join(tempfile.gettempdir(), "nfs3-linux-%d.pcapng" % os.getpid())
    srv = Server()
    mounted, stats = False, {}
    try:
        if not srv.up or not mount(mnt):
            return 1
        mounted = True
        files(mnt, tmp)
        kicked_write(srv, mnt, tmp)
        ops = mountstats(mnt)
        called = sorted(op for op, (n, _) in ops.items() if n)
        say("procedures Linux called: %s" % " ".join(called))
        sent = sum(t for _, t in ops.values())

        # the server restarted under the mount: a new connection, an answer
        conns, calls, replies, longs = srv.stop()
        lines = [l for l in (srv.out + srv.err).splitlines()
                 if " connected" in l or " left after" in l or "disconnect" in l or
                 "rpcrdma" in l or "warning" in l]
        # one connection up to the disconnect, one after it: a first connection that
        # ended before its first call was one whose first Send found no receive (siw:
        # "got TERMINATE. layer 1, type 2, code 2"), before the group filled its SRQ
        # at the join
        check("SIGUSR1: 1 connection(s) disconnected" in srv.out and conns == 2,
              "the server disconnected the client once, and it came back: %d connection(s); "
              "the server said %r; the kernel said %r" % (conns, lines, kernel_rpcrdma_lines()))
        # both connections in the server's poll group, each said as it came and went
        check(re.search(r"^nfs3-server: client 1 left after \d+ calls ", srv.out, re.M) and
              re.search(r"^nfs3-server: client 2 connected from \S+:\d+ \(\d connected now\)$",
                        srv.out, re.M), "the server's arrival and leaving lines: %r" % srv.out)
        # the calls the disconnect caught without a reply (at most the 32
        # credits) were sent again, and answered on the new connection
        check(0 <= calls - replies <= 32, "server answered every call but those the "
              "disconnect cut: %d calls %d replies" % (calls, replies))
        # READDIRPLUS of 1,000 entries at dtpref (32 KiB): replies over the
        # inline threshold, through the reply chunks Linux offered
        check(longs > 0, "replies through reply chunks: %d" % longs)
        # the client's transmissions (retransmissions too) and one more: the
        # NULL ping of the client's first RPC client of this server, which no
        # mount's statistics count (the mount's own NULL is); less those the
        # disconnect flushed before they reached the server (at most 32)
        check(0 <= sent + 1 - calls <= 32, "the server's calls (%d) are the client's "
              "transmissions (%d) and its first NULL, less the flushed: %r" % (calls, sent, ops))
        say("server: %d connection(s), %d calls, %d replies, %d through reply chunks; the "
            "client's transmissions %d" % (conns, calls, replies, longs, sent))
        srv = Server(capture=cap if TSHARK else None)
        drop_caches()
        try:
            open(os.path.join(mnt, "dd4096"), "rb").close()
            err = 0
        except OSError as e:
            err = e.errno
        check(err == errno.ESTALE, "after the restart: ESTALE, got %s" % errno.errorcode.get(err, err))
        mounted = not umount(mnt, force=True)
        check(not mounted, "umount after the restart")
        if mount(mnt):
            mounted = True
            # inline: Wireshark dissects no RPC message that comes by read chunk
            data = os.urandom(1000)
            with open(os.path.join(mnt, "again"), "wb") as f:
                f.write(data)
            drop_caches()
            with open(os.path.join(mnt, "again"), "rb") as f:
                check(f.read() == data, "a file written after the restart read back identical")
            stats = mountstats(mnt)
            mounted = not umount(mnt)
            check(not mounted, "umount")
        conns, calls, replies, _ = srv.stop()
        check(conns >= 1 and calls == replies and calls > 0,
              "restarted server: %d connection(s), %d calls, %d replies" % (conns, calls, replies))
        if TSHARK:
            capture_check(cap, stats)
    finally:
        if mounted:
            umount(mnt, force=True)
        if srv.p.poll() is None:
            srv.p.kill()
            srv.p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
        os.rmdir(mnt)
        if os.path.exists(cap):
            os.remove(cap)
    return summary("test_nfs3_linux")


sys.exit(main())
