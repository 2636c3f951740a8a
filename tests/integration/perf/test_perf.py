#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rpcrdma-perf end to end.

    test_perf.py PERF SCHEMA options|modes|output|compare|xproc|v2|verbs

options  every option, good and bad: exit codes and the one-line messages,
         --help (no EAL needed, except --pmd verbs without a device)
modes    a short run of each mode (--count small); each JSON result is
         validated against scripts/perf_schema.json and for sane values
output   --json - alone on stdout (also with the table and --compare), and
         the short options -s, -n, -D against what they stand for
compare  --compare passes an equal result and catches injected regressions
xproc    --server in the background, --client against it: both exit 0
verbs    every mode over --pmd verbs, in one process and as --server and
         --client, at RPCRDMA_TEST_VERBS_ADDR with RPCRDMA_TEST_VERBS_DEVARGS
         (the hw suite; skips, 77, without them)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

PERF, SCHEMA, GROUP = sys.argv[1], sys.argv[2], sys.argv[3]
DECODE = sys.argv[4] if len(sys.argv) > 4 else None
ENV = dict(os.environ)
PMD = "shm"  # what check_result expects the runs to name
failures = 0
checks = 0


def check(cond, what):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAIL: " + what, file=sys.stderr)


def run(args, timeout=60, **kw):
    p = subprocess.run([PERF] + args, capture_output=True, text=True, timeout=timeout,
                       env=ENV, **kw)
    return p.returncode, p.stdout, p.stderr


# ------------------------------------------------------------ schema

def validate(doc, schema, path="$"):
    """The subset of JSON Schema that perf_schema.json uses; a list of errors."""
    errs = []
    types = schema.get("type")
    if types is not None:
        types = types if isinstance(types, list) else [types]
        ok = False
        for t in types:
            if t == "object" and isinstance(doc, dict):
                ok = True
            elif t == "string" and isinstance(doc, str):
                ok = True
            elif t == "integer" and isinstance(doc, int) and not isinstance(doc, bool):
                ok = True
            elif t == "number" and isinstance(doc, (int, float)) and not isinstance(doc, bool):
                ok = True
            elif t == "boolean" and isinstance(doc, bool):
                ok = True
            elif t == "null" and doc is None:
                ok = True
        if not ok:
            return ["%s: %r is not %s" % (path, doc, types)]
    if "const" in schema and doc != schema["const"]:
        errs.append("%s: %r is not %r" % (path, doc, schema["const"]))
    if "enum" in schema and doc not in schema["enum"]:
        errs.append("%s: %r not in %r" % (path, doc, schema["enum"]))
    if "minimum" in schema and doc < schema["minimum"]:
        errs.append("%s: %r < %r" % (path, doc, schema["minimum"]))
    if "maximum" in schema and doc > schema["maximum"]:
        errs.append("%s: %r > %r" % (path, doc, schema["maximum"]))
    if isinstance(doc, dict):
        props = schema.get("properties", {})
        for k in schema.get("required", []):
            if k not in doc:
                errs.append("%s: no %s" % (path, k))
        for k, v in doc.items():
            if k in props:
                errs += validate(v, props[k], path + "." + k)
            elif schema.get("additionalProperties") is False:
                errs.append("%s: %s is not in the schema" % (path, k))
    return errs


