# smbd/: the daemon.  Everything but main() is in libsmbd.a so unit tests
# and fuzz targets link the same code.
libsmbd_a_SOURCES += \
	smbd/smbd.h smbd/smb2.h smbd/conn/conn.h smbd/conn/smb2_server.h \
	smbd/process/process.h smbd/process/listen.c smbd/process/pidfile.c smbd/process/orphans.c smbd/process/master.c \
	smbd/process/irq_affinity.c \
	smbd/process/reload.c smbd/process/worker.c \
	smbd/conn/conn.c smbd/conn/conn_barrier.c smbd/conn/conn_handover.c smbd/conn/smb2_seal.c smbd/conn/smb2_seal.h smbd/conn/smb2_compress.c smbd/conn/smb2_compress.h smbd/conn/conn_limits.c smbd/conn/conn_limits.h smbd/conn/auth_limit.c smbd/conn/auth_limit.h smbd/conn/conn_log.c smbd/conn/conn_log.h smbd/conn/smb2_pdu.c smbd/conn/smb2_dispatch.c \
	smbd/smb2/smb2_cmds.c smbd/smb2/smb2_cmds.h smbd/smb2/smb2_negotiate.c smbd/conn/session.h smbd/conn/session.c smbd/smb2/smb2_sesssetup.c smbd/smb2/smb2_sesssetup_auth.c smbd/smb2/smb2_sesssetup_bind.c smbd/smb2/smb2_sesssetup_private.h \
	smbd/smb2/smb2_sesssetup_pam.c \
	smbd/auth/access.c smbd/auth/access.h smbd/smb2/smb2_tcon.c smbd/smb2/smb2_tcon_names.c smbd/smb2/smb2_tcon_names.h smbd/smb2/smb2_ioctl.c smbd/smb2/smb2_ioctl_reply.c \
	smbd/smb2/user_map.c smbd/smb2/user_map.h \
	smbd/conn/smb2_job.c smbd/conn/smb2_work.h smbd/conn/smb2_ring.c smbd/objects/open.c smbd/objects/open.h smbd/objects/durable.c \
	smbd/objects/durable.h smbd/objects/create_ctx.c \
	smbd/objects/create_ctx.h smbd/smb2/smb2_create.c smbd/smb2/smb2_create_private.h \
	smbd/smb2/smb2_create_access.c smbd/smb2/max_access.c \
	smbd/smb2/smb2_create_ctx_apply.c \
	smbd/smb2/smb2_create_durable.c smbd/smb2/smb2_create_reply.c \
	smbd/smb2/smb2_close.c smbd/smb2/smb2_read.c \
	smbd/smb2/smb2_write.c smbd/objects/write_time.c smbd/objects/write_time.h \
	smbd/smb2/smb2_getinfo.c smbd/smb2/smb2_setinfo.c smbd/smb2/fruit_session.h \
	smbd/objects/secdesc.c smbd/objects/secdesc.h smbd/objects/sd.c smbd/objects/sd.h \
	smbd/objects/ntacl.c smbd/objects/ntacl.h smbd/objects/ntacl_file.c smbd/objects/ntacl_file.h \
	smbd/objects/ntacl_nfs.c smbd/objects/ntacl_nfs.h \
	smbd/smb2/smb2_querydir.c smbd/smb2/smb2_lock.c \
	smbd/smb2/smb2_lock.h smbd/objects/oplock.c smbd/objects/oplock.h smbd/objects/cluster.c smbd/objects/cluster.h smbd/objects/dirwatch.c smbd/objects/dirwatch.h smbd/smb2/smb2_break.c \
	smbd/smb2/smb2_notify.c smbd/smb2/notify_wire.c smbd/smb2/notify_wire.h \
	smbd/objects/status.c smbd/objects/status.h \
	smbd/smb2/smb2_ioctl.h smbd/smb2/fsctl_wire.c smbd/smb2/fsctl_wire.h smbd/smb2/smb2_fsctl_snap.c \
	smbd/smb2/dfs_wire.c smbd/smb2/dfs_wire.h smbd/smb2/smb2_fsctl_dfs.c \
	smbd/smb2/smb2_copychunk.c smbd/smb2/smb2_fsctl_fs.c smbd/smb2/smb2_fsctl_net.c \
	smbd/smb2/smb2_fsctl_lmr.c \
	smbd/process/sdnotify.c smbd/process/sdnotify.h smbd/process/control.c smbd/process/control.h \
	smbd/msg/mailbox.c smbd/msg/mailbox.h

sbin_PROGRAMS += smbd/smbd
smbd_smbd_SOURCES = smbd/process/main.c
smbd_smbd_LDADD = $(SMBD_LIBS)

# Tests of the SMB2 layer drive a socket-less connection.
noinst_LIBRARIES += testsuite/libtestconn.a
testsuite_libtestconn_a_SOURCES = testsuite/common/smb2_testconn.c \
	testsuite/common/smb2_testconn.h

