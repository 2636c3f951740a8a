#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarise Google Benchmark JSON from the bench-* programs.

    python3 scripts/bench_summary.py build/bench/bench-codec.json [...]

Benchmarks are named <shape>/<op>/<impl> (bench/bench_shim.h). For each
shape and operation this prints the per-iteration CPU time of each
implementation in ns (the median of the repetitions when the run has
aggregates, else the mean of the runs) and the ratio rpcgen / rpcrdma, then
how the run stands against the codec's targets:
  - v1_msg_nullcall/roundtrip/rpcrdma under 20 ns;
  - every shape and operation at least 10 times faster than rpcgen.
For the other programs it prints each benchmark's median time and counters,
and for bench-engine the engine's targets:
  - engine/null_vs_shm_send: the NULL call's round trip at most 1.5 times
    the PMD's SEND/RECV round trip measured alongside (ratio_block_median),
    not judged for a -Dlatency_stamps=true build (its latency_stamps counter);
  - engine/null_pipelined_depth32: at least 3 million calls per second;
and bench-scale's (many connections on one server lcore, poll groups):
  - scale/null_pipelined: 1024 connections keep at least 90% of the calls/s
    of 1 connection (64 calls in flight), from the two benchmarks and, when
    the run has it, from scale/null_pipelined_paired/conns:1024 (the median
    of the ratios of turns taken in pairs: the steadier figure);
  - scale/idle_poll: a poll with 1024 idle connections within 10% of one
    with 1;
  - engine_bytes_per_conn at most 16 KiB.
Exits 0 whatever the figures (it reports; it does not judge a run), 1 when
a file cannot be read.
"""
import json
import sys
from collections import OrderedDict

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
ROUNDTRIP_TARGET_NS = 20.0
RATIO_TARGET = 10.0
ENGINE_RTT_RATIO_TARGET = 1.5
ENGINE_CALLS_TARGET = 3e6
SCALE_RATE_TARGET = 0.9
SCALE_IDLE_TARGET = 1.1
SCALE_BYTES_TARGET = 16384


def load(path):
    """{run_name: ns} and the context of one JSON file."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    medians, runs = {}, {}
    for b in doc.get("benchmarks", []):
        name = b.get("run_name", b["name"])
        ns = b["cpu_time"] * UNIT_NS[b.get("time_unit", "ns")]
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = ns
        else:
            runs.setdefault(name, []).append(ns)
    times = {name: sum(v) / len(v) for name, v in runs.items()}
    times.update(medians)
    return times, doc.get("context", {}), bool(medians)


def generic(path, ctx):
    """A program of other benchmarks: each one's median time and counters."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    print(f"\n{path}: {ctx.get('date', '?')}, load {ctx.get('load_avg', '?')}")
    skip = {"name", "run_name", "run_type", "repetitions", "repetition_index", "threads",
            "iterations", "real_time", "cpu_time", "time_unit", "family_index",
            "per_family_instance_index", "aggregate_name", "aggregate_unit"}
    for b in doc.get("benchmarks", []):
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        ns = b["real_time"] * UNIT_NS[b.get("time_unit", "ns")]
        extra = []
        for k, v in b.items():
            if k in skip or not isinstance(v, (int, float)):
                continue
            if k == "bytes_per_second":
                extra.append(f"{k}={v / 1e9:.2f}G")
            elif k.endswith("per_second") or k.endswith("_per_s") or "_per_s_" in k:
                extra.append(f"{k}={v / 1e6:.2f}M")
            else:
                extra.append(f"{k}={v:g}")
        print(f"{b.get('run_name', b['name']):<44} {ns:>12.1f} ns  {' '.join(extra)}")
    engine_targets(doc)
    scale_targets(doc)


def scale_targets(doc):
    """bench-scale's targets: ratios within the run, from the medians."""
    found = {}
    for b in doc.get("benchmarks", []):
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        found[b.get("run_name", b["name"])] = b
    one = found.get("scale/null_pipelined/conns:1/real_time", {}).get("calls_per_s")
    many = found.get("scale/null_pipelined/conns:1024/real_time", {})
    if one and many.get("calls_per_s"):
        r = many["calls_per_s"] / one
        print(f"target: 1024 connections >= {SCALE_RATE_TARGET:.0%} of 1 connection's "
              f"calls/s: {many['calls_per_s'] / 1e6:.2f} M / {one / 1e6:.2f} M = {r:.2f}: "
              f"{'met' if r >= SCALE_RATE_TARGET else 'MISSED'}")
    paired = found.get("scale/null_pipelined_paired/conns:1024/real_time", {})
    if paired.get("ratio"):
        r = paired["ratio"]
        print(f"target: 1024 connections >= {SCALE_RATE_TARGET:.0%} of 1 connection's "
              f"calls/s, in paired turns: median ratio {r:.2f} "
              f"(quartiles {paired.get('ratio_lo', 0):.2f} to {paired.get('ratio_hi', 0):.2f}, "
              f"{paired.get('pairs', 0):.0f} pairs): "
              f"{'met' if r >= SCALE_RATE_TARGET else 'MISSED'}")
    if many.get("engine_bytes_per_conn"):
        m = many["engine_bytes_per_conn"]
        print(f"target: <= {SCALE_BYTES_TARGET} engine bytes per connection: {m:.0f}: "
              f"{'met' if m <= SCALE_BYTES_TARGET else 'MISSED'}")
    i1 = found.get("scale/idle_poll/conns:1/real_time", {}).get("ns_per_poll")
    i2 = found.get("scale/idle_poll/conns:1024/real_time", {}).get("ns_per_poll")
    if i1 and i2:
        r = i2 / i1
        print(f"target: idle poll of 1024 connections <= {SCALE_IDLE_TARGET}x 1's: "
              f"{i2:.2f} ns / {i1:.2f} ns = {r:.2f}x: "
              f"{'met' if r <= SCALE_IDLE_TARGET else 'MISSED'}")