def check_result(doc, what, mode, op, size, depth, version=1):
    schema = json.load(open(SCHEMA))
    errs = validate(doc, schema)
    check(not errs, "%s: schema: %s" % (what, "; ".join(errs)))
    if errs:
        return
    check(doc["mode"] == mode and doc["op"] == op, "%s: mode %s op %s" % (what, doc["mode"],
                                                                        doc["op"]))
    check(doc["size"] == size and doc["depth"] == depth,
          "%s: size %d depth %d" % (what, doc["size"], doc["depth"]))
    check(doc["pmd"] == PMD and doc["version"] == version,
          "%s: pmd %s, version %d" % (what, doc["pmd"], doc["version"]))
    check(doc["calls"] > 0 and doc["errors"] == 0, "%s: calls %d errors %d" %
          (what, doc["calls"], doc["errors"]))
    check(doc["seconds"] > 0 and doc["calls_per_sec"] > 0, what + ": seconds, calls/s")
    if doc["seconds"] <= 0:
        return
    # calls / seconds is calls_per_sec
    check(abs(doc["calls"] / doc["seconds"] - doc["calls_per_sec"]) <=
          0.01 * doc["calls_per_sec"] + 1, what + ": calls_per_sec = calls / seconds")
    check(abs(doc["bytes_per_sec"] - doc["calls_per_sec"] * size) <=
          0.001 * doc["bytes_per_sec"] + 1, what + ": bytes_per_sec = calls_per_sec * size")
    lat = doc["latency_ns"]
    check(0 < lat["min"] <= lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p999"] <= lat["max"],
          "%s: min <= p50 <= p90 <= p99 <= p999 <= max: %r" % (what, lat))
    check(lat["min"] <= lat["mean"] <= lat["max"], what + ": mean within min..max")
    # one call at a time cannot overlap: the run is at least the sum of latencies
    if depth == 1:
        check(doc["seconds"] * 1e9 >= 0.98 * lat["mean"] * (doc["calls"] - 1),
              what + ": lat: seconds >= calls * mean")
    x = doc["xprt"]
    check(x["wrs"] >= doc["calls"] and 0 < x["doorbells"] <= x["wrs"],
          "%s: wrs %d doorbells %d" % (what, x["wrs"], x["doorbells"]))
    check(x["max_outstanding"] <= max(depth, 1), what + ": max_outstanding <= depth")
    check(doc["git_commit"] is None or len(doc["git_commit"]) >= 7, what + ": git_commit")


# ------------------------------------------------------------ groups

def expect_usage(args, msg):
    rc, out, err = run(args, timeout=20)
    lines = [l for l in err.splitlines() if l]
    check(rc == 2, "%s: exit %d, want 2 (%s)" % (args, rc, err.strip()))
    check(len(lines) >= 1 and msg in lines[0] and lines[0].startswith("rpcrdma-perf: "),
          "%s: first line %r should say %r" % (args, lines[0] if lines else "", msg))
    check(out == "", "%s: nothing on stdout" % args)


