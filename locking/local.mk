# locking/: the shared locking database (share modes, byte-range locks)
# on tdb with robust mutexes, used by every worker.
libsmbd_a_SOURCES += \
	locking/locking.h locking/locking_private.h \
	locking/locking_rec.h locking/locking_rec.c \
	locking/locking_db.c locking/locking_owner.c locking/share_mode.c \
	locking/oplock.c \
	locking/status_db.c \
	locking/brlock.c \
	locking/locking_table.c locking/locking_ctdb.c \
	locking/ctdb/ctdb_proto.h locking/ctdb/ctdb_proto.c \
	locking/ctdb/ctdb_conn.h locking/ctdb/ctdb_conn.c \
	locking/ctdb/ctdb_db.h locking/ctdb/ctdb_db.c

UNIT_TESTS += testsuite/unit/test_locking

# locking/ctdb/ctdb_proto.c: the ctdbd client protocol codec.
UNIT_TESTS += testsuite/unit/test_ctdb_proto
