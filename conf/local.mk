# conf/: smb.conf parser, parameter table, testparm.
libsmbd_a_SOURCES += \
	conf/loadparm.h conf/loadparm_private.h conf/parse.h conf/subst.h \
	conf/param_table.c conf/param_table.h conf/samba_params.c \
	conf/loadparm.c conf/parse.c conf/subst.c conf/dump.c

EXTRA_DIST += conf/gen-samba-params.sh

UNIT_TESTS += testsuite/unit/test_conf
TESTS += testsuite/unit/test_testparm.sh
EXTRA_DIST += testsuite/unit/test_testparm.sh