def test_options():
    rc, out, err = run(["--help"])
    check(rc == 0 and err == "", "--help exits 0")
    for sect in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES"]:
        check(("\n" + sect + "\n") in ("\n" + out), "--help has " + sect)
    for opt in ["--mode", "--op", "--size", "--depth", "--version", "--inline", "--pmd",
                "--server",
                "--client", "--duration", "--count", "--json", "--compare", "--threshold",
                "--input", "--summary", "--warmup", "--quiet", "--lcores", "--devargs",
                "--log-level"]:
        check(re.search(r"^    (-[a-zA-Z], )?%s\b" % re.escape(opt), out, re.M),
              "--help documents " + opt)
    check("3  --compare" in out, "--help: exit 3 of --compare")
    check("    -h, --help" in out and "    -V, --tool-version" in out,
          "--help documents -h and -V")
    for short in ("-s, --size", "-n, --count", "-D, --duration"):
        check(("    " + short) in out, "--help documents " + short)
    # -h is --help
    rc_h, out_h, err_h = run(["-h"])
    check(rc_h == 0 and out_h == out and err_h == "", "-h prints --help: %d %r" % (rc_h, err_h))
    # -V, --tool-version: the tool's version and commit, as its JSON names them
    rc, vout, err = run(["-V"])
    rc2, vout2, err2 = run(["--tool-version"])
    check(rc == 0 and rc2 == 0 and vout == vout2 and err == "" and err2 == "",
          "-V and --tool-version: %d %r, %d %r" % (rc, vout, rc2, vout2))
    rc, jout, err = run(["--mode", "lat", "--count", "10", "--quiet", "--json", "-"])
    if check(rc == 0, "--json - for -V: exit %d %r" % (rc, err)):
        doc = json.loads(jout)
        want = "rpcrdma-perf %s" % doc["rpcrdma_version"]
        if doc["git_commit"] is not None:
            want += " (git %s)" % doc["git_commit"]
        check(vout == want + "\n", "-V prints %r, want %r" % (vout, want))
    bad = [
        (["--bogus"], "unknown option '--bogus'"),
        (["-x"], "unknown option '-x'"),
        (["--mode"], "option '--mode' needs a value"),
        (["--mode", "fast"], "--mode: 'fast' is not one of lat, iops, bw"),
        (["--op", "delete"], "--op: 'delete' is not one of null, read, write"),
        (["--pmd", "tcp"], "--pmd: 'tcp' is not one of shm, verbs"),
        (["--log-level", "rpcrdma.pmd"], "--log-level: 'rpcrdma.pmd' is not TYPE:LEVEL"),
        (["--log-level", "rpcrdma.pmd:loud"], "--log-level: 'loud' is not a level"),
        (["--mode", "iops", "--depth", "0"], "--depth: 0 is out of range 1..256"),
        (["--mode", "iops", "--depth", "257"], "--depth: 257 is out of range 1..256"),
        (["--mode", "iops", "--depth", "-1"], "--depth: '-1' is not a number"),
        (["--mode", "iops", "--depth", "3x"], "--depth: '3x' is not a number"),
        (["--mode", "iops", "--depth", "99999999999999999999999"], "--depth: "),
        (["--op", "read", "--size", "2m"], "--size: 2m is out of range 0..1048576"),
        (["--op", "read", "--size", "1048577"], "--size: 1048577 is out of range"),
        (["--op", "read", "--size", "k"], "--size: 'k' is not a number"),
        (["--duration", "0"], "--duration: 0 is out of range 0.01..86400"),
        (["--duration", "nan"], "--duration: 'nan' is not a number"),
        (["--duration", "1e9"], "--duration: 1e9 is out of range"),
        (["--count", "0"], "--count: 0 is out of range 1..1000000000000"),
        (["--warmup", "-5"], "--warmup: '-5' is not a number"),
        (["--threshold", "-1"], "--threshold: -1 is out of range 0..1000"),
        (["--version", "3"], "--version: 3 is out of range 1..2"),
        (["--inline", "512"], "--inline: 512 is out of range 1024..4096"),
        (["--inline", "8k"], "--inline: 8k is out of range 1024..4096"),
        (["--inline", "big"], "--inline: 'big' is not a number"),
        (["--count", "5", "--duration", "1"], "--duration and --count: give one"),
        (["--mode", "lat", "--depth", "4"], "--depth: --mode lat runs one call at a time"),
        (["--size", "4096"], "--size: --op null carries no payload"),
        (["--mode", "bw", "--op", "null"], "--mode bw needs --op read or write"),
        (["--server", "@a", "--client", "@a"], "--server and --client: give one"),
        (["--server", ""], "--server: empty address"),
        (["--pmd", "verbs"], "--pmd verbs needs an IP address"),
        (["--input", "x.json"], "--input needs --compare OLD.json"),
        (["--summary"], "--summary: give result files"),
        (["extra"], "unexpected argument 'extra'"),
        # perftest's short options are the long ones: the same checks, the same words
        (["-s"], "option '-s' needs a value"),
        (["--op", "read", "-s", "2m"], "--size: 2m is out of range 0..1048576"),
        (["-s", "4096"], "--size: --op null carries no payload"),
        (["-n", "0"], "--count: 0 is out of range 1..1000000000000"),
        (["-D", "0"], "--duration: 0 is out of range 0.01..86400"),
        (["-n", "5", "-D", "1"], "--duration and --count: give one"),
        (["--tool-version=1"], "option '--tool-version=1'"),
        (["--server", "@a", "--json", "x.json"], "--json and --compare are for the client"),
    ]
    for args, msg in bad:
        expect_usage(args, msg)
    # a result file that is not one
    with tempfile.TemporaryDirectory() as d:
        junk = os.path.join(d, "junk.json")
        for text, msg in [("{\"mode\": ", "unexpected end"), ("[1, 2]", "no number"),
                          ("{\"a\": tru}", "bad value"), ("", "unexpected end")]:
            open(junk, "w").write(text)
            rc, out, err = run(["--summary", junk])
            check(rc == 1 and msg in err, "--summary of %r: exit %d %r" % (text, rc, err))
        rc, out, err = run(["--summary", os.path.join(d, "none.json")])
        check(rc == 1 and "No such file" in err, "--summary of a missing file: %r" % err)
    # verbs without a device: a clear error, exit 1
    if not os.path.isdir("/sys/class/infiniband"):
        rc, out, err = run(["--pmd", "verbs", "--address", "127.0.0.1:20049",
                            "--count", "1"])
        check(rc == 1 and "no RDMA device for --pmd verbs" in err,
              "--pmd verbs without a device: exit %d %r" % (rc, err))


