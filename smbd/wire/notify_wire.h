/*
 * The CHANGE_NOTIFY response encoder (notify_wire.c).
 */
#ifndef SMBD_NOTIFY_WIRE_H
#define SMBD_NOTIFY_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/wire.h"

/*
 * Push the 2.2.36 body at out (the reply's SMB2 header starts at hdr)
 * with one FILE_NOTIFY_INFORMATION per entry: names[i] (UTF-8, '\\'
 * separated, at most 1022 UTF-16 units are kept) with actions[i].  False,
 * with out as it was, when the entries do not fit in out_len bytes (the
 * caller answers STATUS_NOTIFY_ENUM_DIR) or out failed.
 */
bool smb2_notify_encode(struct wire_buf *out, size_t hdr,
			const char *const *names, const uint32_t *actions,
			unsigned n_entries, uint32_t out_len);

#endif
