#!/bin/sh
# Runs the cluster tests (a 2-node CTDB cluster on 127.0.0.1/127.0.0.2 and
# one clustered server per node, see ctdb_cluster.py) with Debian's python3
# (python3-impacket lives there) against the build directory's smbd,
# unless SMBD names another server (SMBD=/usr/sbin/smbd: Samba's).
# Exits 77 (automake's "skipped") when ctdbd is not installed.
# Usage: run.sh [--builddir DIR] [TEST.py] [unittest args...]
#        (TEST.py defaults to test_cluster.py next to this script)
set -eu
if [ "${1:-}" = --builddir ]; then
	BUILDDIR=$2
	shift 2
fi
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${BUILDDIR:-}" ]; then
	# make check runs in the build directory; by hand, the source
	# tree's build/ is the usual one
	BUILDDIR=$(pwd)
	if [ ! -x "$BUILDDIR/smbd/smbd" ] && [ -x "$here/../../build/smbd/smbd" ]; then
		BUILDDIR=$(cd "$here/../../build" && pwd)
	fi
fi
SMBD=${SMBD:-$BUILDDIR/smbd/smbd}
export BUILDDIR SMBD
case "${1:-}" in
*.py) test=$1; shift ;;
*) test=$here/test_cluster.py ;;
esac
for b in "${CTDBD:-/usr/sbin/ctdbd}" "${CTDB:-/usr/bin/ctdb}"; do
	if [ ! -x "$b" ]; then
		echo "SKIP: $b is not installed (Debian package ctdb)" >&2
		exit 77
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: the cluster tests need root (ctdbd, the test user)" >&2
	exit 77
fi
if [ ! -x "$SMBD" ]; then
	echo "FAIL: no server binary $SMBD (set SMBD or BUILDDIR)" >&2
	exit 1
fi
exec "${PYTHON:-/usr/bin/python3}" "$test" "$@"
