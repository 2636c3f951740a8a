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
for arg in ["12x", "", "5", "-1", "1024 16"]:
    r = subprocess.run(["sh", SCRIPT, "16", arg], capture_output=True, text=True, timeout=30)
    want = f"cachesim: '{arg}': bench-scale runs 1, 16, 256 or 1024 connections"
    if r.returncode != 2 or want not in r.stderr or r.stdout != "":
        print(f"FAIL: cachesim.sh 16 {arg!r}: exit {r.returncode}, stderr {r.stderr!r}")
        bad += 1
    else:
        print(f"ok   cachesim.sh 16 {arg!r}: refused")
for kib in ["3000", "128", "131072", "2m", "-1"]:
    env = dict(os.environ, CACHESIM_L2_KIB=kib)
    r = subprocess.run(["sh", SCRIPT, "16"], capture_output=True, text=True, timeout=30, env=env)
    want = f"cachesim: CACHESIM_L2_KIB '{kib}': a power of two from 256 to 65536"
    if r.returncode != 2 or want not in r.stderr or r.stdout != "":
        print(f"FAIL: CACHESIM_L2_KIB={kib!r}: exit {r.returncode}, stderr {r.stderr!r}")
        bad += 1
    else:
        print(f"ok   CACHESIM_L2_KIB={kib!r}: refused")
sys.exit(1 if bad else 0)