def test_modes():
    runs = [
        (["--mode", "lat", "--count", "300"], "lat", "null", 0, 1),
        (["--mode", "iops", "--depth", "8", "--count", "3000"], "iops", "null", 0, 8),
        (["--mode", "iops", "--depth", "16", "--duration", "0.3"], "iops", "null", 0, 16),
        (["--mode", "iops", "--op", "read", "--count", "2000"], "iops", "read", 4096, 32),
        (["--mode", "bw", "--op", "read", "--size", "64k", "--depth", "4", "--count", "200"],
         "bw", "read", 65536, 4),
        (["--mode", "bw", "--op", "write", "--size", "1m", "--depth", "2", "--count", "40"],
         "bw", "write", 1048576, 2),
        (["--mode", "bw", "--op", "write", "--size", "100", "--count", "500"],
         "bw", "write", 100, 32),
        (["--mode", "lat", "--op", "read", "--size", "0", "--count", "100", "--warmup", "0"],
         "lat", "read", 0, 1),
        (["--mode", "lat", "--op", "read", "--size", "512", "--count", "100"], "lat", "read",
         512, 1),
    ]
    with tempfile.TemporaryDirectory() as d:
        files = []
        for args, mode, op, size, depth in runs:
            out_json = os.path.join(d, "%d.json" % len(files))
            rc, out, err = run(args + ["--json", out_json])
            what = " ".join(args)
            check(rc == 0, "%s: exit %d: %s" % (what, rc, err.strip()))
            if rc != 0:
                continue
            doc = json.load(open(out_json))
            check_result(doc, what, mode, op, size, depth)
            # the table: a header and one row with the mode, op and size
            rows = [l.split() for l in out.splitlines() if l and not l.startswith("[")]
            check(len(rows) == 2 and rows[0][:3] == ["mode", "op", "size"] and
                  rows[1][:4] == [mode, op, str(size), str(depth)],
                  "%s: summary table %r" % (what, rows))
            if "--duration" in args:
                # at least what was asked; the upper bound only catches a run that
                # ignores --duration (a loaded machine can preempt the last poll)
                check(0.29 <= doc["seconds"] <= 10, "%s: seconds %f" % (what, doc["seconds"]))
            if "--count" in args and "--warmup" not in args:
                n = int(args[args.index("--count") + 1])
                check(doc["calls"] == n, "%s: --count %d measured %d" % (what, n, doc["calls"]))
            files.append(out_json)
        # chunks were used where they must be: 64 KiB and 1 MiB do not fit inline
        for f in files:
            doc = json.load(open(f))
            if doc["size"] >= 65536 and doc["op"] == "write":
                check(doc["xprt"]["chunked_msgs"] > 0 or doc["xprt"]["long_msgs"] > 0,
                      "%s: read chunks for %d bytes" % (f, doc["size"]))
            if doc["op"] == "null":
                check(doc["xprt"]["short_msgs"] >= doc["calls"], f + ": NULL calls are Short")
        rc, out, err = run(["--summary"] + files)
        check(rc == 0 and len(out.splitlines()) == len(files) + 1,
              "--summary: a row per file: %r" % out)
        # --json - writes to stdout
        rc, out, err = run(["--mode", "lat", "--count", "50", "--quiet", "--json", "-"])
        check(rc == 0 and json.loads(out)["calls"] == 50, "--json -: %r %r" % (out[:80], err))


