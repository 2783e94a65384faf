#!/bin/sh
# Build every libFuzzer target testsuite/fuzz/fuzz_*.c with clang and
# -fsanitize=fuzzer,address against the real sources (every .c under lib/,
# conf/, smbd/, locking/, vfs/ that does not define main()).
# Usage: testsuite/fuzz/build.sh [OUTDIR]   (default testsuite/fuzz/bin)
# CI (testsuite/run-tests.sh step fuzz): build.sh, then run.sh FUZZ_SECONDS
# (default 300 s for all targets together); run.sh fuzzes a temporary copy of each target's
# seed corpus testsuite/fuzz/corpus/TARGET/ so CI never writes into the
# source tree.  A new target is a new fuzz_NAME.c here (build.sh and run.sh
# pick up every one); give it a few small seeds in corpus/fuzz_NAME/,
# minimized with: bin/fuzz_NAME -merge=1 NEWDIR corpus/fuzz_NAME.
# The targets behind the logon (fuzz_transform_session,
# fuzz_compound_session, fuzz_create_durable: session_env.h) get theirs from
# seed_session.py, which writes corpus/TARGET/ (rerun it after changing an
# input layout).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/testsuite/fuzz/bin}
obj=$out/obj
mkdir -p "$obj"
cd "$top"
# config.h comes from a configured build directory (BUILDDIR, default the
# source tree itself).
bdir=${BUILDDIR:-$top}
[ -f "$bdir/config.h" ] || { echo "no config.h in $bdir: run configure (or set BUILDDIR)" >&2; exit 1; }
CC=${CC:-clang}
pc="liburing talloc tdb libunwind libcrypto libsystemd liblz4 pam krb5-gssapi krb5 wbclient"
CFLAGS="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -include $bdir/config.h -I$top -I$bdir $(pkg-config --cflags $pc) -D_GNU_SOURCE -DFUZZING -DSBINDIR=\"/usr/sbin\" -DSYSCONFDIR=\"/etc\" -DLOCALSTATEDIR=\"/var\" -DRUNSTATEDIR=\"/run\""
LIBS="$(pkg-config --libs $pc) -lpthread"
objs=""
for src in $(find lib conf smbd locking vfs -name '*.c' | sort); do
	if grep -Eq '^int main\(|^int[[:space:]]+main\(' "$src"; then
		continue
	fi
	o=$obj/$(echo "$src" | tr '/' '_' | sed 's/\.c$/.o/')
	if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ "$bdir/config.h" -nt "$o" ]; then
		$CC $CFLAGS -c "$src" -o "$o"
	fi
	objs="$objs $o"
done
for f in testsuite/fuzz/fuzz_*.c; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .c)
	$CC $CFLAGS -fsanitize=fuzzer "$f" $objs $LIBS -o "$out/$name"
	echo "built $out/$name"
done
