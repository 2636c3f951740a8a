#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The stack across a network: two guests joined by a QEMU socket link over
# the host's loopback (run.sh --node), rxe1 on eth0 in each, the server in
# node 1 (203.0.113.1) and the client in node 2 (203.0.113.2), running
# tests/integration/nodes/test_two_nodes.py: rpcrdma-perf in every mode and
# the block store with --verify. Each node's lines are prefixed with its
# name; the exit status is 0 when both sides passed.
#
#   scripts/vm/two-nodes.sh [BUILD]        (default build-guest, built by
#                                           guest-build.sh)
#
# Exit 0 passed, 1 failed, 77 skipped (the guest cannot run here).
set -u -o pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build-guest}
[ "${RPCRDMA_VM_SKIP:-0}" = 1 ] && echo "two-nodes: skipped: RPCRDMA_VM_SKIP=1" && exit 77
sh scripts/vm/guest-build.sh "$BUILD"
case $? in
0) ;;
77) echo "two-nodes: skipped: the guest cannot be provisioned here" && exit 77 ;;
*) exit 1 ;;
esac

# both guests at once: this run holds the one-guest lock for the two
exec 9>/tmp/rpcrdma-vm.lock
flock 9
export RPCRDMA_VM_LOCKED=1
# the link's TCP port on the host's loopback: a free one
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
T=tests/integration/nodes/test_two_nodes.py
DEVARGS=dev=rxe1,gid_index=1
start=$(date +%s)
scripts/vm/run.sh --no-rxe --node 1 --listen "$PORT" --timeout 1500 \
	python3 $T server "$BUILD" 203.0.113.1 $DEVARGS 2>&1 | sed -u 's/^/node1: /' &
P1=$!
# the second QEMU connects to the first's listening socket: let it open
for _ in $(seq 50); do
	ss -ltn "sport = :$PORT" | grep -q LISTEN && break
	sleep 0.2
done
scripts/vm/run.sh --no-rxe --node 2 --connect "$PORT" --timeout 1500 \
	python3 $T client "$BUILD" 203.0.113.1 $DEVARGS 2>&1 | sed -u 's/^/node2: /' &
P2=$!
wait $P1
S1=$?
wait $P2
S2=$?
echo "two-nodes: server node exit $S1, client node exit $S2, $(($(date +%s) - start)) s"
[ "$S1" = 0 ] && [ "$S2" = 0 ]