check_PROGRAMS += testsuite/unit/test_smb2_negotiate
TESTS += testsuite/unit/test_smb2_negotiate
testsuite_unit_test_smb2_negotiate_SOURCES = \
	testsuite/unit/test_smb2_negotiate.c
testsuite_unit_test_smb2_negotiate_LDADD = testsuite/libtestconn.a \
	$(UNIT_LIBS)
testsuite_unit_test_smb2_negotiate_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_smb2_pdu.c \
	testsuite/fuzz/corpus/fuzz_smb2_pdu

# Sessions on a test server (testsrv_new): identity, keys, the harness.
check_PROGRAMS += testsuite/unit/test_mailbox
TESTS += testsuite/unit/test_mailbox
testsuite_unit_test_mailbox_SOURCES = testsuite/unit/test_mailbox.c
testsuite_unit_test_mailbox_LDADD = $(UNIT_LIBS)
testsuite_unit_test_mailbox_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

# smbd/conn/auth_limit.c: the rate limiter's per-address arithmetic.
check_PROGRAMS += testsuite/unit/test_auth_limit
TESTS += testsuite/unit/test_auth_limit
testsuite_unit_test_auth_limit_SOURCES = testsuite/unit/test_auth_limit.c
testsuite_unit_test_auth_limit_LDADD = $(UNIT_LIBS)
testsuite_unit_test_auth_limit_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_session
TESTS += testsuite/unit/test_session
testsuite_unit_test_session_SOURCES = testsuite/unit/test_session.c
testsuite_unit_test_session_LDADD = testsuite/libtestconn.a $(UNIT_LIBS)
testsuite_unit_test_session_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

# The bounds on decompressed bytes of waiting requests (issue 34).
check_PROGRAMS += testsuite/unit/test_conn_limits
TESTS += testsuite/unit/test_conn_limits
testsuite_unit_test_conn_limits_SOURCES = testsuite/unit/test_conn_limits.c
testsuite_unit_test_conn_limits_LDADD = testsuite/libtestconn.a $(UNIT_LIBS)
testsuite_unit_test_conn_limits_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_create_ctx
TESTS += testsuite/unit/test_create_ctx
testsuite_unit_test_create_ctx_SOURCES = testsuite/unit/test_create_ctx.c
testsuite_unit_test_create_ctx_LDADD = $(UNIT_LIBS)
testsuite_unit_test_create_ctx_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_fsctl_wire
TESTS += testsuite/unit/test_fsctl_wire
testsuite_unit_test_fsctl_wire_SOURCES = testsuite/unit/test_fsctl_wire.c
testsuite_unit_test_fsctl_wire_LDADD = $(UNIT_LIBS)
testsuite_unit_test_fsctl_wire_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_dfs_wire
TESTS += testsuite/unit/test_dfs_wire
testsuite_unit_test_dfs_wire_SOURCES = testsuite/unit/test_dfs_wire.c
testsuite_unit_test_dfs_wire_LDADD = $(UNIT_LIBS)
testsuite_unit_test_dfs_wire_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_dfs.c testsuite/fuzz/corpus/fuzz_dfs

check_PROGRAMS += testsuite/unit/test_write_time
TESTS += testsuite/unit/test_write_time
testsuite_unit_test_write_time_SOURCES = testsuite/unit/test_write_time.c
testsuite_unit_test_write_time_LDADD = $(UNIT_LIBS)
testsuite_unit_test_write_time_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

# smbd/sd: self-relative security descriptors and Samba's security.NTACL.
check_PROGRAMS += testsuite/unit/test_sd
TESTS += testsuite/unit/test_sd
testsuite_unit_test_sd_SOURCES = testsuite/unit/test_sd.c
testsuite_unit_test_sd_LDADD = $(UNIT_LIBS)
testsuite_unit_test_sd_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

# smbd/ntacl: access check, inheritance and SET_INFO merge.
check_PROGRAMS += testsuite/unit/test_ntacl
TESTS += testsuite/unit/test_ntacl
testsuite_unit_test_ntacl_SOURCES = testsuite/unit/test_ntacl.c
testsuite_unit_test_ntacl_LDADD = $(UNIT_LIBS)
testsuite_unit_test_ntacl_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_ntacl.c testsuite/fuzz/corpus/fuzz_ntacl

# smbd/ntacl_nfs: vfs_fruit's NFS ACEs (fruit:nfs_aces).
check_PROGRAMS += testsuite/unit/test_ntacl_nfs
TESTS += testsuite/unit/test_ntacl_nfs
testsuite_unit_test_ntacl_nfs_SOURCES = testsuite/unit/test_ntacl_nfs.c
testsuite_unit_test_ntacl_nfs_LDADD = $(UNIT_LIBS)
testsuite_unit_test_ntacl_nfs_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_ntacl_nfs.c testsuite/fuzz/corpus/fuzz_ntacl_nfs
EXTRA_DIST += testsuite/fuzz/fuzz_dirwatch.c testsuite/fuzz/corpus/fuzz_dirwatch

