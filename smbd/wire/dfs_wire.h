/*
 * DFS on the wire: the referral request and response of MS-DFSC
 * (2.2.2 REQ_GET_DFS_REFERRAL, 2.2.3 REQ_GET_DFS_REFERRAL_EX, 2.2.4
 * RESP_GET_DFS_REFERRAL with 2.2.5.2/2.2.5.3 entries) and the DFS form
 * of a path (a referral's "\server\share\path", a CREATE's
 * "server\share\path" under SMB2_FLAGS_DFS_OPERATIONS, MS-SMB2
 * 3.3.5.9).  Pure parsers and builders, no file I/O, so unit tests and
 * a fuzzer (testsuite/fuzz/fuzz_dfs.c) drive them directly; the lookups
 * around them are smb2_fsctl_dfs.c's and smb2_create.c's, the links
 * themselves vfs/msdfs.h's.
 *
 * Where Samba 4.17 and the spec leave room, Samba's bytes are the
 * answer (testsuite/integration/test_dfs.py compares them): V2 entries
 * for MaxReferralLevel 0-2 and V3 for 3 and above (MS-DFSC 3.2.5.1 lets
 * a server answer below the client's level; a V4 entry would add only
 * the target-set boundary flag of 2.2.5.4, which a server without
 * target priorities has no use for), a time to live of 600 s, and the
 * strings laid out after all the entries, each entry's DFSPath,
 * DFSAlternatePath and NetworkAddress in turn.
 */
#ifndef SMBD_DFS_WIRE_H
#define SMBD_DFS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "lib/wire.h"

#define FSCTL_DFS_GET_REFERRALS 0x00060194
#define FSCTL_DFS_GET_REFERRALS_EX 0x000601B0

/* Seconds a client may keep a referral (Samba's). */
#define DFS_REFERRAL_TTL 600

/* 2.2.4 ReferralHeaderFlags */
#define DFS_HEADER_REFERRAL_SERVERS 0x00000001
#define DFS_HEADER_STORAGE_SERVERS 0x00000002
/* 2.2.5.2 ServerType */
#define DFS_SERVER_NON_ROOT 0x0000
#define DFS_SERVER_ROOT 0x0001
/* 2.2.5.x entry sizes before the strings */
#define DFS_ENTRY_V2_LEN 22
#define DFS_ENTRY_V3_LEN 34
/* 2.2.3 RequestFlags */
#define DFS_REQ_EX_SITE_NAME 0x0001

/* MS-FSCC 2.1.5: a path, in UTF-16 units. */
#define DFS_PATH_MAX_UNITS 32767

struct dfs_referral_req {
	uint16_t max_level;	/* MaxReferralLevel */
	char *path;		/* RequestFileName, UTF-8 */
	char *site;		/* _EX's SiteName (UTF-8), else NULL */
};

/*
 * 2.2.2 REQ_GET_DFS_REFERRAL: MaxReferralLevel, then RequestFileName up
 * to its UTF-16 NUL (the rest of the buffer when there is none; an odd
 * last byte is not part of it).  NT_STATUS_INVALID_PARAMETER when the
 * buffer is under 2 bytes, the name is not valid UTF-16 or longer than
 * DFS_PATH_MAX_UNITS.  Strings on mem_ctx.
 */
NTSTATUS dfs_referral_req_parse(TALLOC_CTX *mem_ctx, const uint8_t *buf,
				size_t len, struct dfs_referral_req *out);

/*
 * 2.2.3 REQ_GET_DFS_REFERRAL_EX: MaxReferralLevel, RequestFlags,
 * RequestDataLength, then RequestData (2.2.3.1): RequestFileNameLength
 * and the name, and with DFS_REQ_EX_SITE_NAME SiteNameLength and the
 * site.  Lengths are in bytes; trailing NULs in a name are not part of
 * it.  NT_STATUS_INVALID_PARAMETER when RequestData or a name runs past
 * what holds it, a length is odd, a name is not valid UTF-16 (a NUL
 * inside it included) or the file name is longer than
 * DFS_PATH_MAX_UNITS.  Bytes after RequestData are ignored.
 */
