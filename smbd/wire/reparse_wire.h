/*
 * Reparse points on the wire (issue 35): the REPARSE_DATA_BUFFER of
 * FSCTL_GET/SET/DELETE_REPARSE_POINT (MS-FSCC 2.1.2.2, 2.1.2.3, 2.3.33,
 * 2.3.65, 2.3.8), its symbolic link (2.1.2.4) and NFS (2.1.2.6) kinds,
 * and the Symbolic Link Error Response of a CREATE that stopped on a
 * link (MS-SMB2 2.2.2.2.1).  Pure parsers and builders, no file I/O, so
 * unit tests (test_reparse_wire) and a fuzzer (fuzz_reparse) drive them
 * directly; the handlers are smb2_fsctl_reparse.c and smb2_create.c.
 *
 * Link targets cross this file as UTF-8 with '/' separators, as the
 * file system keeps them; on the wire they are UTF-16LE with '\'.
 */
#ifndef SMBD_SMB2_REPARSE_WIRE_H
#define SMBD_SMB2_REPARSE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "lib/wire.h"

/* Control codes (MS-FSCC 2.3). */
#define FSCTL_SET_REPARSE_POINT 0x000900A4
#define FSCTL_GET_REPARSE_POINT 0x000900A8
#define FSCTL_DELETE_REPARSE_POINT 0x000900AC

/* REPARSE_DATA_BUFFER's fixed part (2.1.2.2) and REPARSE_GUID_DATA_
 * BUFFER's (2.1.2.3); the largest buffer MS-FSA 2.1.5.10.37 takes. */
#define REPARSE_HDR_LEN 8
#define REPARSE_GUID_HDR_LEN 24
#define REPARSE_MAX_LEN 16384

/* 2.1.2.4 Flags */
#define SYMLINK_FLAG_RELATIVE 0x00000001
/* 2.1.2.4: SubstituteNameOffset .. Flags before PathBuffer */
#define REPARSE_SYMLINK_FIXED 12

/* 2.1.2.6 NFS_SPECFILE_* types (the first 8 bytes of the data). */
#define NFS_SPECFILE_LNK 0x00000000014B4E4CULL
#define NFS_SPECFILE_CHR 0x0000000000524843ULL
#define NFS_SPECFILE_BLK 0x00000000004B4C42ULL
#define NFS_SPECFILE_FIFO 0x000000004F464946ULL
#define NFS_SPECFILE_SOCK 0x000000004B434F53ULL

/* MS-SMB2 2.2.2.2.1 SymLinkErrorTag ("SYML") */
#define SYMLINK_ERROR_TAG 0x4C4D5953

/* The reserved tags (MS-FSCC 2.1.2.1): IO_REPARSE_TAG_RESERVED_ZERO and
 * _ONE, which no reparse point may carry. */
static inline bool reparse_tag_reserved(uint32_t tag)
{
	return tag == 0 || tag == 1;
}

/* Microsoft's tags have bit 31 set; theirs use REPARSE_DATA_BUFFER, any
 * other tag the GUID form (2.1.2.2, 2.1.2.3). */
static inline bool reparse_tag_is_microsoft(uint32_t tag)
{
	return (tag & 0x80000000u) != 0;
}

/* A reparse buffer a client sent: its tag and its data (after the GUID
 * of the GUID form), pointing into the input. */
struct reparse_in {
	uint32_t tag;
	bool guid_form;
	const uint8_t *data;
	uint16_t data_len;
};

/*
 * FSCTL_SET_REPARSE_POINT's input, MS-FSA 2.1.5.10.37 phase 1 in its
 * order: no input at all is STATUS_INVALID_BUFFER_SIZE (as Windows
 * answers, before the object store sees it); shorter than the header,
 * over 16384 bytes, a length other than ReparseDataLength + 8 (or + 24
 * for the GUID form), or the form that does not go with the tag is
 * STATUS_IO_REPARSE_DATA_INVALID; a reserved tag is
 * STATUS_IO_REPARSE_TAG_INVALID.
 */
NTSTATUS reparse_set_parse(const uint8_t *buf, size_t len,
			   struct reparse_in *out);

/*
 * FSCTL_DELETE_REPARSE_POINT's input (MS-FSA 2.1.5.10.6): the header
 * alone, ReparseDataLength 0 (8 bytes, or 24 with the GUID); anything
 * else is STATUS_IO_REPARSE_DATA_INVALID, a reserved tag
 * STATUS_IO_REPARSE_TAG_INVALID.
 */
NTSTATUS reparse_delete_parse(const uint8_t *buf, size_t len, uint32_t *tag);

/*
 * The target of a Symbolic Link Reparse Data Buffer's data (2.1.2.4,
 * data_len bytes after the header): the SubstituteName as UTF-8 with
 * '\' turned into '/', on mem_ctx, and whether SYMLINK_FLAG_RELATIVE is
 * set.  Both names must lie inside PathBuffer with even lengths, the
 * SubstituteName must not be empty and must be valid UTF-16 without a
 * NUL: else STATUS_IO_REPARSE_DATA_INVALID.  The PrintName is only
 * checked (a link on this file system has one target).
 */
NTSTATUS reparse_symlink_parse(TALLOC_CTX *mem_ctx, const uint8_t *data,
			       size_t data_len, char **target,
			       bool *relative);

/*
 * A whole Symbolic Link Reparse Data Buffer for target (UTF-8, '/'
 * separators), its SubstituteName and PrintName both the target with
 * '\' separators, Flags SYMLINK_FLAG_RELATIVE when relative.  reserved
 * goes into the Reserved field (the UnparsedPathLength of 2.2.2.2.1).
 * Where both names do not fit the 16384-byte limit the PrintName is
 * left empty; where the SubstituteName alone does not,
 * STATUS_NAME_TOO_LONG.  STATUS_INVALID_PARAMETER for a target that is
 * not UTF-8.
 */
NTSTATUS reparse_symlink_push(struct wire_buf *b, const char *target,
			      bool relative, uint16_t reserved);

/* A whole NFS reparse buffer (2.1.2.6) of a FIFO, socket, or device
 * (major and minor only for NFS_SPECFILE_CHR and _BLK). */
void reparse_nfs_push(struct wire_buf *b, uint64_t type, uint32_t major,
		      uint32_t minor);

/*
 * MS-SMB2 2.2.2.2.1 Symbolic Link Error Response for a CREATE that
 * stopped on the link to target: unparsed is the length in bytes of
 * the path (UTF-16) after the link's component, its separator
 * included.  Errors as reparse_symlink_push.
 */
NTSTATUS reparse_symlink_error_push(struct wire_buf *b, const char *target,
				    bool relative, uint16_t unparsed);

#endif
