#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# /init of the guest's initramfs (busybox). Loads the modules, mounts the
# host's root read-only (virtio-9p, tag "hostroot") under a tmpfs overlay so
# that host-built programs run unchanged and the guest may write anywhere
# (writes are lost at power-off), mounts the run's control folder (tag
# "vmctl") at /run/vmctl and every folder the host shares read-write (tags
# "share0".."share7", at the host path written in /run/vmctl/share<N>), then
# switches root and runs /run/vmctl/guest.sh as PID 1.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
fail() {
	echo "vm-init: $*"
	echo o >/proc/sysrq-trigger
	sleep 60
}
while read -r m; do
	[ -n "$m" ] && { modprobe "$m" || echo "vm-init: modprobe $m failed"; }
done </etc/modules

P9="trans=virtio,version=9p2000.L,msize=262144"
# cache=loose: the host's root does not change while the guest runs
mount -t 9p -o "$P9,ro,cache=loose" hostroot /lower || fail "cannot mount the host's root"
mount -t tmpfs -o mode=0755 tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /newroot ||
	fail "cannot mount the overlay"
for d in proc sys dev; do
	mount --move /$d /newroot/$d
done
mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp
mount -t tmpfs -o mode=0755 tmpfs /newroot/run
mkdir -p /newroot/dev/pts /newroot/dev/shm /newroot/dev/hugepages /newroot/run/vmctl
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /newroot/dev/shm
mount -t hugetlbfs hugetlbfs /newroot/dev/hugepages
# modprobe in the guest's userland finds the guest kernel's modules
mkdir -p /newroot/lib/modules
cp -a /lib/modules/* /newroot/lib/modules/

mount -t 9p -o "$P9,cache=none" vmctl /newroot/run/vmctl || fail "cannot mount the control folder"
for n in 0 1 2 3 4 5 6 7; do
	f=/newroot/run/vmctl/share$n
	[ -s "$f" ] || continue
	p=$(cat "$f")
	mkdir -p "/newroot$p"
	# cache=mmap: the host sees what the guest writes, and mmap works
	mount -t 9p -o "$P9,cache=mmap" "share$n" "/newroot$p" || echo "vm-init: cannot mount $p"
done
[ -x /newroot/run/vmctl/guest.sh ] || fail "no /run/vmctl/guest.sh"
exec switch_root /newroot /run/vmctl/guest.sh
