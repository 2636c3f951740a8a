#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The main job of `make run`. Until rpcrdma-perf exists, decode built-in
# sample messages with rpcrdma-decode. The top-level meson.build builds the
# apps, so they land at the top of the build directory.
set -eu
BUILD=${1:-build}
for exe in "$BUILD/rpcrdma-decode" "$BUILD/apps/rpcrdma-decode"; do
	if [ -x "$exe" ]; then
		exec "$exe" --samples
	fi
done
echo "run: rpcrdma-decode is not built yet in $BUILD" >&2
exit 1
