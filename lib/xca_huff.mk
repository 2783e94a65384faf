# lib/xca_huff.c: MS-XCA LZ77+Huffman.
libsmbd_a_SOURCES += lib/xca_huff.c lib/xca.h

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
