#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Provision the test guest: a QEMU (TCG) machine that boots Debian's own
# kernel with a real Linux RDMA stack, rdma_rxe (Soft-RoCE, RoCEv2) and siw
# (iWARP), in the host's userland. Nothing is installed on the host but the
# Debian packages below: the kernel package is fetched with apt-get download
# and unpacked with dpkg -x; siw.ko, which Debian's kernel configuration
# leaves out (CONFIG_RDMA_SIW unset), is built out of tree from linux-source
# and the matching headers and kbuild packages, also only unpacked.
#
#   sh scripts/vm/setup.sh [DIR]
#
# DIR (default $RPCRDMA_VM_DIR, else /var/cache/rpcrdma/vm) receives vmlinuz,
# initramfs.cpio.gz and a stamp naming the kernel; a second run with the same
# kernel and the same scripts does nothing. Takes about a minute the first
# time (downloads, 40 s for siw.ko). Exit 0 ready, 1 failed (the reason on
# stderr), 77 when this machine cannot provision a guest (not root, no apt).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd -P)
DIR=${1:-${RPCRDMA_VM_DIR:-/var/cache/rpcrdma/vm}}
# nfs-kernel-server: the guest's kernel NFS server and mount.nfs (nfs-common) for its client
PKGS="qemu-system-x86 busybox-static kmod cpio iproute2 rdma-core ibverbs-providers
ibverbs-utils rdmacm-utils perftest nfs-kernel-server"

say() { echo "vm-setup: $*" >&2; }
die() {
	say "$*"
	exit 1
}

if [ "$(id -u)" != 0 ]; then
	say "not root: cannot install the guest's packages or unpack its kernel"
	exit 77
fi
command -v apt-get >/dev/null 2>&1 || {
	say "no apt-get: the guest is provisioned from Debian packages"
	exit 77
}
export DEBIAN_FRONTEND=noninteractive

missing=""
for p in $PKGS; do
	case "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
lists_fresh() {
	[ -n "$(find /var/lib/apt/lists -name '*_Packages' -mmin -1440 2>/dev/null | head -n 1)" ]
}
if [ -n "$missing" ]; then
	say "installing:$missing"
	lists_fresh || apt-get update -qq >/dev/null
	# shellcheck disable=SC2086 # a list of package names
	apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		die "apt-get install$missing failed"
fi

# The kernel linux-image-amd64 depends on, e.g. linux-image-6.1.0-41-amd64.
kpkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}
KPKG=$(kpkg)
if [ -z "$KPKG" ]; then
	apt-get update -qq >/dev/null
	KPKG=$(kpkg)
fi
[ -n "$KPKG" ] || die "apt-cache finds no linux-image-amd64 kernel package"
KREL=${KPKG#linux-image-} # 6.1.0-41-amd64
KVER=$(apt-cache show "$KPKG" | awk '$1 == "Version:" { print $2; exit }')
[ -n "$KVER" ] || die "no version for $KPKG"
# The stamp names the kernel and the scripts that made the image.
SUM=$(cat "$HERE/setup.sh" "$HERE/initramfs.sh" "$HERE/init.sh" | cksum | cut -d' ' -f1)
STAMP="$KPKG $KVER siw $SUM"
if [ -f "$DIR/stamp" ] && [ "$(cat "$DIR/stamp")" = "$STAMP" ] &&
	[ -f "$DIR/vmlinuz" ] && [ -f "$DIR/initramfs.cpio.gz" ]; then
	exit 0
fi

say "provisioning $KPKG $KVER in $DIR"
mkdir -p "$DIR"
WORK=$(mktemp -d "$DIR/work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

# apt-get download runs as _apt when it can and warns when it cannot.
fetch() {
	apt-get download -q "$@" 2>&1 | grep -v 'unsandboxed' >&2 || true
	for p in "$@"; do
		ls "${p%%=*}"_*.deb >/dev/null 2>&1 || die "apt-get download ${p%%=*} failed"
	done
}

# The version of package $1 to fetch: the kernel's when the archive has
# it, else the newest of the same upstream release. The archive may carry
# a source or kbuild package rebuilt (6.1.192-3) beside a kernel that is
# not (6.1.192-2): kbuild's tools and siw's source are the same, and the
# module takes its version magic from the headers, which are the kernel's.
same_release() {
	vers=$(apt-cache madison "$1" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }')
	if echo "$vers" | grep -qxF "$KVER"; then
		echo "$KVER"
		return
	fi
	v=$(echo "$vers" | grep -F "${KVER%-*}-" | grep "^${KVER%-*}-" | sort -V | tail -n 1)
	[ -n "$v" ] || die "the archive has no $1 of release ${KVER%-*} (kernel $KVER)"
	say "$1 $KVER is not in the archive: taking $v"
	echo "$v"
}

MM=$(echo "$KREL" | cut -d. -f1,2)        # 6.1
COMMON=linux-headers-${KREL%-amd64}-common # linux-headers-6.1.0-41-common
SRCVER=$(same_release "linux-source-$MM") || exit 1
KBUILDVER=$(same_release "linux-kbuild-$MM") || exit 1
fetch "$KPKG=$KVER" "linux-source-$MM=$SRCVER" "linux-headers-$KREL=$KVER" "$COMMON=$KVER" \
	"linux-kbuild-$MM=$KBUILDVER"
dpkg -x "$KPKG"_*.deb kernel

# siw.ko, out of tree: the headers package's Makefile points at the common
# headers under /usr/src, which are unpacked here instead.
for p in "linux-headers-$KREL" "$COMMON" "linux-kbuild-$MM"; do
	dpkg -x "$p"_*.deb kbuild
done
sed -i "s|/usr/src/$COMMON|$WORK/kbuild/usr/src/$COMMON|" \
	"kbuild/usr/src/linux-headers-$KREL/Makefile"
mkdir src
dpkg-deb --fsys-tarfile "linux-source-$MM"_*.deb | tar -xO "./usr/src/linux-source-$MM.tar.xz" |
	tar -xJ -C src "linux-source-$MM/drivers/infiniband/sw/siw"
SIW=$WORK/src/linux-source-$MM/drivers/infiniband/sw/siw
say "building siw.ko"
make -s -C "kbuild/usr/src/linux-headers-$KREL" M="$SIW" CONFIG_RDMA_SIW=m modules \
	-j"$(nproc)" >build-siw.log 2>&1 || {
	cat build-siw.log >&2
	die "building siw.ko failed"
}
mkdir -p "kernel/lib/modules/$KREL/updates"
cp "$SIW/siw.ko" "kernel/lib/modules/$KREL/updates/"
depmod -b kernel "$KREL"

sh "$HERE/initramfs.sh" kernel "$KREL" initramfs.cpio.gz
cp "kernel/boot/vmlinuz-$KREL" vmlinuz
mv vmlinuz initramfs.cpio.gz "$DIR/"
echo "$STAMP" >"$DIR/stamp"
say "ready: $KPKG $KVER, rxe and siw ($(du -sh "$DIR" | cut -f1) in $DIR)"
