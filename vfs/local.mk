# vfs/: the file-system layer, the POSIX module and the stackable
# modules (vfs objects).

# vfs/name: SMB2 path rules, wildcards, case folding, 8.3 names;
# vfs/dosattrib: Samba's user.DOSATTRIB xattr.
# vfs/ntacl_xattr: Samba's security.NTACL xattr.
libsmbd_a_SOURCES += vfs/name.c vfs/name.h vfs/dosattrib.c vfs/dosattrib.h \
	vfs/ntacl_xattr.c vfs/ntacl_xattr.h

check_PROGRAMS += testsuite/unit/test_vfs_name
TESTS += testsuite/unit/test_vfs_name
testsuite_unit_test_vfs_name_SOURCES = testsuite/unit/test_vfs_name.c
testsuite_unit_test_vfs_name_LDADD = $(UNIT_LIBS)
testsuite_unit_test_vfs_name_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_dosattrib
TESTS += testsuite/unit/test_dosattrib
testsuite_unit_test_dosattrib_SOURCES = testsuite/unit/test_dosattrib.c
testsuite_unit_test_dosattrib_LDADD = $(UNIT_LIBS)
testsuite_unit_test_dosattrib_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_vfs_name.c testsuite/fuzz/fuzz_dosattrib.c \
	testsuite/fuzz/corpus/fuzz_vfs_name testsuite/fuzz/corpus/fuzz_dosattrib

# The POSIX module (the lead's block).
libsmbd_a_SOURCES += vfs/vfs.h vfs/vfs_posix.c vfs/vfs_posix.h vfs/dirents.c vfs/dirents.h vfs/dosmode.c \
	vfs/streams.c vfs/streams.h vfs/anchor.c vfs/anchor.h \
	vfs/fault.c vfs/fault.h vfs/dircache.c vfs/dircache.h \
	vfs/msdfs.c vfs/msdfs.h

check_PROGRAMS += testsuite/unit/test_msdfs
TESTS += testsuite/unit/test_msdfs
testsuite_unit_test_msdfs_SOURCES = testsuite/unit/test_msdfs.c
testsuite_unit_test_msdfs_LDADD = $(UNIT_LIBS)
testsuite_unit_test_msdfs_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_dircache
TESTS += testsuite/unit/test_dircache
testsuite_unit_test_dircache_SOURCES = testsuite/unit/test_dircache.c
testsuite_unit_test_dircache_LDADD = $(UNIT_LIBS)
testsuite_unit_test_dircache_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_streams
TESTS += testsuite/unit/test_streams
testsuite_unit_test_streams_SOURCES = testsuite/unit/test_streams.c \
	testsuite/common/xattr_tmpfile.h
testsuite_unit_test_streams_LDADD = $(UNIT_LIBS)
testsuite_unit_test_streams_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_vfs_fault
TESTS += testsuite/unit/test_vfs_fault
testsuite_unit_test_vfs_fault_SOURCES = testsuite/unit/test_vfs_fault.c
testsuite_unit_test_vfs_fault_LDADD = $(UNIT_LIBS)
testsuite_unit_test_vfs_fault_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_vfs_fault.c testsuite/fuzz/corpus/fuzz_vfs_fault

check_PROGRAMS += testsuite/unit/test_dosmode
TESTS += testsuite/unit/test_dosmode
testsuite_unit_test_dosmode_SOURCES = testsuite/unit/test_dosmode.c
testsuite_unit_test_dosmode_LDADD = $(UNIT_LIBS)
testsuite_unit_test_dosmode_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

# The stackable module layer (vfs objects) and its modules.
libsmbd_a_SOURCES += vfs/module.c vfs/module.h vfs/recycle.c \
	vfs/catia.c vfs/catia.h vfs/fruit.c vfs/fruit.h vfs/fruit_tm.c vfs/fruit_tm.h \
	vfs/adouble.c vfs/adouble.h vfs/fruit_rsrc.c vfs/fruit_rsrc.h \
	vfs/shadow_copy2.c vfs/snapshot.c vfs/snapshot.h \
	vfs/snapdir.c vfs/snapdir.h vfs/snapper.c vfs/snapper_info.c \
	vfs/snapper_info.h

