#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Check (default) or apply (--fix) the .clang-format style on every C and
# C++ source of the project. Exits 1 listing the files that differ.
set -eu
cd "$(dirname "$0")/.."

files=$(git ls-files -co --exclude-standard -- \
	'*.c' '*.h' '*.cc' '*.hpp' | grep -v '^tests/fuzz/corpus/' || true)
[ -n "$files" ] || exit 0

if [ "${1:-}" = "--fix" ]; then
	# shellcheck disable=SC2086
	clang-format -i $files
	exit 0
fi

bad=""
for f in $files; do
	if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
		bad="$bad $f"
	fi
done
if [ -n "$bad" ]; then
	echo "check-format: these files differ from .clang-format (run 'make format'):" >&2
	for f in $bad; do echo "  $f" >&2; done
	exit 1
fi
echo "check-format: $(echo "$files" | wc -l) files clean"
