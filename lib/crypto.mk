# lib/ crypto glue over OpenSSL 3 libcrypto, and the SMB2 signing and
# encryption code built on it.
libsmbd_a_SOURCES += \
	lib/crypto.c lib/crypto.h

check_PROGRAMS += testsuite/unit/test_crypto
TESTS += testsuite/unit/test_crypto
testsuite_unit_test_crypto_SOURCES = testsuite/unit/test_crypto.c
testsuite_unit_test_crypto_LDADD = $(UNIT_LIBS)
testsuite_unit_test_crypto_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

# smbd/: SMB2/3 signing, key derivation and the encryption transform.
libsmbd_a_SOURCES += \
	smbd/conn/smb2_signing.c smbd/conn/smb2_signing.h \
	smbd/conn/smb2_transform.c smbd/conn/smb2_transform.h

check_PROGRAMS += testsuite/unit/test_signing
TESTS += testsuite/unit/test_signing
testsuite_unit_test_signing_SOURCES = testsuite/unit/test_signing.c
testsuite_unit_test_signing_LDADD = $(UNIT_LIBS)
testsuite_unit_test_signing_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
