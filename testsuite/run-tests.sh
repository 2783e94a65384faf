#!/bin/sh
# THE test command (README, CI): from a fresh checkout, build out of tree in
# ./build (VPATH) and run everything:
#   autogen, configure, make -j2      (a failure here stops the run)
#   make check                        unit (cmocka) + integration tests
#   make check-cluster                a 2-node CTDB cluster on loopback
#                                     and one clustered smbd per node
#                                     (issue 21, testsuite/cluster/)
#   make check-ad                     a Samba AD DC, a joined member and
#                                     its winbindd (issue 36,
#                                     testsuite/ad/): the member scenario
#                                     against Samba's smbd, then ours
#                                     (SKIP while ours refuses
#                                     security = ads)
#   make torture                      smbtorture vs known-failures.txt,
#                                     then torture-workers, torture-fruit(-full)
#   asan                              second build in ./build-asan with
#                                     --enable-sanitizers (ASan+UBSan): make
#                                     check and the torture subset (lock,
#                                     oplock, lease, durable, notify,
#                                     compound); fails on any sanitizer report
#   fuzz                              testsuite/fuzz/build.sh (a third
#                                     build in ./build-fuzz, configured
#                                     --enable-fuzzing CC=clang) + run.sh N
#                                     (N s in all, shared by every target)
#   make bench-short                  only if the Makefile has that target;
#   make bench-floods                 then issue 14's floods, ours and Samba
#                                     side by side (testsuite/bench/floods.py,
#                                     ~90 s; fails if ours does not refuse or
#                                     bound a flood, or a server crashes)
# Later steps run even when an earlier test step fails; the summary lists
# each step and the exit status is non-zero if any step failed.
#
# Environment: JOBS (make -j, default 2), FUZZ_SECONDS (the fuzz step's
# whole budget, shared by all targets, default 300), SKIP (space-separated steps to leave out: check torture asan fuzz
# bench cluster ad), BUILD (build directory, default ./build), ASAN_BUILD (default
# ./build-asan), FUZZ_BUILD (default ./build-fuzz), CONFIGURE_FLAGS.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
JOBS=${JOBS:-2}
FUZZ_SECONDS=${FUZZ_SECONDS:-300}
SKIP=${SKIP:-}
BUILD=${BUILD:-$top/build}
ASAN_BUILD=${ASAN_BUILD:-$top/build-asan}
ASAN_TORTURE=${ASAN_TORTURE:-"smb2.lock smb2.oplock smb2.lease smb2.durable-open smb2.durable-v2-open smb2.notify smb2.compound"}
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

do_cluster() {
	(cd "$BUILD" && make check-cluster)
}

do_ad() {
	(cd "$BUILD" && make check-ad)
}

do_torture() {
	# each list runs even when an earlier one fails
	(cd "$BUILD" || exit 1
	rc=0
	make torture || rc=1
	make torture-workers || rc=1
	make torture-fruit || rc=1
	make torture-fruit-full || rc=1
	exit $rc)
}

# The sanitizer build.  A worker that hits an ASan/UBSan report dies and the
# master forks a new one, so a test may still pass: every instrumented
# process therefore logs to $logdir/asan.<pid> (log_path) and the step fails
# when any such file exists afterwards, whatever the tests said.
# -fno-sanitize-recover=undefined (configure) plus halt_on_error makes UBSan
# abort like ASan.  detect_leaks=0: workers end by _exit() or a signal, which
# never runs LeakSanitizer, and the master's exit() would report its
# config/talloc tree that is deliberately left for the OS to free, i.e. only
# noise; use-after-free, overflows and UB are still fatal.
do_asan() {
	./autogen.sh || return 1
	mkdir -p "$ASAN_BUILD" || return 1
	(cd "$ASAN_BUILD" && "$top/configure" --enable-sanitizers \
		$CONFIGURE_FLAGS && make -j"$JOBS") || return 1
	logdir=$ASAN_BUILD/asan-logs
	rm -rf "$logdir"
	mkdir -p "$logdir" || return 1
	# the integration tests run as root but smbd workers switch uid
	chmod 1777 "$logdir"
	rc=0
	(
		export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:exitcode=66:detect_leaks=0:log_path=$logdir/asan:handle_abort=1"
		export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=66:log_path=$logdir/asan"
		BUILD=$ASAN_BUILD
		do_check
	) || rc=1
	(
		export ASAN_OPTIONS="halt_on_error=1:exitcode=66:detect_leaks=0:log_path=$logdir/asan:handle_abort=1"
		export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=66:log_path=$logdir/asan"
		# entries named here get the runner's default limit, not
		# suites.txt's: give the slow suites (lease) room under ASan
		# shellcheck disable=SC2086
		sh testsuite/torture/run-torture.sh --builddir "$ASAN_BUILD" \
			--limit 600 \
			$ASAN_TORTURE
	) || rc=1
	reports=$(find "$logdir" -type f -name 'asan.*' | sort)
	if [ -n "$reports" ]; then
		for f in $reports; do
			echo "--- sanitizer report $f"
			cat "$f"
		done
		echo "sanitizer reports: $(echo "$reports" | wc -l)"
		rc=1
	fi
	return $rc
}

do_fuzz() {
	if ! ls testsuite/fuzz/fuzz_*.c >/dev/null 2>&1; then
		echo "no fuzz targets yet"
		return 0
	fi
	FUZZ_BUILD=${FUZZ_BUILD:-$top/build-fuzz} JOBS=$JOBS \
		testsuite/fuzz/build.sh || return 1
	testsuite/fuzz/run.sh "$FUZZ_SECONDS"
}

do_bench() {
	if ! (cd "$BUILD" && make -n bench-short >/dev/null 2>&1); then
		echo "no bench-short target: skipped"
		return 0
	fi
	bench_rc=0
	(cd "$BUILD" && make bench-short) || bench_rc=1
	(cd "$BUILD" && make bench-floods) || bench_rc=1
	return $bench_rc
}

step build do_build || finish
step check do_check
step cluster do_cluster
step ad do_ad
step torture do_torture
step asan do_asan
step fuzz do_fuzz
step bench do_bench
finish
