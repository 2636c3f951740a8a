#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The main job of `make run`. Until rpcrdma-perf exists, decode built-in
# sample messages with rpcrdma-decode.
set -eu
BUILD=${1:-build}
if [ ! -x "$BUILD/apps/rpcrdma-decode" ]; then
	echo "run: $BUILD/apps/rpcrdma-decode is not built yet" >&2
	exit 1
fi
exec "$BUILD/apps/rpcrdma-decode" --samples
