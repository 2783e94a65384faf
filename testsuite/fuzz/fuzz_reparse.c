/*
 * libFuzzer target: smbd/wire/reparse_wire.c, the reparse buffers a
 * client sends in FSCTL_SET_REPARSE_POINT and FSCTL_DELETE_REPARSE_POINT
 * and the symbolic link data in them (MS-FSCC 2.1.2.2-2.1.2.4).
 *
 * The whole input goes to each parser.  Checked invariants: an accepted
 * SET buffer is 8..16384 bytes, exactly its data plus one header, its
 * tag not reserved and its data inside the input; an accepted DELETE
 * buffer is a header with no data; a symlink target parsed from the
 * input (as SET's data) is non-empty, holds no '\' and no NUL, and
 * written back (as GET_REPARSE_POINT and the STOPPED_ON_SYMLINK error
 * response write it) parses to the same target, the error response's
 * SymLinkLength counting what follows it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "smbd/wire/reparse_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_set(const uint8_t *data, size_t size)
{
	struct reparse_in in;

	if (!NT_STATUS_IS_OK(reparse_set_parse(data, size, &in))) {
		return;
	}
	if (size < REPARSE_HDR_LEN || size > REPARSE_MAX_LEN ||
	    reparse_tag_reserved(in.tag) ||
	    size != (size_t)in.data_len + (in.guid_form ? REPARSE_GUID_HDR_LEN
							 : REPARSE_HDR_LEN) ||
	    in.data + in.data_len != data + size) {
		abort();
	}
}

static void check_delete(const uint8_t *data, size_t size)
{
	uint32_t tag;

	if (NT_STATUS_IS_OK(reparse_delete_parse(data, size, &tag)) &&
	    ((size != REPARSE_HDR_LEN && size != REPARSE_GUID_HDR_LEN) ||
	     le16(data + 4) != 0 || reparse_tag_reserved(tag))) {
		abort();
	}
}

static void check_symlink(const uint8_t *data, size_t size)
{
	TALLOC_CTX *mem = talloc_new(NULL);
	struct wire_buf b;
	char *t, *again;
	bool rel, rel2;
	NTSTATUS s;

	if (mem == NULL ||
	    !NT_STATUS_IS_OK(reparse_symlink_parse(mem, data, size, &t,
						   &rel))) {
		talloc_free(mem);
		return;
	}
	if (t[0] == '\0' || strchr(t, '\\') != NULL) {
		abort();
	}
	wire_buf_init(&b, mem, 64);
	s = reparse_symlink_push(&b, t, rel, 7);
	if (NT_STATUS_IS_OK(s)) {
		if (b.len < REPARSE_HDR_LEN + REPARSE_SYMLINK_FIXED ||
		    le16(b.data + 4) != b.len - REPARSE_HDR_LEN ||
		    le16(b.data + 6) != 7 ||
		    !NT_STATUS_IS_OK(reparse_symlink_parse(
			    mem, b.data + REPARSE_HDR_LEN,
			    b.len - REPARSE_HDR_LEN, &again, &rel2)) ||
		    strcmp(again, t) != 0 || rel2 != rel) {
			abort();
		}
	} else if (s != NT_STATUS_NAME_TOO_LONG) {
		/* t came from valid UTF-16: always valid UTF-8 */
		abort();
	}
	b.len = 0;
	if (NT_STATUS_IS_OK(reparse_symlink_error_push(&b, t, rel, 3)) &&
	    (le32(b.data) != b.len - 4 || le16(b.data + 14) != 3)) {
		abort();
	}
	talloc_free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_set(data, size);
	check_delete(data, size);
	check_symlink(data, size);
	return 0;
}
