#!/bin/sh
# `make torture`: smbtorture suites against our smbd with a known-failures
# list.  All the logic is in run_torture.py (next to this file); this wrapper
# picks Debian's python3 (impacket/smbc live there) and the build directory.
# Usage: run-torture.sh [--builddir DIR] [run_torture.py options] [ENTRY...]
#   SMBD=/usr/sbin/smbd run-torture.sh smb2.connect smb2.tcon   (reference)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --builddir ]; then
	BUILDDIR=$(cd "$2" && pwd)
	export BUILDDIR
	shift 2
fi
command -v smbtorture >/dev/null 2>&1 || {
	echo "smbtorture not found: apt-get install samba-testsuite" >&2
	exit 1
}
exec "${PYTHON:-/usr/bin/python3}" "$here/run_torture.py" "$@"
