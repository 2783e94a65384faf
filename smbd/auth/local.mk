# smbd/auth: SPNEGO with its DER codec, NTLMSSP server, passdb.tdb, smbpasswd,
# hosts allow/deny and user lists.
libsmbd_a_SOURCES += \
	smbd/auth/access.c smbd/auth/access.h \
	smbd/auth/asn1.c smbd/auth/asn1.h \
	smbd/auth/auth.h \
	smbd/auth/auth_unix.c \
	smbd/auth/auth_sid.c \
	smbd/auth/pac.c smbd/auth/pac.h \
	smbd/auth/auth_config.c \
	smbd/auth/secrets.c smbd/auth/secrets.h \
	smbd/auth/kerberos.c smbd/auth/kerberos.h \
	smbd/auth/winbind.c smbd/auth/winbind.h \
	smbd/auth/spnego.c smbd/auth/spnego.h \
	smbd/auth/ntlmssp.c smbd/auth/ntlmssp.h \
	smbd/auth/gensec.c smbd/auth/gensec.h \
	smbd/auth/auth_audit.c smbd/auth/auth_audit.h \
	smbd/auth/passdb.c smbd/auth/passdb.h \
	smbd/auth/usermap.c smbd/auth/usermap.h \
	smbd/auth/auth_pam.c smbd/auth/auth_pam.h

UNIT_TESTS += testsuite/unit/test_ntlmssp
testsuite_unit_test_ntlmssp_SOURCES = testsuite/unit/test_ntlmssp.c \
	testsuite/unit/unhex.h

UNIT_TESTS += testsuite/unit/test_spnego
testsuite_unit_test_spnego_SOURCES = testsuite/unit/test_spnego.c \
	testsuite/unit/unhex.h

UNIT_TESTS += testsuite/unit/test_passdb
testsuite_unit_test_passdb_SOURCES = testsuite/unit/test_passdb.c \
	testsuite/unit/unhex.h
TESTS += testsuite/unit/test_smbpasswd.sh
EXTRA_DIST += testsuite/unit/test_smbpasswd.sh

# smbd/auth/usermap: the username map file.
UNIT_TESTS += testsuite/unit/test_usermap

# smbd/auth/auth_pam: `obey pam restrictions`, on PAM stacks of its own.
UNIT_TESTS += testsuite/unit/test_auth_pam

# smbd/auth/pac: the PAC of a Kerberos ticket (MS-PAC), security = ads.
UNIT_TESTS += testsuite/unit/test_pac
testsuite_unit_test_pac_SOURCES = testsuite/unit/test_pac.c \
	testsuite/unit/pac_sample.h testsuite/unit/unhex.h
EXTRA_DIST += testsuite/unit/gen_pac.py

# security = ads's logon pieces: Kerberos acceptor, secrets.tdb, winbindd's
# statuses, gensec's Kerberos leg (tickets minted by the test itself).
UNIT_TESTS += testsuite/unit/test_ads
testsuite_unit_test_ads_SOURCES = testsuite/unit/test_ads.c \
	testsuite/unit/pac_sample.h testsuite/unit/unhex.h

# smbd/access: hosts allow / deny (accept and tree connect), user lists.
UNIT_TESTS += testsuite/unit/test_access
