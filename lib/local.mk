# lib/: event loop, wire cursor, logging, clock, charset, crypto glue, the
# MS-XCA codecs, the metrics table.  Its sources, its unit tests, its fuzz
# targets' files.
libsmbd_a_SOURCES += \
	lib/ntstatus.c lib/ntstatus.h \
	lib/wire.c lib/wire.h \
	lib/log.c lib/log.h lib/json.c lib/json.h \
	lib/clock.c lib/clock.h lib/proc.c lib/proc.h \
	lib/heartbeat.c lib/heartbeat.h \
	lib/charset.c lib/charset.h
libsmbd_a_SOURCES += \
	lib/ev.c lib/ev.h lib/ev_internal.h lib/ev_uring.c lib/ev_epoll.c \
	lib/tpool.c lib/tpool.h lib/fd_share.c lib/fd_share.h
libsmbd_a_SOURCES += lib/crash.c lib/crash.h
# NIC IRQ affinity matched to the workers (smbd-irq, the master).
libsmbd_a_SOURCES += lib/irqplan.c lib/irqplan.h
# smb.conf `interfaces` entries: what to bind, what to advertise.
libsmbd_a_SOURCES += lib/ifspec.c lib/ifspec.h
# Crypto glue over OpenSSL 3 libcrypto (SMB2 signing and encryption are
# smbd/conn/'s).
libsmbd_a_SOURCES += \
	lib/crypto.c lib/crypto.h
# lib/xca_lz77.c, lib/xca_lznt1.c: MS-XCA Plain LZ77 and LZNT1.
libsmbd_a_SOURCES += lib/xca_lz77.c lib/xca_lznt1.c lib/xca_private.h
# lib/xca_huff.c: MS-XCA LZ77+Huffman.
libsmbd_a_SOURCES += lib/xca_huff.c lib/xca.h
# Live per-operation metrics (issue 20): the shared table and histogram.
libsmbd_a_SOURCES += lib/histo.c lib/histo.h lib/metrics.c lib/metrics.h \
	lib/metrics_prom.c

check_PROGRAMS += testsuite/unit/test_ev_sendfile
TESTS += testsuite/unit/test_ev_sendfile
testsuite_unit_test_ev_sendfile_SOURCES = testsuite/unit/test_ev_sendfile.c \
	testsuite/common/tcp_pair.c testsuite/common/tcp_pair.h
testsuite_unit_test_ev_sendfile_LDADD = $(UNIT_LIBS)
testsuite_unit_test_ev_sendfile_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_ev_detach
TESTS += testsuite/unit/test_ev_detach
testsuite_unit_test_ev_detach_SOURCES = testsuite/unit/test_ev_detach.c \
	testsuite/common/tcp_pair.c testsuite/common/tcp_pair.h
testsuite_unit_test_ev_detach_LDADD = $(UNIT_LIBS)
testsuite_unit_test_ev_detach_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_ev_after_poll
TESTS += testsuite/unit/test_ev_after_poll
testsuite_unit_test_ev_after_poll_SOURCES = testsuite/unit/test_ev_after_poll.c \
	testsuite/common/tcp_pair.c testsuite/common/tcp_pair.h
testsuite_unit_test_ev_after_poll_LDADD = $(UNIT_LIBS)
testsuite_unit_test_ev_after_poll_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_heartbeat
TESTS += testsuite/unit/test_heartbeat
testsuite_unit_test_heartbeat_SOURCES = testsuite/unit/test_heartbeat.c
testsuite_unit_test_heartbeat_LDADD = $(UNIT_LIBS)
testsuite_unit_test_heartbeat_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_tpool
TESTS += testsuite/unit/test_tpool
testsuite_unit_test_tpool_SOURCES = testsuite/unit/test_tpool.c
testsuite_unit_test_tpool_LDADD = $(UNIT_LIBS)
testsuite_unit_test_tpool_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_log
TESTS += testsuite/unit/test_log
testsuite_unit_test_log_SOURCES = testsuite/unit/test_log.c
testsuite_unit_test_log_LDADD = $(UNIT_LIBS)
testsuite_unit_test_log_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_log_levels.c testsuite/fuzz/corpus/fuzz_log_levels \
	testsuite/fuzz/fuzz_json.c testsuite/fuzz/corpus/fuzz_json

