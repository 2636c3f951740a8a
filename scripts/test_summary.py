#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Print the closing lines of `meson test` runs from their JSON logs:

    fast: N passed, N failed, N skipped

    python3 scripts/test_summary.py LOG [LABEL]
    python3 scripts/test_summary.py LOG LABEL LOG LABEL ...

With more than one log, one line each and a last one for them all
("all: ..."); a LOG that does not exist is left out (a suite that was
skipped). Exits 1 when a test failed or none ran, so it can close
`make test`.
"""
import json
import os
import sys


def count(path):
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    with open(path, encoding="utf-8") as f:
        for line in f:
            result = json.loads(line).get("result")
            if result in ("OK", "EXPECTEDFAIL"):
                counts["passed"] += 1
            elif result == "SKIP":
                counts["skipped"] += 1
            else:
                counts["failed"] += 1
    return counts


def line(label, c):
    return f"{label}: {c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped"


def main(argv):
    args = argv[1:]
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if len(args) <= 2:
        c = count(args[0])
        print(line(args[1] if len(args) > 1 else "tests", c))
        return 1 if c["failed"] or c["passed"] == 0 else 0
    if len(args) % 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    total = {"passed": 0, "failed": 0, "skipped": 0}
    for path, label in zip(args[::2], args[1::2]):
        if not os.path.exists(path):
            continue
        c = count(path)
        print(line(label, c))
        for k in total:
            total[k] += c[k]
    print(line("all", total))
    return 1 if total["failed"] or total["passed"] == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
