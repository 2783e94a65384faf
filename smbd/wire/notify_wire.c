/*
 * The CHANGE_NOTIFY response body (MS-SMB2 2.2.36) with its
 * FILE_NOTIFY_INFORMATION entries (MS-FSCC 2.7.1): pure, for the handler
 * (smb2_notify.c) and the fuzz target.
 */
#include "smbd/wire/notify_wire.h"

#include <stddef.h>
#include <stdint.h>

bool smb2_notify_encode(struct wire_buf *out, size_t hdr,
			const char *const *names, const uint32_t *actions,
			unsigned n_entries, uint32_t out_len)
{
	size_t body = out->len, start, prev = (size_t)-1;
	unsigned i;

	wire_push_le16(out, 9);
	wire_push_le16(out, (uint16_t)(body + 8 - hdr));
	wire_push_le32(out, 0);
	start = out->len;
	for (i = 0; i < n_entries; i++) {
		size_t at, nlen_at;
		uint16_t u16[1024];
		size_t n = 0;
		const unsigned char *p = (const unsigned char *)names[i];

		wire_push_align_from(out, start, 4);
		at = out->len;
		if (prev != (size_t)-1) {
			put_le32(out->data + prev, (uint32_t)(at - prev));
		}
		prev = at;
		wire_push_le32(out, 0);
		wire_push_le32(out, actions[i]);
		nlen_at = out->len;
		wire_push_le32(out, 0);
		/* UTF-8 to UTF-16LE (names are valid UTF-8 on disk here:
		 * vfs/name.c wrote them). */
		while (*p != '\0' && n < 1022) {
			uint32_t c = *p++;

			if (c >= 0xf0 && p[0] && p[1] && p[2]) {
				c = ((c & 7) << 18) | ((p[0] & 0x3fu) << 12) |
				    ((p[1] & 0x3fu) << 6) | (p[2] & 0x3fu);
				p += 3;
				c -= 0x10000;
				u16[n++] = (uint16_t)(0xd800 | (c >> 10));
				u16[n++] = (uint16_t)(0xdc00 | (c & 0x3ff));
				continue;
			}
			if (c >= 0xe0 && p[0] && p[1]) {
				c = ((c & 0xf) << 12) | ((p[0] & 0x3fu) << 6) |
				    (p[1] & 0x3fu);
				p += 2;
			} else if (c >= 0xc0 && p[0]) {
				c = ((c & 0x1f) << 6) | (p[0] & 0x3fu);
				p += 1;
			}
			u16[n++] = (uint16_t)c;
		}
		for (size_t j = 0; j < n; j++) {
			wire_push_le16(out, u16[j]);
		}
		put_le32(out->data + nlen_at, (uint32_t)(2 * n));
	}
	if (out->failed || out->len - start > out_len) {
		out->len = body;
		out->failed = false;
		return false;
	}
	put_le32(out->data + body + 4, (uint32_t)(out->len - start));
	return true;
}