check_PROGRAMS += testsuite/unit/test_proc
TESTS += testsuite/unit/test_proc
testsuite_unit_test_proc_SOURCES = testsuite/unit/test_proc.c
testsuite_unit_test_proc_LDADD = $(UNIT_LIBS)
testsuite_unit_test_proc_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_irqplan
TESTS += testsuite/unit/test_irqplan
testsuite_unit_test_irqplan_SOURCES = testsuite/unit/test_irqplan.c
testsuite_unit_test_irqplan_LDADD = $(UNIT_LIBS)
testsuite_unit_test_irqplan_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_irqplan.c testsuite/fuzz/corpus/fuzz_irqplan

check_PROGRAMS += testsuite/unit/test_ev_file_write
TESTS += testsuite/unit/test_ev_file_write
testsuite_unit_test_ev_file_write_SOURCES = testsuite/unit/test_ev_file_write.c
testsuite_unit_test_ev_file_write_LDADD = $(UNIT_LIBS)
testsuite_unit_test_ev_file_write_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_ifspec
TESTS += testsuite/unit/test_ifspec
testsuite_unit_test_ifspec_SOURCES = testsuite/unit/test_ifspec.c
testsuite_unit_test_ifspec_LDADD = $(UNIT_LIBS)
testsuite_unit_test_ifspec_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_ifspec.c testsuite/fuzz/corpus/fuzz_ifspec

check_PROGRAMS += testsuite/unit/test_crypto
TESTS += testsuite/unit/test_crypto
testsuite_unit_test_crypto_SOURCES = testsuite/unit/test_crypto.c
testsuite_unit_test_crypto_LDADD = $(UNIT_LIBS)
testsuite_unit_test_crypto_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_xca_lz77
TESTS += testsuite/unit/test_xca_lz77
testsuite_unit_test_xca_lz77_SOURCES = testsuite/unit/test_xca_lz77.c
testsuite_unit_test_xca_lz77_LDADD = $(UNIT_LIBS)
testsuite_unit_test_xca_lz77_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

check_PROGRAMS += testsuite/unit/test_xca_lznt1
TESTS += testsuite/unit/test_xca_lznt1
testsuite_unit_test_xca_lznt1_SOURCES = testsuite/unit/test_xca_lznt1.c
testsuite_unit_test_xca_lznt1_LDADD = $(UNIT_LIBS)
testsuite_unit_test_xca_lznt1_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

EXTRA_DIST += testsuite/fuzz/fuzz_xca_lz77.c \
	testsuite/fuzz/corpus/fuzz_xca_lz77 \
	testsuite/fuzz/fuzz_xca_lznt1.c \
	testsuite/fuzz/corpus/fuzz_xca_lznt1

check_PROGRAMS += testsuite/unit/test_xca_huff
TESTS += testsuite/unit/test_xca_huff
testsuite_unit_test_xca_huff_SOURCES = testsuite/unit/test_xca_huff.c
testsuite_unit_test_xca_huff_LDADD = $(UNIT_LIBS)
testsuite_unit_test_xca_huff_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_xca_huff.c \
	testsuite/fuzz/corpus/fuzz_xca_huff

# The decoders' work counted (XCA_COUNT_STEPS, lib/xca.h) on the
# hand-built adversaries of testsuite/common/xca_adversary.c: its own
# copy of the codecs, so the daemon's build counts nothing.
check_PROGRAMS += testsuite/unit/test_xca_cost
TESTS += testsuite/unit/test_xca_cost
testsuite_unit_test_xca_cost_SOURCES = testsuite/unit/test_xca_cost.c \
	testsuite/common/xca_adversary.c testsuite/common/xca_adversary.h \
	lib/xca_lz77.c lib/xca_lznt1.c lib/xca_huff.c
testsuite_unit_test_xca_cost_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) \
	-DXCA_COUNT_STEPS
testsuite_unit_test_xca_cost_LDADD = $(TALLOC_LIBS) $(CMOCKA_LIBS)

# The metrics table, histogram and Prometheus text (and the endpoint,
# smbd/process/metrics_http.c).
check_PROGRAMS += testsuite/unit/test_metrics
TESTS += testsuite/unit/test_metrics
testsuite_unit_test_metrics_SOURCES = testsuite/unit/test_metrics.c
testsuite_unit_test_metrics_LDADD = $(UNIT_LIBS)
testsuite_unit_test_metrics_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
