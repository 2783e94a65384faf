# smbd/msg/: the inter-worker mailbox.
libsmbd_a_SOURCES += smbd/msg/mailbox.c smbd/msg/mailbox.h

# Sessions on a test server (testsrv_new): identity, keys, the harness.
UNIT_TESTS += testsuite/unit/test_mailbox
