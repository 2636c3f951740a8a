#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The shm PMD's conformance cases across two processes where tmpfs, and so
# every memfd, is backed by transparent huge pages (shmem_enabled=always).
# There a memfd reports a 2 MiB st_blksize yet maps at any 4 KiB page: a
# pool of a few pages must register, and its peer map it. The cases run
# twice: with RPCRDMA_NO_HUGE=1, so that the pools are memfds on tmpfs,
# and then with the pools on hugetlbfs where the machine has hugepages
# (the guest has), whose windows align to the huge page. The setting is
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
echo "shm_thp: the pools on tmpfs (RPCRDMA_NO_HUGE=1)"
RPCRDMA_NO_HUGE=1 "$1" shm xproc || exit 1
echo "shm_thp: the pools on hugetlbfs, where the machine has hugepages"
"$1" shm xproc
