# smbd/fscc: MS-FSCC information classes (QUERY_INFO, SET_INFO and
# QUERY_DIRECTORY encoders/decoders).
libsmbd_a_SOURCES += smbd/objects/fscc.c smbd/objects/fscc.h

check_PROGRAMS += testsuite/unit/test_fscc
TESTS += testsuite/unit/test_fscc
testsuite_unit_test_fscc_SOURCES = testsuite/unit/test_fscc.c
testsuite_unit_test_fscc_LDADD = $(UNIT_LIBS)
testsuite_unit_test_fscc_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
