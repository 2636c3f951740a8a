#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Boot the test guest (scripts/vm/setup.sh), run one command in it, power it
# off and exit with the command's status. The guest runs the host's own
# programs: the host's root is its root (read-only, writes go to a tmpfs),
# and the current folder, plus any --share, is shared read-write at the same
# path, so a build tree made on the host runs there unchanged (built for a
# CPU the guest has: see docs/testing.md, "The guest suite").
#
#   scripts/vm/run.sh [OPTIONS] [--] COMMAND...
#
#   --siw            also siw0 (iWARP) on dummy1, 198.51.100.1/24
#   --no-rxe         no rxe0 (RoCEv2 on dummy0, 192.0.2.1/24)
#   --share DIR      share DIR read-write at the same path (repeatable, 7 at most)
#   --node N         a second network: eth0 joined to another guest through a
#   --listen PORT    QEMU socket link over the host's loopback (one guest
#   --connect PORT   listens, the other connects); rxe1 on it, 203.0.113.N/24
#   --mem MIB        guest memory (default 2048)
#   --smp N          guest CPUs (default 2)
#   --timeout S      power off and fail (exit 124) after S seconds (default 900)
#   --console        print the guest's console log at the end
#   --dir DIR        where setup.sh put the guest (default $RPCRDMA_VM_DIR,
#                    else /var/cache/rpcrdma/vm)
#
# One guest runs at a time on this machine (they would share its CPUs): a
# run waits for the one before it (flock on /tmp/rpcrdma-vm.lock), unless
# RPCRDMA_VM_LOCKED=1 says that the caller holds the lock (two-node runs).
#
# The command runs under bash in the current folder, with /dev/null as its
# input; its output streams to ours. Exit: the command's status, 124 on
# timeout, 125 when the guest failed before the command ended (the console
# log's tail is printed), 2 on a usage error.
set -u

usage() {
	sed -n '/^#   scripts/,/^# log/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

DIR=${RPCRDMA_VM_DIR:-/var/cache/rpcrdma/vm}
MEM=2048
SMP=2
TMO=900
RXE=1
SIW=0
NODE=
NET=
CONSOLE=0
SHARES=()
while [ $# -gt 0 ]; do
	case "$1" in
	--siw) SIW=1 ;;
	--no-rxe) RXE=0 ;;
	--share)
		[ $# -ge 2 ] && [ -d "$2" ] || { echo "vm-run: --share needs a folder" >&2 && usage; }
		SHARES+=("$(cd "$2" && pwd -P)")
		shift
		;;
	--node | --listen | --connect | --mem | --smp | --timeout)
		case "${2:-}" in
		'' | *[!0-9]*) echo "vm-run: $1 needs a number" >&2 && usage ;;
		esac
		case "$1" in
		--node) NODE=$2 ;;
		--listen) NET="listen=127.0.0.1:$2" ;;
		--connect) NET="connect=127.0.0.1:$2" ;;
		--mem) MEM=$2 ;;
		--smp) SMP=$2 ;;
		--timeout) TMO=$2 ;;
		esac
		shift
		;;
	--console) CONSOLE=1 ;;
	--dir)
		[ $# -ge 2 ] || usage
		DIR=$2
		shift
		;;
	-h | --help) usage ;;
	--)
		shift
		break
		;;
	-*) echo "vm-run: unknown option $1" >&2 && usage ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || { echo "vm-run: no command" >&2 && usage; }
if [ -n "$NODE" ] && [ -z "$NET" ] || [ -z "$NODE" ] && [ -n "$NET" ]; then
	echo "vm-run: --node goes with --listen or --connect" >&2
	usage
fi
if [ -n "$NODE" ] && { [ "$NODE" -lt 1 ] || [ "$NODE" -gt 254 ]; }; then
	echo "vm-run: --node is 1..254" >&2
	usage
fi
[ ${#SHARES[@]} -le 7 ] || { echo "vm-run: 7 --share at most" >&2 && usage; }
for f in vmlinuz initramfs.cpio.gz; do
	[ -f "$DIR/$f" ] || {
		echo "vm-run: no $DIR/$f: run scripts/vm/setup.sh first" >&2
		exit 125
	}
done
command -v qemu-system-x86_64 >/dev/null || { echo "vm-run: no qemu-system-x86_64" >&2 && exit 125; }

HERE=$(cd "$(dirname "$0")" && pwd -P)
if [ "${RPCRDMA_VM_LOCKED:-0}" != 1 ]; then
	exec 9>/tmp/rpcrdma-vm.lock
	flock 9
fi
CTL=$(mktemp -d /tmp/rpcrdma-vm.XXXXXX)
QPID=
cleanup() {
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null
	rm -rf "$CTL"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

CWD=$(pwd -P)
SHARES=("$CWD" "${SHARES[@]}")
args=()
for i in "${!SHARES[@]}"; do
	printf '%s\n' "${SHARES[$i]}" >"$CTL/share$i"
	args+=(-virtfs "local,path=${SHARES[$i]},mount_tag=share$i,security_model=none,multidevs=remap")
done
if [ -n "$NET" ]; then
	args+=(-netdev "socket,id=n0,$NET"
		-device "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:$(printf %02x "$NODE")")
fi
printf 'VM_RXE=%s\nVM_SIW=%s\nVM_NODE=%s\n' "$RXE" "$SIW" "$NODE" >"$CTL/env"
{
	printf 'cd -- %q || exit 125\n' "$CWD"
	printf '%q ' "$@"
	printf '\n'
} >"$CTL/cmd"
# a single argument is a shell command line, as with bash -c
[ $# -eq 1 ] && { printf 'cd -- %q || exit 125\n%s\n' "$CWD" "$1" >"$CTL/cmd"; }
cp "$HERE/guest.sh" "$CTL/guest.sh"
chmod 755 "$CTL/guest.sh"
: >"$CTL/stdout"
: >"$CTL/stderr"

# TCG: this works without KVM and on a host kernel without RDMA; -cpu max
# has no AVX-512, so the programs run here must be built without it.
timeout -k 5 "$TMO" qemu-system-x86_64 -nodefaults -machine q35,accel=tcg -cpu max \
	-smp "$SMP" -m "$MEM" -display none -monitor none -no-reboot -nic none \
	-serial "file:$CTL/console.log" -kernel "$DIR/vmlinuz" -initrd "$DIR/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 quiet mitigations=off" \
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
	-virtfs "local,path=$CTL,mount_tag=vmctl,security_model=none,multidevs=remap" \
	"${args[@]}" </dev/null >"$CTL/qemu.log" 2>&1 &
QPID=$!
tail -n +1 -F -s 0.2 --pid=$QPID "$CTL/stdout" 2>/dev/null &
T1=$!
tail -n +1 -F -s 0.2 --pid=$QPID "$CTL/stderr" >&2 2>/dev/null &
T2=$!
wait $QPID
QRC=$?
QPID=
wait $T1 $T2
[ $CONSOLE = 1 ] && { echo "--- vm-run: guest console ---" && cat "$CTL/console.log"; } >&2
if [ -s "$CTL/status" ]; then
	rc=$(cat "$CTL/status")
	[ "$rc" = 125 ] && tail -n 20 "$CTL/console.log" >&2
	exit "$rc"
fi
if [ $QRC = 124 ]; then
	echo "vm-run: the guest did not finish in $TMO s" >&2
	exit 124
fi
echo "vm-run: the guest ended without a status (qemu exit $QRC); console:" >&2
tail -n 40 "$CTL/console.log" >&2
cat "$CTL/qemu.log" >&2
exit 125
