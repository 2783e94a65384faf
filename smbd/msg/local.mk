# smbd/msg/: the inter-worker mailbox.
libsmbd_a_SOURCES += smbd/msg/mailbox.c smbd/msg/mailbox.h

UNIT_TESTS += testsuite/unit/test_mailbox
