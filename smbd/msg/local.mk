# smbd/msg/: the inter-worker mailbox.
libsmbd_a_SOURCES += smbd/msg/mailbox.c smbd/msg/mailbox.h

# Sessions on a test server (testsrv_new): identity, keys, the harness.
check_PROGRAMS += testsuite/unit/test_mailbox
TESTS += testsuite/unit/test_mailbox
testsuite_unit_test_mailbox_SOURCES = testsuite/unit/test_mailbox.c
testsuite_unit_test_mailbox_LDADD = $(UNIT_LIBS)
testsuite_unit_test_mailbox_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_mailbox.c testsuite/fuzz/corpus/fuzz_mailbox
