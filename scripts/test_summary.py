#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Print the closing line of a `meson test` run from its JSON log:

    fast: N passed, N failed, N skipped

    python3 scripts/test_summary.py BUILD/meson-logs/testlog.json [LABEL]

Exits 1 when a test failed or none ran, so it can close `make test`.
"""
import json
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    with open(argv[1], encoding="utf-8") as f:
        for line in f:
            result = json.loads(line).get("result")
            if result in ("OK", "EXPECTEDFAIL"):
                counts["passed"] += 1
            elif result == "SKIP":
                counts["skipped"] += 1
            else:
                counts["failed"] += 1
    label = argv[2] if len(argv) > 2 else "tests"
    print(f"{label}: {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['skipped']} skipped")
    return 1 if counts["failed"] or counts["passed"] == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
