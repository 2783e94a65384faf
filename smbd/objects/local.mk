# smbd/objects/: opens, durable handles, leases and oplocks, security
# descriptors and NT ACLs (their codecs are smbd/wire/'s), the glue to
# the locking database.
libsmbd_a_SOURCES += \
	smbd/objects/open.c smbd/objects/open.h \
	smbd/objects/durable.c smbd/objects/durable.h \
	smbd/objects/write_time.c smbd/objects/write_time.h \
	smbd/objects/secdesc.c smbd/objects/secdesc.h \
	smbd/objects/ntacl.c smbd/objects/ntacl.h \
	smbd/objects/ntacl_file.c smbd/objects/ntacl_file.h \
	smbd/objects/ntacl_nfs.c smbd/objects/ntacl_nfs.h \
	smbd/objects/oplock.c smbd/objects/oplock.h \
	smbd/objects/cluster.c smbd/objects/cluster.h \
	smbd/objects/dirwatch.c smbd/objects/dirwatch.h \
	smbd/objects/status.c smbd/objects/status.h \
	smbd/objects/smbd_locking.h smbd/objects/smbd_locking.c \
	smbd/objects/objects_worker.h smbd/objects/objects_worker.c
UNIT_TESTS += testsuite/unit/test_write_time

# smbd/ntacl: access check, inheritance and SET_INFO merge.
UNIT_TESTS += testsuite/unit/test_ntacl

# smbd/ntacl_nfs: vfs_fruit's NFS ACEs (fruit:nfs_aces).
UNIT_TESTS += testsuite/unit/test_ntacl_nfs
UNIT_TESTS += testsuite/unit/test_channel_seq
UNIT_TESTS += testsuite/unit/test_dirwatch
