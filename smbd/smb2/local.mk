# smbd/smb2/: one file per SMB2 command family (negotiate, session setup,
# tree connect, create, read, write, ioctl and the FSCTLs, ...); their
# wire codecs are smbd/wire/'s.
libsmbd_a_SOURCES += \
	smbd/smb2/smb2_cmds.c smbd/smb2/smb2_cmds.h smbd/smb2/smb2_worker.h \
	smbd/smb2/smb2_negotiate.c \
	smbd/smb2/smb2_sesssetup.c smbd/smb2/smb2_sesssetup_auth.c \
	smbd/smb2/smb2_sesssetup_bind.c smbd/smb2/smb2_sesssetup_private.h \
	smbd/smb2/smb2_sesssetup_pam.c \
	smbd/smb2/smb2_tcon.c smbd/smb2/smb2_tcon_names.c \
	smbd/smb2/smb2_tcon_names.h \
	smbd/smb2/smb2_ioctl.c smbd/smb2/smb2_ioctl_reply.c \
	smbd/smb2/user_map.c smbd/smb2/user_map.h \
	smbd/smb2/smb2_create.c smbd/smb2/smb2_create_private.h \
	smbd/smb2/smb2_create_access.c smbd/smb2/max_access.c \
	smbd/smb2/max_access.h \
	smbd/smb2/smb2_create_ctx_apply.c \
	smbd/smb2/smb2_create_durable.c smbd/smb2/smb2_create_reply.c \
	smbd/smb2/smb2_close.c smbd/smb2/smb2_read.c \
	smbd/smb2/smb2_write.c \
	smbd/smb2/smb2_getinfo.c smbd/smb2/smb2_setinfo.c \
	smbd/smb2/aapl_session.h \
	smbd/smb2/smb2_querydir.c smbd/smb2/smb2_lock.c \
	smbd/smb2/smb2_lock.h smbd/smb2/smb2_break.c \
	smbd/smb2/smb2_notify.c \
	smbd/smb2/smb2_ioctl.h \
	smbd/smb2/smb2_fsctl_snap.c \
	smbd/smb2/smb2_fsctl_dfs.c \
	smbd/smb2/smb2_copychunk.c smbd/smb2/smb2_fsctl_fs.c \
	smbd/smb2/smb2_fsctl_net.c \
	smbd/smb2/smb2_fsctl_lmr.c
# The SMB2 side of named pipes (hooks in smb2_create/read/write/ioctl/getinfo).
libsmbd_a_SOURCES += smbd/smb2/smb2_pipe.c smbd/smb2/smb2_pipe.h
# Reparse points (issue 35): the FSCTLs (smb2_fsctl_reparse.c); the wire
# side is smbd/wire/reparse_wire.c.
libsmbd_a_SOURCES += \
	smbd/smb2/smb2_create_link.c smbd/smb2/smb2_fsctl_reparse.c

# Tests of the SMB2 layer drive a socket-less connection
# (testsuite/libtestconn.a, testsuite/local.mk).
UNIT_TESTS += testsuite/unit/test_smb2_negotiate
testsuite_unit_test_smb2_negotiate_LDADD = testsuite/libtestconn.a $(UNIT_LIBS)
# CREATE's walk over its create contexts (create_ctx_ops[]).
UNIT_TESTS += testsuite/unit/test_create_ctx_walk
testsuite_unit_test_create_ctx_walk_LDADD = testsuite/libtestconn.a $(UNIT_LIBS)

# smbd/smb2/smb2_lock.c's request parsing (the handler itself is in smbd/).
UNIT_TESTS += testsuite/unit/test_locking_smb2
