# smbd/conn/: connections, sessions, the SMB2 pipeline (framing,
# dispatch, jobs), signing, encryption and compression transforms, the
# per-connection and logon limits, the pipeline's metrics.
libsmbd_a_SOURCES += \
	smbd/conn/conn.h smbd/conn/conn_state.h smbd/conn/worker.h \
	smbd/conn/smb2_server.h \
	smbd/conn/conn.c smbd/conn/conn_barrier.c smbd/conn/conn_handover.c \
	smbd/conn/smb2_seal.c smbd/conn/smb2_seal.h \
	smbd/conn/smb2_compress.c smbd/conn/smb2_compress.h \
	smbd/conn/conn_limits.c smbd/conn/conn_limits.h \
	smbd/conn/auth_limit.c smbd/conn/auth_limit.h \
	smbd/conn/conn_log.c smbd/conn/conn_log.h \
	smbd/conn/smb2_pdu.c smbd/conn/smb2_dispatch.c \
	smbd/conn/session.h smbd/conn/session.c \
	smbd/conn/smb2_job.c smbd/conn/smb2_work.h smbd/conn/smb2_ring.c
# SMB2/3 signing, key derivation and the encryption transform.
libsmbd_a_SOURCES += \
	smbd/conn/smb2_signing.c smbd/conn/smb2_signing.h \
	smbd/conn/smb2_transform.c smbd/conn/smb2_transform.h
# Live per-operation metrics (issue 20): the recording in the pipeline.
libsmbd_a_SOURCES += smbd/conn/smb2_metrics.c smbd/conn/smb2_metrics.h

UNIT_TESTS += testsuite/unit/test_signing

# smbd/conn/auth_limit.c: the rate limiter's per-address arithmetic.
UNIT_TESTS += testsuite/unit/test_auth_limit

# Sessions on a test server (testsrv_new): identity, keys, the harness.
UNIT_TESTS += testsuite/unit/test_session
testsuite_unit_test_session_LDADD = testsuite/libtestconn.a $(UNIT_LIBS)

# The bounds on decompressed bytes of waiting requests (issue 34).
UNIT_TESTS += testsuite/unit/test_conn_limits
testsuite_unit_test_conn_limits_LDADD = testsuite/libtestconn.a $(UNIT_LIBS)

UNIT_TESTS += testsuite/unit/test_smb2_compress
