#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The guest's initramfs: busybox, the kernel modules the guest needs (with
# their dependencies, as modprobe resolves them) and init.sh as /init.
#
#   sh scripts/vm/initramfs.sh KERNEL_ROOT KREL OUT.cpio.gz
#
# KERNEL_ROOT is where the kernel package was unpacked (boot/, lib/modules/).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd -P)
ROOT=$(cd "$1" && pwd -P)
KREL=$2
OUT=$3

# What /init loads, in this order. rdma_rxe needs the crc32 crypto modules
# ("failed to init crc32 algorithm" without them); siw is built by setup.sh.
MODS="virtio_pci virtio_net 9pnet_virtio 9p overlay dummy
crc32_generic crc32-pclmul crc32c_generic crc32c-intel
ib_uverbs ib_umad rdma_ucm rdma_cm ib_cm iw_cm rdma_rxe siw
sunrpc rpcrdma nfsd nfs nfsv3 nfsv4"

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
M=$W/lib/modules/$KREL
mkdir -p "$W/bin" "$W/proc" "$W/sys" "$W/dev" "$W/lower" "$W/rw" "$W/newroot" "$W/etc" "$M"
cp /bin/busybox "$W/bin/busybox"
for a in $(/bin/busybox --list); do
	[ "$a" = busybox ] || ln -s busybox "$W/bin/$a"
done
for m in $MODS; do
	modprobe -d "$ROOT" -S "$KREL" --show-depends "$m" ||
		{ echo "initramfs: no module $m in $KREL" >&2 && exit 1; }
done | awk '$1 == "insmod" { print $2 }' | sort -u | while read -r f; do
	rel=${f#"$ROOT/lib/modules/$KREL/"}
	mkdir -p "$M/$(dirname "$rel")"
	cp "$f" "$M/$rel"
done
cp "$ROOT/lib/modules/$KREL"/modules.order "$ROOT/lib/modules/$KREL"/modules.builtin \
	"$ROOT/lib/modules/$KREL"/modules.builtin.modinfo "$M/"
depmod -b "$W" "$KREL"
echo "$MODS" | tr -s ' \n' '\n\n' >"$W/etc/modules"
cp "$HERE/init.sh" "$W/init"
chmod 755 "$W/init"
(cd "$W" && find . | cpio -o -H newc --quiet | gzip -1) >"$OUT"