def test_output():
    """What --json - writes on stdout (the JSON alone, the table and the
    comparison on stderr), and perftest's short options run as the long."""
    with tempfile.TemporaryDirectory() as d:
        # perftest's -s, -n and -D run what --size, --count and --duration run
        for args, key, want in ((["--op", "read", "-s", "8k", "-n", "60"], "size", 8192),
                                (["--op", "write", "-s", "1k", "-n", "60"], "calls", 60),
                                (["-D", "0.3"], "seconds", None)):
            rc, out, err = run(["--mode", "lat", "--quiet", "--json", "-"] + args)
            doc = json.loads(out) if rc == 0 else {}
            if not check(rc == 0, "%s: exit %d %r" % (args, rc, err)):
                continue
            check_result(doc, " ".join(args), "lat", doc["op"], doc["size"], 1)
            if want is not None:
                check(doc[key] == want and doc["calls"] == 60,
                      "%s: %s %r, calls %r" % (args, key, doc[key], doc["calls"]))
            else:
                check(0.3 <= doc["seconds"] <= 10, "-D 0.3: seconds %r" % doc["seconds"])
        # --json - writes to stdout, and nothing else does: the table goes to
        # stderr, so that the output pipes into a JSON reader (as jq)
        same = ["--mode", "iops", "--depth", "4", "--count", "500"]
        base = os.path.join(d, "base.json")
        rc, out, err = run(same + ["--quiet", "--json", base])
        check(rc == 0, "%s: exit %d %r" % (same, rc, err))
        for extra in ([], ["--compare", base]):
            args = same + ["--json", "-"] + extra
            rc, out, err = run(args)
            try:
                doc = json.loads(out)
            except ValueError as e:
                doc = None
                check(False, "%s: stdout is not JSON alone (%s): %r" % (args, e, out[:200]))
            check(rc in (0, 3) and doc is not None and doc["calls"] == 500,
                  "%s: exit %d, %r" % (args, rc, err[-200:]))
            rows = [l.split() for l in err.splitlines() if l.startswith(("mode ", "iops "))]
            check(len(rows) == 2 and rows[0][:3] == ["mode", "op", "size"] and
                  rows[1][:4] == ["iops", "null", "0", "4"],
                  "%s: the table on stderr: %r" % (args, err))
            if extra:
                check("compare with" in err and "compare with" not in out,
                      "--json - --compare: the comparison on stderr: %r" % err)


