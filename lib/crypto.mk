# lib/ crypto glue over OpenSSL 3 libcrypto, and the SMB2 signing and
# encryption code built on it.
libsmbd_a_SOURCES += \
	lib/crypto.c lib/crypto.h

check_PROGRAMS += testsuite/unit/test_crypto
TESTS += testsuite/unit/test_crypto
testsuite_unit_test_crypto_SOURCES = testsuite/unit/test_crypto.c
testsuite_unit_test_crypto_LDADD = $(UNIT_LIBS)
testsuite_unit_test_crypto_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
