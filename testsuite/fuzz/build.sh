#!/bin/sh
# Build every libFuzzer target of testsuite/fuzz (FUZZ_TARGETS in
# testsuite/fuzz/local.mk) and link them into OUTDIR for run.sh.  A thin
# wrapper over the automake build: a build directory configured with
# --enable-fuzzing CC=clang (configure.ac: libFuzzer's coverage, ASan and
# UBSan on every object, -O1, FUZZING), then make fuzz.  The build
# directory is kept, so a second run rebuilds only what changed.
# Usage: testsuite/fuzz/build.sh [OUTDIR]   (default testsuite/fuzz/bin)
# Environment: FUZZ_BUILD (the build directory, default ./build-fuzz),
# CC (default clang), JOBS (make -j, default 2), CONFIGURE_FLAGS (more
# configure options; configured with --disable-werror, as clang's
# warnings are not this step's business: the gcc build is -Werror).
# CI (testsuite/run-tests.sh step fuzz): build.sh, then run.sh FUZZ_SECONDS
# (default 300 s for all targets together); run.sh fuzzes a temporary copy
# of each target's seed corpus testsuite/fuzz/corpus/TARGET/ so CI never
# writes into the source tree.  A new target is a new fuzz_NAME.c here,
# listed in FUZZ_TARGETS (testsuite/fuzz/local.mk; layers.py fails while
# one is not); give it a few small seeds in corpus/fuzz_NAME/, minimized
# with: bin/fuzz_NAME -merge=1 NEWDIR corpus/fuzz_NAME.
# The targets behind the logon (fuzz_transform_session,
# fuzz_compound_session, fuzz_create_durable: session_env.h) get theirs from
# seed_session.py, which writes corpus/TARGET/ (rerun it after changing an
# input layout).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/testsuite/fuzz/bin}
fbuild=${FUZZ_BUILD:-$top/build-fuzz}
CC=${CC:-clang}
JOBS=${JOBS:-2}
CONFIGURE_FLAGS=${CONFIGURE_FLAGS:-}
[ -x "$top/configure" ] || (cd "$top" && ./autogen.sh)
mkdir -p "$fbuild" "$out"
fbuild=$(cd "$fbuild" && pwd)
if [ ! -f "$fbuild/Makefile" ]; then
	# shellcheck disable=SC2086
	(cd "$fbuild" && "$top/configure" --enable-fuzzing --disable-werror \
		CC="$CC" $CONFIGURE_FLAGS)
fi
make -C "$fbuild" -j"$JOBS" fuzz
for t in $(make -s --no-print-directory -C "$fbuild" fuzz-list); do
	ln -sf "$fbuild/$t" "$out/$(basename "$t")"
	echo "built $out/$(basename "$t")"
done