def test_compare():
    with tempfile.TemporaryDirectory() as d:
        base = os.path.join(d, "base.json")
        rc, out, err = run(["--mode", "iops", "--depth", "4", "--count", "2000", "--quiet",
                            "--json", base])
        check(rc == 0, "base run: %s" % err)
        if rc != 0:
            return
        doc = json.load(open(base))

        def variant(name, edit):
            v = json.loads(json.dumps(doc))
            edit(v)
            p = os.path.join(d, name + ".json")
            json.dump(v, open(p, "w"))
            return p

        rc, out, err = run(["--compare", base, "--input", base])
        check(rc == 0 and "no regression" in out and "WORSE" not in out,
              "equal results pass: %d %r %r" % (rc, out, err))
        check("calls/s" in out and "p99 ns" in out and "+0.0%" in out, "changes printed: %r" % out)
        slow = variant("slow", lambda v: v.update(calls_per_sec=v["calls_per_sec"] * 0.9))
        rc, out, err = run(["--compare", base, "--input", slow])
        check(rc == 3 and "calls/s" in out and "-10.0%  WORSE" in out and "regression:" in out,
              "10 %% fewer calls/s is caught: %d %r" % (rc, out))
        rc, out, err = run(["--compare", base, "--input", slow, "--threshold", "15"])
        check(rc == 0, "... but passes --threshold 15: %d %r" % (rc, out))
        p99 = variant("p99", lambda v: v["latency_ns"].update(p99=v["latency_ns"]["p99"] * 2))
        rc, out, err = run(["--compare", base, "--input", p99])
        check(rc == 3 and "+100.0%  WORSE" in out, "a doubled p99 is caught: %d %r" % (rc, out))
        better = variant("better", lambda v: (v.update(calls_per_sec=v["calls_per_sec"] * 2),
                                              v["latency_ns"].update(p50=v["latency_ns"]["p50"]
                                                                     // 2)))
        rc, out, err = run(["--compare", base, "--input", better])
        check(rc == 0 and "WORSE" not in out, "improvements pass: %d %r" % (rc, out))
        mx = variant("max", lambda v: v["latency_ns"].update(max=v["latency_ns"]["max"] * 10))
        rc, out, err = run(["--compare", base, "--input", mx])
        check(rc == 0 and "not gated" in out, "max is printed, not gated: %d %r" % (rc, out))
        other = variant("other", lambda v: v.update(depth=8))
        rc, out, err = run(["--compare", base, "--input", other])
        check(rc == 2 and "different runs (depth)" in err, "other scenario: %d %r" % (rc, err))
        rc, out, err = run(["--compare", os.path.join(d, "none.json"), "--input", base])
        check(rc == 1 and "none.json" in err, "missing OLD.json: %d %r" % (rc, err))
        # after a run: a real run against a base no run can be worse than (a
        # million times slower; a threshold alone is not enough, since one
        # preemption moves p99.9 of a short run by more than 1000 %)
        def slower(v):
            v.update(calls_per_sec=v["calls_per_sec"] / 1e6)
            for k in v["latency_ns"]:
                v["latency_ns"][k] = v["latency_ns"][k] * 1000000
        generous = variant("generous", slower)
        rc, out, err = run(["--mode", "iops", "--depth", "4", "--count", "2000", "--quiet",
                            "--compare", generous])
        check(rc == 0 and "no regression" in out, "run + --compare: %d %r %r" % (rc, out, err))
        # and one that must fail: the base made 1000 times better
        fast = variant("fast", lambda v: v.update(calls_per_sec=v["calls_per_sec"] * 1000))
        rc, out, err = run(["--mode", "iops", "--depth", "4", "--count", "2000", "--quiet",
                            "--compare", fast])
        check(rc == 3 and "WORSE" in out, "run + --compare catches: %d %r" % (rc, out))


def test_xproc():
    addr = "@rpcrdma-perf-test-%d" % os.getpid()
    srv = subprocess.Popen([PERF, "--server", addr], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        with tempfile.TemporaryDirectory() as d:
            res = os.path.join(d, "c.json")
            rc, out, err = run(["--client", addr, "--mode", "bw", "--op", "read",
                                "--size", "64k", "--depth", "4", "--count", "300",
                                "--json", res], timeout=60)
            check(rc == 0, "client: exit %d %r" % (rc, err))
            if rc == 0:
                doc = json.load(open(res))
                check_result(doc, "xproc client", "bw", "read", 65536, 4)
                check(doc["topology"] == "client", "topology client")
        sout, serr = srv.communicate(timeout=30)
        check(srv.returncode == 0, "server: exit %s %r" % (srv.returncode, serr))
        # warm-up (100) + 300 measured calls, all answered
        check("server: 400 calls, 0 answered with an error" in sout, "server output %r" % sout)
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
    # a client with nobody listening gives up with a clear error
    rc, out, err = run(["--client", addr + "-none", "--count", "1", "--timeout", "1"],
                     timeout=60)
    check(rc == 1 and "cannot connect" in err, "no server: %d %r" % (rc, err))


def test_v2():
    """--version 2: inline calls of 3 KiB (version 1 needs a read chunk), the
    fallback against a version 1 server, and a capture of version 2 traffic
    read by rpcrdma-decode."""
    with tempfile.TemporaryDirectory() as d:
        for vers, form in ((2, "short_msgs"), (1, "chunked_msgs")):
            res = os.path.join(d, "w%d.json" % vers)
            args = ["--version", str(vers), "--mode", "lat", "--op", "write", "--size", "3k",
                    "--count", "300", "--quiet", "--json", res]
            rc, out, err = run(args)
            check(rc == 0, "%s: exit %d %r" % (args, rc, err))
            if rc == 0:
                doc = json.load(open(res))
                check_result(doc, "version %d write 3k" % vers, "lat", "write", 3072, 1, vers)
                check(doc["xprt"][form] >= doc["calls"],
                      "version %d: 3 KiB calls are %s: %r" % (vers, form, doc["xprt"]))
        # --inline 4096 in version 1: the same calls fit inline again
        res = os.path.join(d, "i.json")
        rc, out, err = run(["--version", "1", "--inline", "4096", "--op", "write", "--size",
                            "3k", "--count", "100", "--quiet", "--json", res])
        check(rc == 0 and json.load(open(res))["xprt"]["short_msgs"] >= 100,
              "--inline 4096: 3 KiB calls inline in version 1: %d %r" % (rc, err))

        # a version 2 client, a version 1 server: version 1, said once
        addr = "@rpcrdma-perf-v2-%d" % os.getpid()
        srv = subprocess.Popen([PERF, "--server", addr, "--version", "1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=ENV)
        try:
            res = os.path.join(d, "fb.json")
            rc, out, err = run(["--client", addr, "--version", "2", "--count", "50",
                                "--quiet", "--json", res])
            check(rc == 0, "fallback client: exit %d %r" % (rc, err))
            check(err.count("the server does not support version 2: running in version 1")
                  == 1, "fallback: one warning: %r" % err)
            if rc == 0:
                check_result(json.load(open(res)), "fallback", "lat", "null", 0, 1, 1)
            srv.communicate(timeout=30)
            check(srv.returncode == 0, "server exit %s" % srv.returncode)
        finally:
            if srv.poll() is None:
                srv.kill()
                srv.wait()

        # a capture of version 2 traffic, from the probe on
        cap = os.path.join(d, "v2.pcapng")
        rc, out, err = run(["--version", "2", "--count", "20", "--warmup", "0", "--quiet",
                            "--capture", cap])
        check(rc == 0, "--capture: exit %d %r" % (rc, err))
        p = subprocess.run([DECODE, "--json", "--pcap", cap], capture_output=True, text=True,
                           timeout=60)
        every = [json.loads(l) for l in p.stdout.splitlines()]
        # each side's ROPT_INITXCH (transport characteristics), once version 2 is settled
        opts = [m for m in every if m.get("proc") == "RDMA2_OPTIONAL"]
        check(len(opts) == 2 and all(m["optional"]["opttype"] == "ROPT_INITXCH" and
                                     m["optional"]["optinfo"]["start"]["XCHAR_RBSIZ"] == 4096
                                     for m in opts),
              "two ROPT_INITXCH, Receive Buffer Size 4096: %r" % opts)
        # no RPC message inside: rdma_optdir says the sender, CALL (client), REPLY (server)
        check(sorted(m["optional"]["optdir"] for m in opts) == ["CALL", "REPLY"],
              "ROPT_INITXCH optdir: the client's CALL, the server's REPLY: %r" % opts)
        msgs = [m for m in every if m.get("proc") != "RDMA2_OPTIONAL"]
        check(p.returncode == 0 and len(msgs) == 2 * 21,
              "rpcrdma-decode: the probe and 20 calls with their replies: %d messages, %r" %
              (len(msgs), p.stderr[:200]))
        calls = [m for m in msgs if m.get("direction") == "CALL"]
        replies = [m for m in msgs if m.get("direction") == "REPLY"]
        check(all(m["vers"] == 2 and m["proc"] == "RDMA2_MSG" and "error" not in m
                  for m in msgs), "every message RDMA2_MSG in version 2")
        check(len(calls) == 21 and len(replies) == 21 and
              all(m["rpc"]["type"] == "CALL" for m in calls) and
              all(m["rpc"]["type"] == "REPLY" for m in replies),
              "directions CALL and REPLY match the RPC msg_type")
        check(all(m["xid"] == m["rpc"]["xid"] for m in msgs), "transport XID == RPC XID")
        check(sorted(m["xid"] for m in calls) == sorted(m["xid"] for m in replies),
              "every call answered")


def test_verbs():
    """Every mode over the verbs PMD on a real device (the guest suite)."""
    global PMD
    addr = ENV.get("RPCRDMA_TEST_VERBS_ADDR", "")
    devargs = ENV.get("RPCRDMA_TEST_VERBS_DEVARGS", "")
    if not addr:
        print("skip: RPCRDMA_TEST_VERBS_ADDR is not set (an IP address of an RDMA device)")
        sys.exit(77)
    PMD = "verbs"
    host = addr.rsplit(":", 1)[0] if addr.count(":") == 1 else addr
    dev = ["--pmd", "verbs", "--devargs", devargs] if devargs else ["--pmd", "verbs"]
    # name, options, mode, op, size, depth; counts small: the guest is emulated
    runs = [("lat null", ["--mode", "lat", "--count", "300"], "lat", "null", 0, 1),
            ("iops null", ["--mode", "iops", "--depth", "16", "--count", "3000"],
             "iops", "null", 0, 16),
            ("bw read 4k", ["--mode", "bw", "--op", "read", "--size", "4k", "--count", "1000"],
             "bw", "read", 4096, 32),
            ("bw write 4k", ["--mode", "bw", "--op", "write", "--size", "4k",
                             "--count", "1000"], "bw", "write", 4096, 32),
            ("bw read 64k", ["--mode", "bw", "--op", "read", "--size", "64k",
                             "--count", "500"], "bw", "read", 65536, 32),
            ("bw write 64k", ["--mode", "bw", "--op", "write", "--size", "64k",
                              "--count", "500"], "bw", "write", 65536, 32),
            ("bw read 1m", ["--mode", "bw", "--op", "read", "--size", "1m", "--depth", "4",
                            "--count", "60"], "bw", "read", 1048576, 4),
            ("bw write 1m", ["--mode", "bw", "--op", "write", "--size", "1m", "--depth", "4",
                             "--count", "60"], "bw", "write", 1048576, 4)]
    with tempfile.TemporaryDirectory() as d:
        for i, (name, opts, mode, op, size, depth) in enumerate(runs):
            res = os.path.join(d, "%d.json" % i)
            rc, out, err = run(dev + ["--address", "%s:%d" % (host, 21049 + i), "--quiet",
                                      "--json", res] + opts, timeout=300)
            check(rc == 0, "%s: exit %d %r" % (name, rc, err[-2000:]))
            if rc == 0:
                doc = json.load(open(res))
                check_result(doc, name, mode, op, size, depth)
                print("%s: %d calls, %.0f calls/s (emulated)" % (name, doc["calls"],
                                                                  doc["calls_per_sec"]))
        # two processes: rdma_cm across them, RFC 8797 private data on the wire
        srv_addr = "%s:%d" % (host, 21099)
        for opts, mode, op, size, depth in [
                (["--mode", "lat", "--count", "200"], "lat", "null", 0, 1),
                (["--mode", "bw", "--op", "write", "--size", "64k", "--depth", "8",
                  "--count", "200"], "bw", "write", 65536, 8)]:
            srv = subprocess.Popen([PERF, "--server", srv_addr] + dev, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, env=ENV)
            try:
                res = os.path.join(d, "client.json")
                rc = 1
                for _ in range(50):  # until the server listens
                    rc, out, err = run(["--client", srv_addr, "--json", res, "--quiet"] + dev +
                                       opts, timeout=300)
                    if rc == 0 or "cannot connect" not in err:
                        break
                check(rc == 0, "client %s: exit %d %r" % (mode, rc, err[-2000:]))
                if rc == 0:
                    doc = json.load(open(res))
                    check_result(doc, "client " + mode, mode, op, size, depth)
                    check(doc["topology"] == "client", "topology client")
                    print("client %s: %d calls" % (mode, doc["calls"]))
                sout, serr = srv.communicate(timeout=60)
                check(srv.returncode == 0, "server: exit %s %r" % (srv.returncode, serr))
                check(", 0 answered with an error" in sout, "server output %r" % sout)
            finally:
                if srv.poll() is None:
                    srv.kill()
                    srv.wait()


{"options": test_options, "modes": test_modes, "output": test_output,
 "compare": test_compare, "xproc": test_xproc, "v2": test_v2, "verbs": test_verbs}[GROUP]()
print("test_perf %s: %d checks, %d failed" % (GROUP, checks, failures))
sys.exit(1 if failures else 0)
