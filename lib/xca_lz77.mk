# lib/xca_lz77.c, lib/xca_lznt1.c: MS-XCA Plain LZ77 and LZNT1.
libsmbd_a_SOURCES += lib/xca_lz77.c lib/xca_lznt1.c lib/xca_private.h

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
