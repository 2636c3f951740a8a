#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Inside the test guest (run.sh --siw): the meson suite 'hw' of BUILD once on
# each software RDMA device, rxe0 (RoCEv2) and siw0 (iWARP), with the
# environment the hw tests read (tests/unit/pmd/meson.build). Each run's log
# is BUILD/meson-logs/guest-<dev>-guest.json; the exit status says whether both
# passed. Test names as arguments run only those.
#
# KNOWN_<dev> lists the tests of the suite that still fail on that device
# (open in the issue tracker), each with the reason; ONCE_<dev> the tests
# whose PMD paths another device's run has covered, left out there for the
# time make test may take. Neither is run by default there, and the run says
# so. Name one to run it anyway.
#
#   sh scripts/vm/guest-tests.sh BUILD [TEST...]
set -u
BUILD=$1
shift
KNOWN_siw0=""
ONCE_siw0="pmd_conformance_shm_thp:the shm PMD on huge-page tmpfs, no RDMA device: once, on rxe0;blockstore_notify_verbs:the backward NOTIFY over verbs is the same PMD path on both devices, and blockstore_io_verbs runs the block store on siw0;blockstore_capture_verbs:a capture records the work requests of the engine the same way on both devices;perf_capture_verbs:as blockstore_capture_verbs;perf_verbs:the tool's calls take the engine's verbs paths that blockstore_io_verbs (transfers of 1 B to 1 MiB and more) and the nfs3 tests take on siw0, and its options and reports are the same on both devices;pmd_conformance_verbs_xproc:every case runs on siw0 in one process (pmd_conformance_verbs_inproc), each half with a device context of its own; two processes add nothing the device sees, and rxe0's run takes them"

# hugepages, as on a server: the EAL runs --in-memory on them
echo 256 >/proc/sys/vm/nr_hugepages
mkdir -p /run/rpcrdma-test
all=$(meson test -C "$BUILD" --no-rebuild --list --suite hw 2>/dev/null |
	sed -n 's|^.*hw / ||p')
# reason LIST DEV TEST: TEST's reason in LIST_DEV ("test:reason;..."), or nothing
reason() {
	eval echo "\${$1_$2:-}" | tr ';' '\n' | sed -n "s|^$3:||p"
}

status=0
for dev in "rxe0 192.0.2.1 dev=rxe0,gid_index=1" "siw0 198.51.100.1 dev=siw0"; do
	# shellcheck disable=SC2086 # three words
	set -- $dev "$@"
	name=$1 addr=$2 devargs=$3
	shift 3
	tests="$*"
	if [ -z "$tests" ]; then
		for t in $all; do
			why=$(reason KNOWN "$name" "$t")
			covered=$(reason ONCE "$name" "$t")
			if [ -n "$why" ]; then
				echo "guest: $name: not run, a known failure: $t ($why)"
			elif [ -n "$covered" ]; then
				echo "guest: $name: not run, covered: $t ($covered)"
			else
				tests="$tests $t"
			fi
		done
	fi
	echo "guest: the hw suite on $name ($addr, $devargs)"
	# shellcheck disable=SC2086 # a list of test names
	RPCRDMA_TEST_VERBS_ADDR=$addr RPCRDMA_TEST_VERBS_DEVARGS=$devargs \
		meson test -C "$BUILD" --no-rebuild --setup guest --suite hw \
		--logbase "guest-$name" --print-errorlogs $tests || status=1
done
exit $status
