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
explicit=${SMBD:+yes}
SMBD=${SMBD:-$BUILDDIR/smbd/smbd}
export BUILDDIR SMBD
# TEMPORARY (remove once smbd/main.c is the daemon): until the master/worker
# daemon lands, smbd/smbd is a stub that prints a banner and exits; report
# SKIP (77) instead of failing everybody's `make check`.  The marker is the
# per-connection log line every real build prints.
if [ -z "$explicit" ] && ! grep -aq 'SO_INCOMING_CPU' "$SMBD" 2>/dev/null; then
	echo "SKIP: $SMBD is not the daemon yet (no SO_INCOMING_CPU log line)"
	exit 77
fi
exec "${PYTHON:-/usr/bin/python3}" "$@"
