#!/bin/sh
# THE test command (README, CI): from a fresh checkout, build out of tree in
# ./build (VPATH) and run everything:
#   autogen, configure, make -j2      (a failure here stops the run)
#   make check                        unit (cmocka) + integration tests
#   make torture                      smbtorture vs known-failures.txt
#   fuzz                              testsuite/fuzz/build.sh + run.sh N
#   make bench-short                  only if the Makefile has that target
# Later steps run even when an earlier test step fails; the summary lists
# each step and the exit status is non-zero if any step failed.
#
# Environment: JOBS (make -j, default 2), FUZZ_SECONDS (per target, default
# 20), SKIP (space-separated steps to leave out: check torture fuzz bench),
# BUILD (build directory, default ./build), CONFIGURE_FLAGS.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
JOBS=${JOBS:-2}
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
SKIP=${SKIP:-}
BUILD=${BUILD:-$top/build}
CONFIGURE_FLAGS=${CONFIGURE_FLAGS:-}
summary=""
failed=0

now() { date +%s; }

# step NAME COMMAND...: run, time and record one step.
step() {
	name=$1
	shift
	case " $SKIP " in
	*" $name "*)
		summary="$summary$(printf '%-12s skipped' "$name")\n"
		return 0 ;;
	esac
	echo "=== $name: $*"
	t0=$(now)
	"$@"
	rc=$?
	secs=$(($(now) - t0))
	if [ $rc -eq 0 ]; then
		res=ok
	else
		res="FAILED (exit $rc)"
		failed=$((failed + 1))
	fi
	summary="$summary$(printf '%-12s %-18s %5ss' "$name" "$res" "$secs")\n"
	echo "=== $name: $res in ${secs}s"
	return $rc
}

finish() {
	echo
	echo "=== summary"
	printf "%b" "$summary"
	if [ $failed -eq 0 ]; then
		echo "all steps passed"
		exit 0
	fi
	echo "$failed step(s) failed"
	exit 1
}

do_build() {
	./autogen.sh || return 1
	mkdir -p "$BUILD" || return 1
	(cd "$BUILD" && "$top/configure" $CONFIGURE_FLAGS &&
		make -j"$JOBS") || return 1
}

do_check() {
	# the test driver keeps each test's log; show the failing ones
	(cd "$BUILD" && make -j"$JOBS" check) && return 0
	for t in $(find "$BUILD" -name '*.trs' | sort); do
		if grep -Eq '^:test-result: (FAIL|ERROR)' "$t"; then
			echo "--- ${t%.trs}.log"
			tail -60 "${t%.trs}.log"
		fi
	done
	return 1
}

do_torture() {
	(cd "$BUILD" && make torture && make torture-workers)
}

do_fuzz() {
	if ! ls testsuite/fuzz/fuzz_*.c >/dev/null 2>&1; then
		echo "no fuzz targets yet"
		return 0
	fi
	BUILDDIR=$BUILD testsuite/fuzz/build.sh || return 1
	testsuite/fuzz/run.sh "$FUZZ_SECONDS"
}

do_bench() {
	if ! (cd "$BUILD" && make -n bench-short >/dev/null 2>&1); then
		echo "no bench-short target: skipped"
		return 0
	fi
	(cd "$BUILD" && make bench-short)
}

step build do_build || finish
step check do_check
step torture do_torture
step fuzz do_fuzz
step bench do_bench
finish
