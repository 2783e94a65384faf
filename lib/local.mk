# lib/: event loop, wire cursor, logging, clock, charset, crypto glue, the
# MS-XCA codecs, the metrics table: its sources and its unit tests.
libsmbd_a_SOURCES += \
	lib/ntstatus.c lib/ntstatus.h \
	lib/wire.c lib/wire.h \
	lib/log.c lib/log.h lib/json.c lib/json.h \
	lib/clock.c lib/clock.h lib/proc.c lib/proc.h \
	lib/spawn.c lib/spawn.h \
	lib/heartbeat.c lib/heartbeat.h \
	lib/charset.c lib/charset.h
libsmbd_a_SOURCES += \
	lib/ev.c lib/ev.h lib/ev_internal.h lib/ev_uring.c lib/ev_epoll.c \
	lib/tpool.c lib/tpool.h lib/fd_share.c lib/fd_share.h
libsmbd_a_SOURCES += lib/crash.c lib/crash.h lib/bug.c lib/bug.h
# NIC IRQ affinity matched to the workers (smbd-irq, the master).
libsmbd_a_SOURCES += lib/irqplan.c lib/irqplan.h
# Calls whose error the rooms above get returned, not in errno (issue 37):
# checked number parsing, sockets, whole files, tdb_open.
libsmbd_a_SOURCES += lib/num.c lib/num.h lib/sock.c lib/sock.h \
	lib/file.c lib/file.h lib/tdbfile.c lib/tdbfile.h
# smb.conf `interfaces` entries: what to bind, what to advertise.
libsmbd_a_SOURCES += lib/ifspec.c lib/ifspec.h
# The host's interfaces as the kernel reports them (the FSCTL's detection).
libsmbd_a_SOURCES += lib/netif.c lib/netif.h
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

UNIT_TESTS += testsuite/unit/test_ev_sendfile
testsuite_unit_test_ev_sendfile_SOURCES = testsuite/unit/test_ev_sendfile.c \
	testsuite/common/tcp_pair.c testsuite/common/tcp_pair.h

UNIT_TESTS += testsuite/unit/test_ev_detach
testsuite_unit_test_ev_detach_SOURCES = testsuite/unit/test_ev_detach.c \
	testsuite/common/tcp_pair.c testsuite/common/tcp_pair.h

UNIT_TESTS += testsuite/unit/test_ev_after_poll
testsuite_unit_test_ev_after_poll_SOURCES = testsuite/unit/test_ev_after_poll.c \
	testsuite/common/tcp_pair.c testsuite/common/tcp_pair.h

# lib/charset: the one UTF-8 decoder and case mapping.
UNIT_TESTS += testsuite/unit/test_charset
# lib/bug: BUG_ON invariant checks.
UNIT_TESTS += testsuite/unit/test_bug

UNIT_TESTS += testsuite/unit/test_heartbeat
UNIT_TESTS += testsuite/unit/test_tpool
UNIT_TESTS += testsuite/unit/test_log
UNIT_TESTS += testsuite/unit/test_proc
# lib/num, lib/file + lib/tdbfile, lib/sock: the errors returned, not left
# in errno (issue 37).
UNIT_TESTS += testsuite/unit/test_num
UNIT_TESTS += testsuite/unit/test_lib_file
UNIT_TESTS += testsuite/unit/test_sock
UNIT_TESTS += testsuite/unit/test_irqplan
UNIT_TESTS += testsuite/unit/test_ev_file_write
UNIT_TESTS += testsuite/unit/test_ifspec
UNIT_TESTS += testsuite/unit/test_crypto
UNIT_TESTS += testsuite/unit/test_xca_lz77
UNIT_TESTS += testsuite/unit/test_xca_lznt1
UNIT_TESTS += testsuite/unit/test_xca_huff

# The decoders' work counted (XCA_COUNT_STEPS, lib/xca.h) on the
# hand-built adversaries of testsuite/common/xca_adversary.c: its own
# copy of the codecs, so the daemon's build counts nothing.
check_PROGRAMS += testsuite/unit/test_xca_cost
TESTS += testsuite/unit/test_xca_cost
testsuite_unit_test_xca_cost_SOURCES = testsuite/unit/test_xca_cost.c \
	testsuite/common/xca_adversary.c testsuite/common/xca_adversary.h \
	lib/xca_lz77.c lib/xca_lznt1.c lib/xca_huff.c
testsuite_unit_test_xca_cost_CFLAGS = $(AM_CFLAGS) \
	-DXCA_COUNT_STEPS
testsuite_unit_test_xca_cost_LDADD = $(TALLOC_LIBS) $(CMOCKA_LIBS)

# The metrics table, histogram and Prometheus text (and the endpoint,
# smbd/process/metrics_http.c).
UNIT_TESTS += testsuite/unit/test_metrics
