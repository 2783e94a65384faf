# lib/xca_huff.c: MS-XCA LZ77+Huffman.
libsmbd_a_SOURCES += lib/xca_huff.c lib/xca.h

check_PROGRAMS += testsuite/unit/test_xca_huff
TESTS += testsuite/unit/test_xca_huff
testsuite_unit_test_xca_huff_SOURCES = testsuite/unit/test_xca_huff.c
testsuite_unit_test_xca_huff_LDADD = $(UNIT_LIBS)
testsuite_unit_test_xca_huff_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
EXTRA_DIST += testsuite/fuzz/fuzz_xca_huff.c \
	testsuite/fuzz/corpus/fuzz_xca_huff
