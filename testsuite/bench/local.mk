# testsuite/bench/: the benchmark harness (issue 5).
#
# nbench (the NBENCH load generator) is built with `make check` so CI
# proves it compiles, but it is not a test: it needs a running server.
# `make bench` runs the full Samba-vs-ours comparison (compare.py),
# `make bench-short` a short one (a few seconds a point) that CI runs only
# to prove the harness works.  Results go to $(BENCH_RESULTS), never into
# the source tree; pass more compare.py options in BENCH_ARGS.
BENCH_SRCS = testsuite/bench/nbench_load.c testsuite/bench/nbench_load.h \
	testsuite/bench/nbench_stats.c testsuite/bench/nbench_stats.h

check_PROGRAMS += testsuite/bench/nbench
testsuite_bench_nbench_SOURCES = testsuite/bench/nbench.c \
	testsuite/bench/nbench.h testsuite/bench/nbench_client.c $(BENCH_SRCS)
testsuite_bench_nbench_CFLAGS = $(AM_CFLAGS) $(SMBCLIENT_CFLAGS)
# Not linked with libsmbd.a: the harness must build and run even while
# the daemon's own code does not.
testsuite_bench_nbench_LDADD = $(TALLOC_LIBS) $(SMBCLIENT_LIBS) -lm

check_PROGRAMS += testsuite/unit/test_nbench_load
TESTS += testsuite/unit/test_nbench_load
testsuite_unit_test_nbench_load_SOURCES = testsuite/unit/test_nbench_load.c \
	$(BENCH_SRCS)
testsuite_unit_test_nbench_load_LDADD = $(TALLOC_LIBS) $(CMOCKA_LIBS) -lm
testsuite_unit_test_nbench_load_CFLAGS = $(AM_CFLAGS)

check_PROGRAMS += testsuite/unit/test_nbench_stats
TESTS += testsuite/unit/test_nbench_stats
testsuite_unit_test_nbench_stats_SOURCES = testsuite/unit/test_nbench_stats.c \
	testsuite/bench/nbench_stats.c testsuite/bench/nbench_stats.h
testsuite_unit_test_nbench_stats_LDADD = $(CMOCKA_LIBS) -lm
testsuite_unit_test_nbench_stats_CFLAGS = $(AM_CFLAGS)

EXTRA_DIST += testsuite/bench/README.md testsuite/bench/compare.py \
	testsuite/bench/extras.py testsuite/bench/floods.py \
	testsuite/bench/lockpairs.py testsuite/bench/logons.py \
	testsuite/bench/bigdir.py
EXTRA_DIST += testsuite/bench/opcost.py testsuite/bench/multichannel.py \
	testsuite/bench/compression.py testsuite/bench/metrics_cost.py \
	testsuite/bench/cluster.py testsuite/bench/soak.py \
	testsuite/bench/zerocopy_probe.py

BENCH_RESULTS = $(abs_top_builddir)/bench-results
BENCH_ARGS =
BENCH_RUN = /usr/bin/python3 $(abs_top_srcdir)/testsuite/bench/compare.py \
	--builddir $(abs_top_builddir) \
	--nbench $(abs_top_builddir)/testsuite/bench/nbench \
	--results $(BENCH_RESULTS)

# Our smbd is optional: if it does not build, compare.py reports Samba only.
BENCH_BUILD_SMBD = $(MAKE) $(AM_MAKEFLAGS) smbd/smbd \
	>$(abs_top_builddir)/bench-smbd-build.log 2>&1 || \
	echo "bench: smbd/smbd does not build (bench-smbd-build.log)"

bench: testsuite/bench/nbench
	@$(BENCH_BUILD_SMBD)
	$(BENCH_RUN) $(BENCH_ARGS)

bench-short: testsuite/bench/nbench
	@$(BENCH_BUILD_SMBD)
	$(BENCH_RUN) --short $(BENCH_ARGS)

# Issue 14's floods against ours and Samba, side by side (floods.py, about
# 90 s): prints figures, fails only if a server crashes or ours does not
# refuse or bound a flood.  Pass floods.py options in FLOODS_ARGS.
FLOODS_ARGS =
bench-floods: smbd/smbd
	/usr/bin/python3 $(abs_top_srcdir)/testsuite/bench/floods.py \
		--builddir $(abs_top_builddir) $(FLOODS_ARGS)

# Issue 18's large directory: different-case opens/s and a full listing of
# a 100,000-file directory, ours and Samba (bigdir.py, about 2 minutes).
# Pass bigdir.py options in BIGDIR_ARGS (e.g. --files 20000).
BIGDIR_ARGS =
bench-bigdir: smbd/smbd
	/usr/bin/python3 $(abs_top_srcdir)/testsuite/bench/bigdir.py \
		--builddir $(abs_top_builddir) --results $(BENCH_RESULTS) \
		$(BIGDIR_ARGS)

# Issue 34: the MS-XCA decoders' time on hand-built worst cases, and the
# worst one message can cost (xca_cost.c, a few seconds; built with make
# check so CI proves it compiles).  Pass its options in XCA_ARGS.
check_PROGRAMS += testsuite/bench/xca_cost
testsuite_bench_xca_cost_SOURCES = testsuite/bench/xca_cost.c \
	testsuite/common/xca_adversary.c testsuite/common/xca_adversary.h
testsuite_bench_xca_cost_LDADD = $(SMBD_LIBS)
XCA_ARGS =
bench-xca: testsuite/bench/xca_cost
	testsuite/bench/xca_cost $(XCA_ARGS)

# Issue 34's soak: churn against ours and Samba at once, the lock and
# status databases' sizes (live, dead, free records) every minute
# (soak.py, SOAK_ARGS; default 5 minutes).
SOAK_ARGS = --time 300 --interval 60
bench-soak: smbd/smbd testsuite/bench/nbench
	/usr/bin/python3 $(abs_top_srcdir)/testsuite/bench/soak.py \
		--builddir $(abs_top_builddir) $(SOAK_ARGS)

# Issue 36: Kerberos and NTLM domain logons per second, Samba's member
# smbd and ours in the AD bed (testsuite/ad/ad_env.py), interleaved rounds
# (logons.py --domain; root; about 1 minute).  Options in LOGONS_ARGS.
LOGONS_ARGS =
bench-logons-domain: smbd/smbd
	/usr/bin/python3 $(abs_top_srcdir)/testsuite/bench/logons.py --domain \
		--ours $(abs_top_builddir)/smbd/smbd $(LOGONS_ARGS)

.PHONY: bench bench-short bench-floods bench-bigdir bench-xca bench-soak \
	bench-logons-domain
CLEANFILES += bench-smbd-build.log