check_PROGRAMS += testsuite/unit/test_channel_seq
TESTS += testsuite/unit/test_channel_seq
testsuite_unit_test_channel_seq_SOURCES = testsuite/unit/test_channel_seq.c
testsuite_unit_test_channel_seq_LDADD = $(UNIT_LIBS)
testsuite_unit_test_channel_seq_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_notify_encode.c testsuite/fuzz/corpus/fuzz_notify_encode

# smbd/access: hosts allow / deny (accept and tree connect), user lists.
check_PROGRAMS += testsuite/unit/test_access
TESTS += testsuite/unit/test_access
testsuite_unit_test_access_SOURCES = testsuite/unit/test_access.c
testsuite_unit_test_access_LDADD = $(UNIT_LIBS)
testsuite_unit_test_access_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

# smbd-irq(8): NIC queue interrupts on the workers' CPUs (lib/irqplan.c).
sbin_PROGRAMS += smbd/smbd-irq
smbd_smbd_irq_SOURCES = smbd/process/irq_main.c
smbd_smbd_irq_LDADD = $(SMBD_LIBS)

bin_PROGRAMS += smbd/smbcontrol
smbd_smbcontrol_SOURCES = smbd/process/smbcontrol_main.c
smbd_smbcontrol_LDADD = $(SMBD_LIBS)

check_PROGRAMS += testsuite/unit/test_control
TESTS += testsuite/unit/test_control
testsuite_unit_test_control_SOURCES = testsuite/unit/test_control.c
testsuite_unit_test_control_LDADD = $(UNIT_LIBS)
testsuite_unit_test_control_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_control.c testsuite/fuzz/corpus/fuzz_control \
	testsuite/fuzz/fuzz_mailbox.c testsuite/fuzz/corpus/fuzz_mailbox

# Fuzz targets behind the logon (testsrv harness, seeds by seed_session.py).
EXTRA_DIST += testsuite/fuzz/session_env.h testsuite/fuzz/seed_session.py \
	testsuite/fuzz/fuzz_transform_session.c \
	testsuite/fuzz/fuzz_compound_session.c \
	testsuite/fuzz/fuzz_create_durable.c \
	testsuite/fuzz/corpus/fuzz_transform_session \
	testsuite/fuzz/corpus/fuzz_compound_session \
	testsuite/fuzz/corpus/fuzz_create_durable

check_PROGRAMS += testsuite/unit/test_dirwatch
TESTS += testsuite/unit/test_dirwatch
testsuite_unit_test_dirwatch_SOURCES = testsuite/unit/test_dirwatch.c
testsuite_unit_test_dirwatch_LDADD = $(UNIT_LIBS)
testsuite_unit_test_dirwatch_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_vfs_open
TESTS += testsuite/unit/test_vfs_open
testsuite_unit_test_vfs_open_SOURCES = testsuite/unit/test_vfs_open.c
testsuite_unit_test_vfs_open_LDADD = $(UNIT_LIBS)
testsuite_unit_test_vfs_open_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_vfs_resolve
TESTS += testsuite/unit/test_vfs_resolve
testsuite_unit_test_vfs_resolve_SOURCES = testsuite/unit/test_vfs_resolve.c
testsuite_unit_test_vfs_resolve_LDADD = $(UNIT_LIBS)
testsuite_unit_test_vfs_resolve_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_smb2_compress
TESTS += testsuite/unit/test_smb2_compress
testsuite_unit_test_smb2_compress_SOURCES = testsuite/unit/test_smb2_compress.c
testsuite_unit_test_smb2_compress_LDADD = $(UNIT_LIBS)
testsuite_unit_test_smb2_compress_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_smb2_compress.c \
	testsuite/fuzz/corpus/fuzz_smb2_compress

# Reparse points (issue 35): the wire side (reparse_wire.c) and the
# FSCTLs (smb2_fsctl_reparse.c).
libsmbd_a_SOURCES += smbd/smb2/reparse_wire.c smbd/smb2/reparse_wire.h \
	smbd/smb2/smb2_create_link.c smbd/smb2/smb2_fsctl_reparse.c

check_PROGRAMS += testsuite/unit/test_reparse_wire
TESTS += testsuite/unit/test_reparse_wire
testsuite_unit_test_reparse_wire_SOURCES = testsuite/unit/test_reparse_wire.c
testsuite_unit_test_reparse_wire_LDADD = $(UNIT_LIBS)
testsuite_unit_test_reparse_wire_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_reparse.c testsuite/fuzz/corpus/fuzz_reparse
