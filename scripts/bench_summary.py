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
Exits 0 whatever the figures (it reports; it does not judge a run), 1 when
a file cannot be read.
"""
import json
import sys
from collections import OrderedDict

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
ROUNDTRIP_TARGET_NS = 20.0
RATIO_TARGET = 10.0


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
            elif k.endswith("per_second") or k.endswith("_per_s"):
                extra.append(f"{k}={v / 1e6:.2f}M")
            else:
                extra.append(f"{k}={v:g}")
        print(f"{b.get('run_name', b['name']):<44} {ns:>12.1f} ns  {' '.join(extra)}")


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
