#!/bin/sh
# Run each built fuzz target for a bounded time (default 30 s each) over its
# seed corpus testsuite/fuzz/corpus/<target>/ (if any).  Exits non-zero on
# the first crash, leak or sanitizer report.
# Usage: testsuite/fuzz/run.sh [SECONDS] [TARGET...]
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-30}
[ $# -gt 0 ] && shift
bin=$top/testsuite/fuzz/bin
targets=${*:-$(cd "$bin" && ls fuzz_* 2>/dev/null | grep -v '\.' || true)}
[ -n "$targets" ] || { echo "no fuzz targets built" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in $targets; do
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
echo "fuzzing passed: $targets"
