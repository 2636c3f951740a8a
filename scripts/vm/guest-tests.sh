#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Inside the test guest (run.sh --siw): the meson suite 'hw' of BUILD once on
# each software RDMA device, rxe0 (RoCEv2) and siw0 (iWARP), with the
# environment the hw tests read (tests/unit/pmd/meson.build). Each run's log
# is BUILD/meson-logs/guest-<dev>.json; the exit status says whether both
# passed.
#
#   sh scripts/vm/guest-tests.sh BUILD [MESON_TEST_ARGS...]
set -u
BUILD=$1
shift
# hugepages, as on a server: the EAL runs --in-memory on them
echo 256 >/proc/sys/vm/nr_hugepages
mkdir -p /run/rpcrdma-test
status=0
for dev in "rxe0 192.0.2.1 dev=rxe0,gid_index=1" "siw0 198.51.100.1 dev=siw0"; do
	# shellcheck disable=SC2086 # three words
	set -- $dev "$@"
	name=$1 addr=$2 devargs=$3
	shift 3
	echo "guest: the hw suite on $name ($addr, $devargs)"
	RPCRDMA_TEST_VERBS_ADDR=$addr RPCRDMA_TEST_VERBS_DEVARGS=$devargs \
		meson test -C "$BUILD" --no-rebuild --setup guest --suite hw --logbase "guest-$name" \
		--print-errorlogs "$@" || status=1
done
exit $status
