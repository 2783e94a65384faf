#!/bin/sh
# make check's LOG_COMPILER for the integration tests (*.py): runs one test
# file with Debian's python3 (python3-impacket/python3-smbc live there, the
# first python3 on PATH may be another one) against the build directory's
# smbd, unless SMBD names another server (SMBD=/usr/sbin/smbd: Samba's).
# Usage: run.sh [--builddir DIR] TEST.py [unittest names...]
set -eu
if [ "${1:-}" = --builddir ]; then
	BUILDDIR=$2
	shift 2
fi
BUILDDIR=${BUILDDIR:-$(pwd)}
SMBD=${SMBD:-$BUILDDIR/smbd/smbd}
export BUILDDIR SMBD
exec "${PYTHON:-/usr/bin/python3}" "$@"
