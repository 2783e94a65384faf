# testsuite/fuzz/: libFuzzer targets (build.sh, run.sh).  Each room's
# local.mk distributes the targets of its own code with their seeds; here
# what the fuzz directory shares.

# Fuzz targets behind the logon (testsrv harness, seeds by seed_session.py).
EXTRA_DIST += testsuite/fuzz/session_env.h testsuite/fuzz/seed_session.py \
	testsuite/fuzz/fuzz_transform_session.c \
	testsuite/fuzz/fuzz_compound_session.c \
	testsuite/fuzz/fuzz_create_durable.c \
	testsuite/fuzz/corpus/fuzz_transform_session \
	testsuite/fuzz/corpus/fuzz_compound_session \
	testsuite/fuzz/corpus/fuzz_create_durable
