# Live per-operation metrics (issue 20): the shared table and histogram
# (lib/), the recording in the SMB2 pipeline (smbd/conn/), the Prometheus
# endpoint (smbd/process/), their unit tests, fuzz target and
# integration test.
libsmbd_a_SOURCES += lib/histo.c lib/histo.h lib/metrics.c lib/metrics.h \
	lib/metrics_prom.c \
	smbd/conn/smb2_metrics.c smbd/conn/smb2_metrics.h \
	smbd/process/metrics_http.c smbd/process/metrics_http.h

check_PROGRAMS += testsuite/unit/test_metrics
TESTS += testsuite/unit/test_metrics
testsuite_unit_test_metrics_SOURCES = testsuite/unit/test_metrics.c
testsuite_unit_test_metrics_LDADD = $(UNIT_LIBS)
testsuite_unit_test_metrics_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

TESTS += testsuite/integration/test_metrics.py
EXTRA_DIST += testsuite/integration/test_metrics.py \
	testsuite/fuzz/fuzz_metrics_http.c \
	testsuite/fuzz/corpus/fuzz_metrics_http

# smbstatus --profile reads the table.
locking_smbstatus_SOURCES += locking/smbstatus_profile.c
