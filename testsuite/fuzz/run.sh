#!/bin/sh
# Run every built fuzz target over its seed corpus
# testsuite/fuzz/corpus/<target>/ (if any) within ONE time budget shared
# by all of them (DEVELOPERS.md: CI's fuzz step has a fixed cost however
# many targets there are).  Each target gets what is left of the budget
# divided by the targets still to run (at least MIN_SECONDS), so a target
# that starts slowly (the ones behind a logon) does not push the step past
# its budget by more than one target's share.  Exits non-zero on the first
# crash, leak or sanitizer report.
# Usage: testsuite/fuzz/run.sh [TOTAL_SECONDS] [TARGET...]   (default 300)
# The targets are taken from FUZZ_BIN (default testsuite/fuzz/bin, where
# build.sh links them; make fuzz-run passes its build's testsuite/fuzz).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
total=${1:-300}
[ $# -gt 0 ] && shift
MIN_SECONDS=${MIN_SECONDS:-3}
bin=${FUZZ_BIN:-$top/testsuite/fuzz/bin}
targets=${*:-$(cd "$bin" && ls fuzz_* 2>/dev/null | grep -v '\.' || true)}
[ -n "$targets" ] || { echo "no fuzz targets built" >&2; exit 1; }
# Known reports that are not ours, each with its reason (lsan.supp).
LSAN_OPTIONS="suppressions=$top/testsuite/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
left=$(echo "$targets" | wc -w)
deadline=$(($(date +%s) + total))
for t in $targets; do
	secs=$(( (deadline - $(date +%s)) / left ))
	[ "$secs" -ge "$MIN_SECONDS" ] || secs=$MIN_SECONDS
	left=$((left - 1))
	corpus=$work/$t
	mkdir -p "$corpus"
	seeds=$top/testsuite/fuzz/corpus/$t
	[ -d "$seeds" ] && cp -r "$seeds"/. "$corpus"/
	echo "fuzzing $t for ${secs}s"
	"$bin/$t" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$work/" "$corpus" \
		>"$work/$t.log" 2>&1 || {
		tail -50 "$work/$t.log"
		echo "FAIL: $t"
		exit 1
	}
	grep -E 'stat::number_of_executed_units' "$work/$t.log" || true
done
echo "fuzzing passed in $((total - (deadline - $(date +%s))))s of a ${total}s budget:" $targets
