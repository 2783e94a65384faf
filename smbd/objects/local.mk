# smbd/objects/: opens, durable handles, leases and oplocks, security
# descriptors and NT ACLs, the MS-FSCC information classes, create
# contexts, the glue to the locking database.
libsmbd_a_SOURCES += \
	smbd/objects/open.c smbd/objects/open.h \
	smbd/objects/durable.c smbd/objects/durable.h \
	smbd/objects/create_ctx.c smbd/objects/create_ctx.h \
	smbd/objects/write_time.c smbd/objects/write_time.h \
	smbd/objects/secdesc.c smbd/objects/secdesc.h \
	smbd/objects/sd.c smbd/objects/sd.h \
	smbd/objects/ntacl.c smbd/objects/ntacl.h \
	smbd/objects/ntacl_file.c smbd/objects/ntacl_file.h \
	smbd/objects/ntacl_nfs.c smbd/objects/ntacl_nfs.h \
	smbd/objects/oplock.c smbd/objects/oplock.h \
	smbd/objects/cluster.c smbd/objects/cluster.h \
	smbd/objects/dirwatch.c smbd/objects/dirwatch.h \
	smbd/objects/status.c smbd/objects/status.h \
	smbd/objects/smbd_locking.h smbd/objects/smbd_locking.c
# smbd/fscc: MS-FSCC information classes (QUERY_INFO, SET_INFO and
# QUERY_DIRECTORY encoders/decoders).
libsmbd_a_SOURCES += smbd/objects/fscc.c smbd/objects/fscc.h

check_PROGRAMS += testsuite/unit/test_fscc
TESTS += testsuite/unit/test_fscc
testsuite_unit_test_fscc_SOURCES = testsuite/unit/test_fscc.c
testsuite_unit_test_fscc_LDADD = $(UNIT_LIBS)
testsuite_unit_test_fscc_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_create_ctx
TESTS += testsuite/unit/test_create_ctx
testsuite_unit_test_create_ctx_SOURCES = testsuite/unit/test_create_ctx.c
testsuite_unit_test_create_ctx_LDADD = $(UNIT_LIBS)
testsuite_unit_test_create_ctx_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

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

check_PROGRAMS += testsuite/unit/test_dirwatch
TESTS += testsuite/unit/test_dirwatch
testsuite_unit_test_dirwatch_SOURCES = testsuite/unit/test_dirwatch.c
testsuite_unit_test_dirwatch_LDADD = $(UNIT_LIBS)
testsuite_unit_test_dirwatch_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
