#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# PID 1 of the guest, in the host's userland (after init.sh switched root).
# Brings up the RDMA devices that /run/vmctl/env asks for, runs
# /run/vmctl/cmd with its output in /run/vmctl/stdout and stderr, writes its
# exit status to /run/vmctl/status and powers off.
#
#   rxe0 (RoCEv2) on dummy0, 192.0.2.1/24; GID index 1 is its IPv4 GID
#   siw0 (iWARP) on dummy1, 198.51.100.1/24
#
# rdma_cm needs an Ethernet device with an address (on lo it fails with
# ENODEV); a dummy device has no wire, so no packet leaves the guest. With
# --net (run.sh) the guest also has eth0, a QEMU socket link to another
# guest, with rxe1 on it at 203.0.113.<node>/24.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
C=/run/vmctl
. $C/env
log() { echo "vm-guest: $*" >/dev/console; }

# Wait until @1's port 1 has a non-zero GID at index 1 (the IPv4 GID).
gid_wait() {
	i=0
	while [ $i -lt 100 ]; do
		g=$(cat "/sys/class/infiniband/$1/ports/1/gids/1" 2>/dev/null || true)
		case "$g" in
		"" | 0000:0000:0000:0000:0000:0000:0000:0000) ;;
		*) return 0 ;;
		esac
		sleep 0.1
		i=$((i + 1))
	done
	log "$1: no IPv4 GID after 10 s"
	return 1
}

# A dummy link; the module makes dummy0 itself when it loads.
dummy() {
	[ -e "/sys/class/net/$1" ] || ip link add "$1" type dummy
}

# rdma_dev NAME TYPE NETDEV ADDR/LEN: a software RDMA device on a link.
rdma_dev() {
	ip link set "$3" up && ip addr add "$4" dev "$3" &&
		rdma link add "$1" type "$2" netdev "$3" || {
		log "$1 ($2 on $3) could not be created"
		return 1
	}
}

hostname "vm${VM_NODE:-0}"
ip link set lo up
ok=1
if [ "$VM_RXE" = 1 ]; then
	dummy dummy0 && rdma_dev rxe0 rxe dummy0 192.0.2.1/24 && gid_wait rxe0 ||
		ok=0
fi
if [ "$VM_SIW" = 1 ]; then
	dummy dummy1 && rdma_dev siw0 siw dummy1 198.51.100.1/24 || ok=0
fi
if [ -n "${VM_NODE:-}" ]; then
	rdma_dev rxe1 rxe eth0 "203.0.113.$VM_NODE/24" && gid_wait rxe1 || ok=0
fi
ulimit -l unlimited
if [ $ok = 1 ]; then
	bash $C/cmd </dev/null >$C/stdout 2>$C/stderr
	echo $? >$C/status
else
	echo 125 >$C/status
fi
sync
echo o >/proc/sysrq-trigger
sleep 60
