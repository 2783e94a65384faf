#!/bin/sh
# Runs the AD member scenario (testsuite/ad/test_ad_member.py: a Samba AD
# DC, a member joined with Samba's net ads join, Samba's winbindd, see
# ad_env.py) and the bad Kerberos input of test_ad_krb5.py, each file on a
# bed of its own, with Debian's python3 (impacket lives there).
#
# With SMBD set: one run against that server.  Without: two runs, first
# against Samba's smbd (/usr/sbin/smbd, the yardstick and a self-check of
# the bed: it must pass), then against the build's smbd.  A run whose
# server refuses the configuration ("security = ads is not supported",
# ours before issue 36) exits 77 and is reported as SKIP, not a failure;
# once ours starts with security = ads, its run is a real test.
# Exits 77 (automake's "skipped") when the bed cannot be built here (not
# root, samba-ad-dc/winbind/krb5-user missing), 1 when a run failed.
# Usage: run.sh [--builddir DIR] [TEST.py] [unittest args...]
set -u
if [ "${1:-}" = --builddir ]; then
	BUILDDIR=$2
	shift 2
fi
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${BUILDDIR:-}" ]; then
	BUILDDIR=$(pwd)
	if [ ! -x "$BUILDDIR/smbd/smbd" ] && [ -x "$here/../../build/smbd/smbd" ]; then
		BUILDDIR=$(cd "$here/../../build" && pwd)
	fi
fi
export BUILDDIR
case "${1:-}" in
*.py) tests=$1; shift ;;
*) tests="$here/test_ad_member.py $here/test_ad_krb5.py" ;;
esac
PY=${PYTHON:-/usr/bin/python3}

if [ -n "${SMBD:-}" ]; then
	servers=$SMBD
else
	servers="/usr/sbin/smbd $BUILDDIR/smbd/smbd"
fi
rc=0
summary=""
for s in $servers; do
	if [ ! -x "$s" ]; then
		echo "FAIL: no server binary $s (set SMBD or BUILDDIR)" >&2
		exit 1
	fi
	for test in $tests; do
	echo "=== AD member scenario ($(basename "$test")) against $s"
	t0=$(date +%s)
	SMBD=$s "$PY" "$test" "$@"
	r=$?
	secs=$(($(date +%s) - t0))
	case $r in
	0) res=PASS ;;
	77) res=SKIP ;;
	*) res="FAIL (exit $r)"; rc=1 ;;
	esac
	summary="$summary$(printf '%-8s %4ss  %-18s %s' "$res" "$secs" \
		"$(basename "$test")" "$s")\n"
	# the bed itself cannot be built here: the same for every server
	if [ $r -eq 77 ] && [ "$s" = /usr/sbin/smbd ] && [ -z "${SMBD:-}" ]; then
		printf "%b" "$summary"
		exit 77
	fi
	done
done
echo "=== AD member scenario summary"
printf "%b" "$summary"
exit $rc
