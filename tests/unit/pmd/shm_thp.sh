#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The shm PMD's conformance cases across two processes where tmpfs, and so
# every memfd, is backed by transparent huge pages (shmem_enabled=always).
# There a memfd reports a 2 MiB st_blksize yet maps at any 4 KiB page: a
# pool of a few pages must register, and its peer map it. The setting is
# the whole machine's, so the test runs only in the throwaway test guest
# (suite 'hw', test setup 'guest': RPCRDMA_TEST_GUEST=1), and puts the old
# value back.
#
#   sh shm_thp.sh CONFORMANCE_EXECUTABLE
#
# Exit: the conformance run's status; 77 outside the guest, or where the
# setting cannot be set.
set -u
knob=/sys/kernel/mm/transparent_hugepage/shmem_enabled
[ "${RPCRDMA_TEST_GUEST:-0}" = 1 ] || {
	echo "shm_thp: skipped: it changes $knob, so it runs in the test guest only (RPCRDMA_TEST_GUEST=1)"
	exit 77
}
[ -w "$knob" ] || {
	echo "shm_thp: skipped: $knob is not writable"
	exit 77
}
# "always within_size advise [never] deny force": the word in brackets
old=$(sed -n 's/.*\[\([a-z_]*\)\].*/\1/p' "$knob")
echo always >"$knob" || {
	echo "shm_thp: skipped: cannot write $knob"
	exit 77
}
trap 'echo "$old" >"$knob"' EXIT
echo "shm_thp: $knob: always (was $old)"
"$1" shm xproc