check_PROGRAMS += testsuite/unit/test_vfs_catia
TESTS += testsuite/unit/test_vfs_catia
testsuite_unit_test_vfs_catia_SOURCES = testsuite/unit/test_vfs_catia.c
testsuite_unit_test_vfs_catia_LDADD = $(UNIT_LIBS)
testsuite_unit_test_vfs_catia_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_catia.c testsuite/fuzz/corpus/fuzz_catia

check_PROGRAMS += testsuite/unit/test_vfs_fruit
TESTS += testsuite/unit/test_vfs_fruit
testsuite_unit_test_vfs_fruit_SOURCES = testsuite/unit/test_vfs_fruit.c \
	testsuite/common/xattr_tmpfile.h
testsuite_unit_test_vfs_fruit_LDADD = $(UNIT_LIBS)
testsuite_unit_test_vfs_fruit_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_adouble.c testsuite/fuzz/corpus/fuzz_adouble

check_PROGRAMS += testsuite/unit/test_vfs_module
TESTS += testsuite/unit/test_vfs_module
testsuite_unit_test_vfs_module_SOURCES = testsuite/unit/test_vfs_module.c
testsuite_unit_test_vfs_module_LDADD = $(UNIT_LIBS)
testsuite_unit_test_vfs_module_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_snapshot
TESTS += testsuite/unit/test_snapshot
testsuite_unit_test_snapshot_SOURCES = testsuite/unit/test_snapshot.c
testsuite_unit_test_snapshot_LDADD = $(UNIT_LIBS)
testsuite_unit_test_snapshot_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_gmt.c testsuite/fuzz/corpus/fuzz_gmt \
	testsuite/fuzz/fuzz_snapshot_array.c \
	testsuite/fuzz/corpus/fuzz_snapshot_array

# snapper's info.xml parser (vfs/snapper_info.c)
check_PROGRAMS += testsuite/unit/test_snapper_info
TESTS += testsuite/unit/test_snapper_info
testsuite_unit_test_snapper_info_SOURCES = testsuite/unit/test_snapper_info.c
testsuite_unit_test_snapper_info_LDADD = $(UNIT_LIBS)
testsuite_unit_test_snapper_info_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_snapper_info.c \
	testsuite/fuzz/corpus/fuzz_snapper_info

check_PROGRAMS += testsuite/unit/test_vfs_fruit_rsrc
TESTS += testsuite/unit/test_vfs_fruit_rsrc
testsuite_unit_test_vfs_fruit_rsrc_SOURCES = \
	testsuite/unit/test_vfs_fruit_rsrc.c
testsuite_unit_test_vfs_fruit_rsrc_LDADD = $(UNIT_LIBS)
testsuite_unit_test_vfs_fruit_rsrc_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_vfs_fruit_tm
TESTS += testsuite/unit/test_vfs_fruit_tm
testsuite_unit_test_vfs_fruit_tm_SOURCES = testsuite/unit/test_vfs_fruit_tm.c
testsuite_unit_test_vfs_fruit_tm_LDADD = $(UNIT_LIBS)
testsuite_unit_test_vfs_fruit_tm_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_fruit_plist.c testsuite/fuzz/corpus/fuzz_fruit_plist

# fruit:copyfile: the streams a whole-file copy takes (the copy is
# smbd/smb2/smb2_copychunk.c's).
libsmbd_a_SOURCES += vfs/fruit_copy.c vfs/fruit_copy.h

check_PROGRAMS += testsuite/unit/test_vfs_fruit_copy
TESTS += testsuite/unit/test_vfs_fruit_copy
testsuite_unit_test_vfs_fruit_copy_SOURCES = \
	testsuite/unit/test_vfs_fruit_copy.c
testsuite_unit_test_vfs_fruit_copy_LDADD = $(UNIT_LIBS)
testsuite_unit_test_vfs_fruit_copy_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

# vfs/symlink: symbolic links as reparse points (issue 35).
libsmbd_a_SOURCES += vfs/symlink.c vfs/symlink.h

check_PROGRAMS += testsuite/unit/test_vfs_symlink
TESTS += testsuite/unit/test_vfs_symlink
testsuite_unit_test_vfs_symlink_SOURCES = testsuite/unit/test_vfs_symlink.c
testsuite_unit_test_vfs_symlink_LDADD = $(UNIT_LIBS)
testsuite_unit_test_vfs_symlink_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)


# vfs_openat_beneath and the path walk under a share (vfs/vfs_posix.c).
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