def engine_targets(doc):
    """bench-engine's targets, from the medians (or the single runs)."""
    found = {}
    for b in doc.get("benchmarks", []):
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        found[b.get("run_name", b["name"])] = b
    vs = found.get("engine/null_vs_shm_send/real_time")
    if vs is not None and "ratio_block_median" in vs:
        r = vs["ratio_block_median"]
        verdict = "met" if r <= ENGINE_RTT_RATIO_TARGET else "MISSED"
        if vs.get("latency_stamps"):
            # each stamp's rdtsc lengthens the floors more than the NULL call
            verdict = "not judged (a -Dlatency_stamps=true build)"
        print(f"target: NULL round trip <= {ENGINE_RTT_RATIO_TARGET}x the SEND/RECV round "
              f"trip: {r:.2f}x (p50 {vs.get('ratio_p50', 0):.2f}x, echo "
              f"{vs.get('ratio_echo_mean', 0):.2f}x): {verdict}")
        if "raw_line_mean_ns" in vs and vs.get("shm_send_mean_ns"):
            # where the machine put the two lcores: the ratios differ with it
            print(f"        measured with one cache line's round trip between the lcores "
                  f"at {vs['raw_line_mean_ns']:.0f} ns, SEND/RECV {vs['shm_send_mean_ns']:.0f} "
                  f"ns, echo {vs.get('shm_echo_mean_ns', 0):.0f} ns, NULL "
                  f"{vs.get('null_mean_ns', 0):.0f} ns")
    pl = found.get("engine/null_pipelined_depth32/real_time")
    if pl is not None and "calls_per_s" in pl:
        c = pl["calls_per_s"]
        verdict = "met" if c >= ENGINE_CALLS_TARGET else "MISSED"
        print(f"target: >= {ENGINE_CALLS_TARGET / 1e6:.0f} M pipelined calls/s: "
              f"{c / 1e6:.2f} M: {verdict}")


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 1
    for path in argv[1:]:
        try:
            times, ctx, aggregated = load(path)
        except (OSError, ValueError, KeyError) as e:
            print(f"bench_summary: {path}: {e}", file=sys.stderr)
            return 1

        if not any(n.endswith(("/rpcrdma", "/rpcgen", "/rpcgen_alloc")) for n in times):
            generic(path, ctx)
            continue

        rows = OrderedDict()
        for name, ns in times.items():
            parts = name.split("/")
            if len(parts) != 3:
                continue
            shape, op, impl = parts
            rows.setdefault((shape, op), {})[impl] = ns

        print(f"\n{path}: {ctx.get('date', '?')}, {ctx.get('num_cpus', '?')} CPUs "
              f"at {ctx.get('mhz_per_cpu', '?')} MHz, load {ctx.get('load_avg', '?')}")
        print("CPU ns per operation, " +
              ("median of the repetitions" if aggregated else "mean of the runs"))
        has_alloc = any("rpcgen_alloc" in r for r in rows.values())
        head = f"{'shape/op':<34} {'rpcrdma':>9} {'rpcgen':>9} {'ratio':>7}"
        if has_alloc:
            head += f" {'rpcgen_alloc':>13}"
        print(head)
        print("-" * len(head))

        def fmt(v, width):
            return f"{v:>{width}.1f}" if v is not None else f"{'-':>{width}}"

        missed = []
        for (shape, op), r in rows.items():
            ours, theirs = r.get("rpcrdma"), r.get("rpcgen")
            ratio = theirs / ours if ours and theirs else None
            line = f"{shape + '/' + op:<34} {fmt(ours, 9)} {fmt(theirs, 9)} "
            line += f"{ratio:>6.1f}x" if ratio else f"{'-':>7}"
            if has_alloc:
                line += f" {fmt(r.get('rpcgen_alloc'), 13)}"
            print(line)
            if ratio is not None and ratio < RATIO_TARGET:
                missed.append(f"{shape}/{op} {ratio:.1f}x")

        rt = rows.get(("v1_msg_nullcall", "roundtrip"), {}).get("rpcrdma")
        if rt is not None:
            verdict = "met" if rt < ROUNDTRIP_TARGET_NS else "MISSED"
            print(f"target: v1_msg_nullcall/roundtrip/rpcrdma {rt:.1f} ns "
                  f"< {ROUNDTRIP_TARGET_NS:.0f} ns: {verdict}")
        compared = sum(1 for r in rows.values() if "rpcrdma" in r and "rpcgen" in r)
        if compared:
            print(f"target: >= {RATIO_TARGET:.0f}x rpcgen: "
                  f"{compared - len(missed)} of {compared} met" +
                  (f"; missed: {', '.join(missed)}" if missed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
