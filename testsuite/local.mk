# testsuite/: integration tests (make check), the smbtorture runner
# (make torture), the whole-project test command (run-tests.sh).  Unit tests
# are registered by each directory's own fragment; fuzz and bench have theirs.

# Integration tests: python unittest files that start the daemon on a free
# loopback port (testsuite/integration/smbd_harness.py).  run.sh runs them
# with /usr/bin/python3 against this build's smbd/smbd; they are found in
# $(srcdir) by the test driver, so out-of-tree builds work.
TEST_EXTENSIONS = .py
PY_LOG_COMPILER = $(SHELL) $(top_srcdir)/testsuite/integration/run.sh
AM_PY_LOG_FLAGS = --builddir $(abs_top_builddir)
INTEGRATION_TESTS = \
	testsuite/integration/test_negotiate.py \
	testsuite/integration/test_malformed.py \
	testsuite/integration/test_smbclient.py \
	testsuite/integration/test_impacket.py \
	testsuite/integration/test_workers.py \
	testsuite/integration/test_querydir.py \
	testsuite/integration/test_basicinfo.py \
	testsuite/integration/test_changetime.py \
	testsuite/integration/test_lock.py \
	testsuite/integration/test_notify.py \
	testsuite/integration/test_smbstatus.py \
	testsuite/integration/test_ntlmv1.py \
	testsuite/integration/test_guest.py \
	testsuite/integration/test_crash.py \
	testsuite/integration/test_fsctl.py \
	testsuite/integration/test_dfs.py \
	testsuite/integration/test_reparse.py \
	testsuite/integration/test_zerocopy.py \
	testsuite/integration/test_access.py \
	testsuite/integration/test_ntacl.py \
	testsuite/integration/test_security.py \
	testsuite/integration/test_vfs_modules.py \
	testsuite/integration/test_faults.py \
	testsuite/integration/test_orphans.py \
	testsuite/integration/test_veto.py \
	testsuite/integration/test_limits.py \
	testsuite/integration/test_anonymous.py \
	testsuite/integration/test_reload.py \
	testsuite/integration/test_admin_conf.py \
	testsuite/integration/test_systemd.py \
	testsuite/integration/test_hosts.py \
	testsuite/integration/test_usermap.py \
	testsuite/integration/test_pam.py \
	testsuite/integration/test_auth_limit.py \
	testsuite/integration/test_smbcontrol.py \
	testsuite/integration/test_auth_audit.py \
	testsuite/integration/test_log_file.py \
	testsuite/integration/test_rename_case.py \
	testsuite/integration/test_bigdir_case.py \
	testsuite/integration/test_dirlease.py \
	testsuite/integration/test_fsattr.py \
	testsuite/integration/test_stream_rename.py \
	testsuite/integration/test_stream_alloc.py \
	testsuite/integration/test_catia.py \
	testsuite/integration/test_fruit.py \
	testsuite/integration/test_fruit_readdir.py \
	testsuite/integration/test_fruit_interop.py \
	testsuite/integration/test_fruit_nfs.py \
	testsuite/integration/test_fruit_copyfile.py \
	testsuite/integration/test_smbd_irq.py \
	testsuite/integration/test_share_encrypt.py \
	testsuite/integration/test_tcon_access.py \
	testsuite/integration/test_compression.py \
	testsuite/integration/test_multichannel.py \
	testsuite/integration/test_binding.py \
	testsuite/integration/test_lifetimes.py \
	testsuite/integration/test_wire_strict.py \
	testsuite/integration/test_setinfo_attrs.py \
	testsuite/integration/test_create_time.py \
	testsuite/integration/test_compress_pending.py \
	testsuite/integration/test_pool.py \
	testsuite/integration/test_resilient.py \
	testsuite/integration/test_cipher_choice.py \
	testsuite/integration/test_harness_exit.py \
	testsuite/integration/test_rpc.py \
	testsuite/integration/test_metrics.py
TESTS += $(INTEGRATION_TESTS)
# The layering check (issue 16): rooms, one-way dependencies, no big
# circles; it reads the sources and this build's objects (nm).
TESTS += testsuite/layering/layers.py
EXTRA_DIST += testsuite/layering/layers.py testsuite/layering/known-bypass.txt
# The layout of lines changed since testsuite/style/format-base, against
# .clang-format (issue 37 item 3); SKIP outside a git checkout.
TESTS += testsuite/style/check_format.py
EXTRA_DIST += testsuite/style/check_format.py testsuite/style/format-base
EXTRA_DIST += $(INTEGRATION_TESTS) \
	testsuite/integration/smbd_harness.py \
	testsuite/integration/mchan.py \
	testsuite/integration/rawsmb.py \
	testsuite/integration/smb3client.py \
	testsuite/integration/hangfs.c \
	testsuite/integration/run.sh \
	testsuite/torture/run-torture.sh \
	testsuite/torture/run_torture.py \
	testsuite/torture/suites.txt \
	testsuite/torture/known-failures.txt \
	testsuite/torture/suites-workers.txt \
	testsuite/torture/known-failures-workers.txt \
	testsuite/torture/suites-fruit.txt \
	testsuite/torture/known-failures-fruit.txt \
	testsuite/torture/known-failures-fruit-full.txt \
	testsuite/run-tests.sh

