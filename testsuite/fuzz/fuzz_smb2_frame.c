/*
 * libFuzzer target: raw bytes as they arrive on a connection (framing,
 * NetBIOS session request on a port-139 connection, compound splitting,
 * the body-size table, NEGOTIATE and its contexts, the SMB1 upgrade,
 * credits).  The first byte picks port 139 behaviour; the rest is fed in
 * two pieces to exercise reassembly.
 */
#include "testsuite/common/smb2_testconn.c"

#include <stdint.h>
#include <stddef.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	struct testconn *t;
	size_t cut;

	if (!quiet) {
		log_set_level(-1);
		quiet = 1;
	}
	if (size < 2) {
		return 0;
	}
	t = testconn_new(NULL, NULL);
	if (t->conn == NULL) {
		talloc_free(t);
		return 0;
	}
	t->conn->nbt = (data[0] & 1) != 0;
	cut = data[1] % (size - 1);
	testconn_input(t, data + 2, cut);
	testconn_input(t, data + 2 + cut, size - 2 - cut);
	talloc_free(t);
	return 0;
}
