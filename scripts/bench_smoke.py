#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run a benchmark program once, briefly, and check that every benchmark ran.

    bench_smoke.py BENCH-EXE [MIN_COUNT] [--filter REGEX] [--stamps]

Each benchmark runs for a token time (Google Benchmark's
--benchmark_min_time=0.001, one repetition): this measures nothing, it
catches a benchmark that crashes, skips with an error (SkipWithError:
a failed set-up, a failed call, a tear-down that found a leak) or
disappears, which CI would otherwise never see (make bench is not run by
CI). MIN_COUNT: the fewest benchmarks the program must register (or match
--filter).

--stamps: the program is built on the stamped library (bench-engine-stamped,
as -Dlatency_stamps=true builds it), and each engine/null_vs_shm_send run
must say so (latency_stamps 1) and split every kind's round trip into all
its phases, each longer than zero, from the stamps of at least a tenth of
its round trips (<kind>_stamped_share: those whose stamps came in the
order of the round trip, usually nearly all; a loaded machine moving the
vCPUs loses some, a stamp taken out of its place loses them all).
Prints '<name>: N passed, M failed'.
"""
import argparse
import json
import os
import subprocess
import sys

KINDS = ("shm_send", "shm_echo", "null")
PHASES = ("client_send", "to_server", "server", "to_client", "client_recv")


def stamp_errors(b):
    """What is wrong with the phase split of a stamped null_vs_shm_send run."""
    if b.get("latency_stamps") != 1:
        return ["latency_stamps is %r, want 1" % b.get("latency_stamps")]
    errs = []
    for k in KINDS:
        ph = [b.get("%s_%s_ns" % (k, p)) for p in PHASES]
        if any(v is None or v <= 0 for v in ph):
            errs.append("%s phases %r: each wanted, longer than 0" % (k, ph))
        share = b.get("%s_stamped_share" % k, 0)
        if share < 0.1:
            errs.append("%s: %.0f%% of the round trips stamped in order, want 10%% or more"
                        % (k, 100 * share))
    return errs


ap = argparse.ArgumentParser(description="a token run of a benchmark program")
ap.add_argument("exe")
ap.add_argument("min_count", nargs="?", type=int, default=1)
ap.add_argument("--filter", help="only the benchmarks matching this regex")
ap.add_argument("--stamps", action="store_true",
                help="check the phase split of engine/null_vs_shm_send")
args = ap.parse_args()
min_count = args.min_count
name = os.path.basename(args.exe)
cmd = [args.exe, "--benchmark_min_time=0.001", "--benchmark_repetitions=1",
       "--benchmark_format=json"]
if args.filter:
    cmd.append("--benchmark_filter=" + args.filter)
p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
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
    elif args.stamps and b["name"].startswith("engine/null_vs_shm_send"):
        failed += ["%s: %s" % (b["name"], e) for e in stamp_errors(b)]
if p.returncode != 0:
    failed.append("exit status %d: %s" % (p.returncode, p.stderr[-500:]))
if args.stamps and not any(b["name"].startswith("engine/null_vs_shm_send") for b in runs):
    failed.append("no engine/null_vs_shm_send run to check the stamps of")
if len(runs) < min_count:
    failed.append("%d benchmarks ran, want at least %d" % (len(runs), min_count))
for f in failed:
    print("FAIL: %s: %s" % (name, f), file=sys.stderr)
print("%s: %d passed, %d failed" % (name, len(runs) - len(failed), len(failed)))
sys.exit(1 if failed else 0)
