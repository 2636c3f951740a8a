#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run a benchmark program once, briefly, and check that every benchmark ran.

    bench_smoke.py BENCH-EXE [MIN_COUNT]

Each benchmark runs for a token time (Google Benchmark's
--benchmark_min_time=0.001, one repetition): this measures nothing, it
catches a benchmark that crashes, skips with an error (SkipWithError:
a failed set-up, a failed call, a tear-down that found a leak) or
disappears, which CI would otherwise never see (make bench is not run by
CI). MIN_COUNT: the fewest benchmarks the program must register.
Prints '<name>: N passed, M failed'.
"""
import json
import os
import subprocess
import sys

exe = sys.argv[1]
min_count = int(sys.argv[2]) if len(sys.argv) > 2 else 1
name = os.path.basename(exe)
p = subprocess.run([exe, "--benchmark_min_time=0.001", "--benchmark_repetitions=1",
                    "--benchmark_format=json"], capture_output=True, text=True, timeout=300)
failed = []
try:
    runs = json.loads(p.stdout)["benchmarks"]
except (ValueError, KeyError) as e:
    print("FAIL: %s: no JSON result (exit %d): %s %s" % (name, p.returncode, e,
                                                        p.stderr[-500:]), file=sys.stderr)
    sys.exit(1)
for b in runs:
    if b.get("error_occurred"):
        failed.append("%s: %s" % (b["name"], b.get("error_message", "")))
if p.returncode != 0:
    failed.append("exit status %d: %s" % (p.returncode, p.stderr[-500:]))
if len(runs) < min_count:
    failed.append("%d benchmarks ran, want at least %d" % (len(runs), min_count))
for f in failed:
    print("FAIL: %s: %s" % (name, f), file=sys.stderr)
print("%s: %d passed, %d failed" % (name, len(runs) - len(failed), len(failed)))
sys.exit(1 if failed else 0)