# smbtorture against this build's smbd with the known-failures list
# (SMBD=/usr/sbin/smbd for the reference; TORTURE_ARGS for options/suites).
torture: all
	$(SHELL) $(top_srcdir)/testsuite/torture/run-torture.sh \
		--builddir $(abs_top_builddir) $(TORTURE_ARGS)
# The locking suites again with 2 workers and successive connections on
# different workers (issue 6: every cross-connection case crosses workers).
torture-workers: all
	$(SHELL) $(top_srcdir)/testsuite/torture/run-torture.sh \
		--builddir $(abs_top_builddir) --cross-workers $(TORTURE_ARGS)
# vfs.fruit on the macOS share (catia fruit streams_xattr and issue 17's
# fruit options) with a second share without fruit (issue 17).
torture-fruit: all
	$(SHELL) $(top_srcdir)/testsuite/torture/run-torture.sh \
		--builddir $(abs_top_builddir) --fruit $(TORTURE_ARGS)
# The same with fruit:nfs_aces and fruit:copyfile on, where vfs.fruit's
# AAPL tests run (run_torture.py --fruit-full).
torture-fruit-full: all
	$(SHELL) $(top_srcdir)/testsuite/torture/run-torture.sh \
		--builddir $(abs_top_builddir) --fruit-full $(TORTURE_ARGS)
.PHONY: torture torture-workers torture-fruit torture-fruit-full

# Issue 21: two nodes of a CTDB cluster on 127.0.0.1 and 127.0.0.2 (ctdbd
# in test mode), one clustered smbd per node serving one directory; the
# cross-node checks (share modes, locks, delete pending, breaks, users).
# SMBD=/usr/sbin/smbd runs the same checks against Samba's.
check-cluster: all
	$(SHELL) $(top_srcdir)/testsuite/cluster/run.sh \
		--builddir $(abs_top_builddir) -v
.PHONY: check-cluster
EXTRA_DIST += testsuite/cluster/run.sh testsuite/cluster/ctdb_cluster.py \
	testsuite/cluster/test_cluster.py

# Issue 36: a Samba AD DC, a member joined with Samba's net ads join and
# Samba's winbindd, in private namespaces (testsuite/ad/ad_env.py); the
# member scenario's outcomes against Samba's smbd (a self-check of the
# bed, it must pass) and then this build's (SKIP while it refuses
# security = ads).  SMBD=... runs one server only.
check-ad: all
	$(SHELL) $(top_srcdir)/testsuite/ad/run.sh \
		--builddir $(abs_top_builddir)
.PHONY: check-ad
EXTRA_DIST += testsuite/ad/run.sh testsuite/ad/ad_env.py \
	testsuite/ad/test_ad_member.py testsuite/ad/test_ad_krb5.py \
	testsuite/ad/README.md

# Tests of the SMB2 layer drive a socket-less connection.
noinst_LIBRARIES += testsuite/libtestconn.a
testsuite_libtestconn_a_SOURCES = testsuite/common/smb2_testconn.c \
	testsuite/common/smb2_testconn.h

# The raw compression codecs for the compression test client
# (testsuite/integration/smb3client.py, test_compression.py).
check_PROGRAMS += testsuite/integration/xca_tool
testsuite_integration_xca_tool_SOURCES = testsuite/integration/xca_tool.c
testsuite_integration_xca_tool_LDADD = $(SMBD_LIBS)

# A kernel without cachestat(2) for test_zerocopy.py: an LD_PRELOAD shim
# (a shared object; built as a program, so no libtool).
check_PROGRAMS += testsuite/integration/nocachestat.so
testsuite_integration_nocachestat_so_SOURCES = \
	testsuite/integration/nocachestat.c
testsuite_integration_nocachestat_so_CFLAGS = $(AM_CFLAGS) -fPIC
testsuite_integration_nocachestat_so_LDFLAGS = -shared
testsuite_integration_nocachestat_so_LDADD = -ldl
