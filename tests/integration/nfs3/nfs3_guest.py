# SPDX-License-Identifier: BSD-3-Clause
"""What the guest suite's NFS tests (test_nfs3_knfsd.py, test_nfs3_linux.py)
share: counted checks, and the NFS calls of a capture as tshark decodes them."""
import subprocess

counts = {"checks": 0, "failures": 0}


def check(cond, what):
    counts["checks"] += 1
    if not cond:
        counts["failures"] += 1
        print("FAIL: " + what, flush=True)
    return cond


def summary(name):
    """Print the counts; the exit status they make."""
    print("%s: %d checks, %d failed" % (name, counts["checks"], counts["failures"]))
    return 1 if counts["failures"] else 0


def tshark_rows(tshark, path, fields, timeout):
    """Each frame of the capture at @path that carries an RPC message: a dict
    of @fields (the first occurrence of each, "" when absent)."""
    cmd = [tshark, "-n", "-r", path, "--enable-heuristic", "rpcrdma_infiniband",
           "-o", "infiniband.try_heuristic_first:TRUE", "-T", "fields", "-E", "separator=|",
           "-E", "occurrence=f"]
    for f in fields:
        cmd += ["-e", f]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    check(p.returncode == 0, "tshark exit %d %r" % (p.returncode, p.stderr[-300:]))
    rows = (dict(zip(fields, line.split("|"))) for line in p.stdout.splitlines())
    return [c for c in rows if c.get("rpcordma.xid") and c.get("rpc.xid")]
