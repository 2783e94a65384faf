# smbd/: the daemon.  Everything but main() is in libsmbd.a so unit tests
# and fuzz targets link the same code.
libsmbd_a_SOURCES += \
	smbd/smbd.h smbd/smb2.h smbd/conn.h smbd/smb2_server.h \
	smbd/listen.c smbd/pidfile.c smbd/master.c smbd/worker.c \
	smbd/conn.c smbd/conn_barrier.c smbd/conn_limits.c smbd/conn_limits.h smbd/conn_log.c smbd/conn_log.h smbd/smb2_pdu.c smbd/smb2_dispatch.c \
	smbd/smb2_negotiate.c smbd/session.h smbd/smb2_sesssetup.c \
	smbd/access.c smbd/access.h smbd/smb2_tcon.c smbd/smb2_ioctl.c \
	smbd/user_map.c smbd/user_map.h \
	smbd/smb2_job.c smbd/open.c smbd/open.h smbd/durable.c \
	smbd/durable.h smbd/create_ctx.c \
	smbd/create_ctx.h smbd/smb2_create.c smbd/smb2_create_private.h \
	smbd/smb2_create_access.c smbd/smb2_create_ctx_apply.c \
	smbd/smb2_create_durable.c \
	smbd/smb2_close.c smbd/smb2_read.c \
	smbd/smb2_write.c smbd/write_time.c smbd/write_time.h \
	smbd/smb2_getinfo.c smbd/smb2_setinfo.c \
	smbd/secdesc.c smbd/secdesc.h smbd/sd.c smbd/sd.h \
	smbd/ntacl.c smbd/ntacl.h smbd/ntacl_file.c smbd/ntacl_file.h \
	smbd/smb2_querydir.c smbd/smb2_lock.c \
	smbd/smb2_lock.h smbd/oplock.c smbd/oplock.h smbd/smb2_break.c \
	smbd/smb2_notify.c smbd/notify_wire.c smbd/notify_wire.h \
	smbd/status.c smbd/status.h \
	smbd/smb2_ioctl.h smbd/fsctl_wire.c smbd/fsctl_wire.h \
	smbd/smb2_copychunk.c smbd/smb2_fsctl_fs.c smbd/smb2_fsctl_net.c \
	smbd/sdnotify.c smbd/sdnotify.h smbd/control.c smbd/control.h

sbin_PROGRAMS += smbd/smbd
smbd_smbd_SOURCES = smbd/main.c
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

bin_PROGRAMS += smbd/smbcontrol
smbd_smbcontrol_SOURCES = smbd/smbcontrol_main.c
smbd_smbcontrol_LDADD = $(SMBD_LIBS)

check_PROGRAMS += testsuite/unit/test_control
TESTS += testsuite/unit/test_control
testsuite_unit_test_control_SOURCES = testsuite/unit/test_control.c
testsuite_unit_test_control_LDADD = $(UNIT_LIBS)
testsuite_unit_test_control_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_control.c testsuite/fuzz/corpus/fuzz_control