NTSTATUS dfs_referral_req_ex_parse(TALLOC_CTX *mem_ctx, const uint8_t *buf,
				   size_t len, struct dfs_referral_req *out);

/* What one referral answers (2.2.4): the request path's first
 * path_consumed bytes (UTF-16) are dfs_path, which the targets stand
 * for. */
struct dfs_referral_resp {
	uint16_t path_consumed;
	/* The targets are root targets (a referral for a DFS root itself:
	 * ServerType ROOT, header flags ReferralServers|StorageServers);
	 * else links' storage (NON_ROOT, StorageServers). */
	bool root;
	const char *dfs_path;		/* DFSPath and DFSAlternatePath */
	const char *const *targets;	/* NetworkAddress of each entry */
	size_t ntargets;
};

/*
 * RESP_GET_DFS_REFERRAL for a client that understands max_level, within
 * max_out bytes (the IOCTL's MaxOutputResponse).  MS-DFSC 3.2.5.1: the
 * entries that do not fit are left out, never a part of one; when not
 * even the first one fits, STATUS_BUFFER_OVERFLOW with the response cut
 * at max_out (what Samba sends then, and what MS-SMB2 3.3.5.15.2 has
 * the server return).  An entry whose strings lie past the 16-bit
 * offsets' reach is left out too; NT_STATUS_OBJECT_NAME_INVALID when
 * that is the first (a DFSPath of more than 16,375 units).  Strings
 * must be valid UTF-8 (NT_STATUS_INVALID_PARAMETER).
 */
NTSTATUS dfs_referral_resp_push(struct wire_buf *out, uint16_t max_level,
				const struct dfs_referral_resp *r,
				uint32_t max_out);

/* The bytes of s's first n bytes (valid UTF-8) as UTF-16. */
size_t dfs_utf16_len(const char *s, size_t n);

/*
 * A referral's path (RequestFileName, UTF-8) cut up: "\server\share"
 * then optionally "\path".  As Samba takes them, the leading '\' may be
 * missing or doubled (full then starts at the second one).
 * NT_STATUS_NOT_FOUND when there is no share component (nothing to
 * refer: MS-DFSC 3.2.5.x's answer for a path of no DFS namespace).
 */
struct dfs_path {
	const char *full;	/* the path the answer echoes (in path) */
	char *share;		/* the share's name, on mem_ctx */
	const char *rest;	/* in path, after the share's '\'; "" if
				 * nothing follows the share */
};
NTSTATUS dfs_path_split(TALLOC_CTX *mem_ctx, const char *path,
			struct dfs_path *out);

/*
 * How much of p->full (in bytes) names the first ncomp components of
 * the share-relative path norm ('/' separated: p->rest with empty
 * components dropped and ".." taken back, as vfs_name_from_wire makes
 * it): up to the end of the component of p->rest at which the walk
 * there first stands at those components.  That prefix is the DFSPath
 * of a link's referral and, in UTF-16, its PathConsumed.  0 when p->rest
 * never gets there (ncomp 0, or norm not p->rest's).
 */
size_t dfs_path_prefix_len(const struct dfs_path *p, const char *norm,
			   size_t ncomp);

/*
 * MS-SMB2 3.3.5.9: under SMB2_FLAGS_DFS_OPERATIONS a CREATE's name
 * (UTF-16LE, len bytes) is "server\share\path", with or without a
 * leading '\'.  *skip is how many of its bytes come before the path:
 * the server (any name: Samba does not look at it) and the share,
 * which must be share (the tree's, UTF-8, compared without case), else
 * NT_STATUS_OBJECT_PATH_NOT_FOUND.  A name without a '\' (after a
 * leading one) is a path already: *skip 0.  These are Samba 4.17's
 * answers, for any share the client sets the flag on.
 */
NTSTATUS dfs_create_name_strip(TALLOC_CTX *mem_ctx, const uint8_t *name,
			       size_t len, const char *share, size_t *skip);

#endif
