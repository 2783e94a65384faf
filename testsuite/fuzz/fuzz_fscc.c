/*
 * libFuzzer target: smbd/wire/fscc.c.
 *
 * Input: byte 0 picks the SET_INFO class (every value, so unknown
 * classes are covered too), the rest is the SET_INFO buffer for
 * fscc_set_info_pull().  Whatever decodes must be self-consistent; what
 * fails must leave the result zeroed.
 *
 * The same bytes, as a NUL-terminated string, are then used as a name
 * for the QUERY_INFO name classes and for QUERY_DIRECTORY entries of
 * every directory class with a max_len taken from byte 1, checking that
 * nothing is ever written past max_len and that a refused entry leaves
 * the buffer as it was.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "smbd/wire/fscc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_set_info(TALLOC_CTX *mem, uint8_t cls, const uint8_t *buf,
			   size_t len)
{
	struct fscc_set_info si;
	NTSTATUS status;
	size_t i;

	status = fscc_set_info_pull(mem, cls, buf, len, &si);
	if (si.info_class != cls) {
		abort();
	}
	if (!NT_STATUS_IS_OK(status)) {
		if (si.rename.new_name != NULL || si.eas != NULL ||
		    si.num_eas != 0) {
			abort();
		}
		return;
	}
	switch (cls) {
	case FSCC_FILE_RENAME_INFORMATION:
	case FSCC_FILE_LINK_INFORMATION:
	case FSCC_FILE_RENAME_INFORMATION_EX:
		if (si.rename.new_name == NULL ||
		    si.rename.replace_if_exists !=
			    ((si.rename.flags & 1) != 0)) {
			abort();
		}
		break;
	case FSCC_FILE_FULL_EA_INFORMATION:
		if (si.num_eas == 0 || si.eas == NULL) {
			abort();
		}
		for (i = 0; i < si.num_eas; i++) {
			size_t nl = strlen(si.eas[i].name);

			if (nl == 0 || nl > 255 || si.eas[i].value_len > len ||
			    (si.eas[i].value_len > 0 &&
			     si.eas[i].value == NULL)) {
				abort();
			}
		}
		break;
	default:
		break;
	}
}

static void check_encoders(TALLOC_CTX *mem, const char *name,
			   uint32_t max_len)
{
	struct vfs_file_info fi;
	struct fscc_file_ctx fc;
	struct fscc_dir_entry de;
	struct wire_buf out;
	uint8_t cls;

	memset(&fi, 0, sizeof(fi));
	fi.end_of_file = 7;
	fi.file_id = 42;
	memset(&fc, 0, sizeof(fc));
	fc.fi = &fi;
	fc.name = name;
	fc.short_name = name;
	wire_buf_init(&out, mem, 0);
	for (cls = 1; cls < 82; cls++) {
		size_t before = out.len;
		NTSTATUS status = fscc_file_info_push(&out, cls, &fc, max_len);

		if (out.len - before > max_len ||
		    (NT_STATUS_IS_ERR(status) && out.len != before)) {
			abort();
		}
	}

	memset(&de, 0, sizeof(de));
	de.fi = &fi;
	de.name = name;
	de.short_name = name;
	for (cls = 0; cls < 82; cls++) {
		size_t prev = (size_t)-1, before;
		int i;

		if (!fscc_dir_class_known(cls)) {
			continue;
		}
		wire_buf_init(&out, mem, 0);
		for (i = 0; i < 3; i++) {
			NTSTATUS status;

			before = out.len;
			status = fscc_dir_entry_push(&out, 0, cls, &de,
						     max_len * 4, &prev);
			if (out.len > (size_t)max_len * 4 ||
			    (!NT_STATUS_IS_OK(status) && out.len != before)) {
				abort();
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *mem;
	char *name;

	if (size < 1) {
		return 0;
	}
	mem = talloc_new(NULL);
	if (mem == NULL) {
		return 0;
	}
	check_set_info(mem, data[0], data + 1, size - 1);

	name = talloc_strndup(mem, (const char *)data + 1, size - 1);
	if (name != NULL && size >= 2) {
		check_encoders(mem, name, data[1]);
	}
	talloc_free(mem);
	return 0;
}
