#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/cachesim.sh refuses a count of connections bench-scale does not
run, and a simulated L2 size (CACHESIM_L2_KIB) that is not a power of two
from 256 to 65536, with exit status 2 and a line that names it, before it
builds or needs valgrind."""
import os
import subprocess
import sys

SCRIPT = sys.argv[1]
bad = 0


def refused(args, env, want, what):
    """cachesim.sh ARGS exits 2, prints nothing, and says WANT on stderr."""
    global bad
    r = subprocess.run(["sh", SCRIPT] + args, capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, **env))
    if r.returncode != 2 or want not in r.stderr or r.stdout != "":
        print(f"FAIL: {what}: exit {r.returncode}, stderr {r.stderr!r}")
        bad += 1
    else:
        print(f"ok   {what}: refused")


for arg in ["12x", "", "5", "-1", "1024 16"]:
    refused(["16", arg], {}, f"cachesim: '{arg}': bench-scale runs 1, 16, 256 or 1024 connections",
            f"cachesim.sh 16 {arg!r}")
for kib in ["3000", "128", "131072", "2m", "-1"]:
    refused(["16"], {"CACHESIM_L2_KIB": kib},
            f"cachesim: CACHESIM_L2_KIB '{kib}': a power of two from 256 to 65536",
            f"CACHESIM_L2_KIB={kib!r}")
sys.exit(1 if bad else 0)
