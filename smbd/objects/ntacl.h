/*
 * NT ACL semantics over struct sd (smbd/wire/sd.h): the access check
 * (MS-DTYP 2.5.3.2), generic rights mapping (MS-DTYP 2.4.3), the
 * descriptor a new file or directory inherits (MS-DTYP 2.5.3.4) and the
 * merge SET_INFO does (MS-SMB2 3.3.5.21.3, MS-FSA 2.1.5.16).
 *
 * Pure functions: no I/O, no global state, so they are unit tested
 * (testsuite/unit/test_ntacl.c).  The callers read and write Samba's
 * security.NTACL xattr.
 */
#ifndef SMBD_NTACL_H
#define SMBD_NTACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "smbd/wire/sd.h"

/* MS-DTYP 2.4.4.1 AceType / AceFlags. */
#define NTACL_ACE_ALLOWED 0x00
#define NTACL_ACE_DENIED 0x01
#define NTACL_OBJECT_INHERIT 0x01
#define NTACL_CONTAINER_INHERIT 0x02
#define NTACL_NO_PROPAGATE 0x04
#define NTACL_INHERIT_ONLY 0x08
#define NTACL_INHERITED 0x10

/* MS-DTYP 2.4.6 Control bits about the DACL. */
#define NTACL_SE_DACL_DEFAULTED 0x0008
#define NTACL_SE_DACL_AUTO_INHERIT_REQ 0x0100
#define NTACL_SE_DACL_AUTO_INHERITED 0x0400
#define NTACL_SE_DACL_PROTECTED 0x1000

/*
 * Who asks: the SIDs of the session's user (sids[0]), its groups and the
 * well-known groups it belongs to.  root is the Unix superuser, who
 * passes every check as with Samba.
 */
struct ntacl_token {
	struct sd_sid *sids;
	size_t num_sids;
	bool root;
	/* a domain user's (ntacl_token_domain): ids map through winbindd */
	bool domain;
};

/* Samba's Unix SIDs: S-1-22-1-uid (user), S-1-22-2-gid (group). */
void ntacl_sid_unix_user(struct sd_sid *sid, uid_t uid);
void ntacl_sid_unix_group(struct sd_sid *sid, gid_t gid);
/*
 * The SID a uid (group false) or gid stands for in a descriptor.  With
 * domain (security = ads) the one winbindd's idmap maps it to, as
 * Samba's member shows SMBNG\alice as a file's owner; else, or when
 * winbindd maps none (a local account), the Unix SID above.  With
 * domain it asks winbindd and blocks: pool threads only.
 */
void ntacl_sid_of_id(struct sd_sid *sid, bool group, uint32_t id,
		     bool domain);
/* S-1-auth-rid, e.g. Everyone (1, 0), Authenticated Users (5, 11). */
void ntacl_sid_wellknown(struct sd_sid *sid, uint8_t auth, uint32_t rid);
bool ntacl_sid_equal(const struct sd_sid *a, const struct sd_sid *b);

/*
 * The token of a Unix user: its user SID, primary and supplementary
 * group SIDs, Everyone, and Authenticated Users unless guest.
 */
NTSTATUS ntacl_token_unix(TALLOC_CTX *mem_ctx, uid_t uid, gid_t gid,
			  const gid_t *groups, size_t ngroups, bool guest,
			  struct ntacl_token **out);

/*
 * The token of a domain user (security = ads): its Windows SIDs first
 * (sids[0] the user, sids[1] the primary group: the owner and group of
 * what it creates, as Samba's token has them), then its Unix ids' SIDs
 * as ntacl_token_unix() makes them (so POSIX-mapped ACLs still know
 * it), Everyone and Authenticated Users; no SID twice.  n >= 2.
 */
NTSTATUS ntacl_token_domain(TALLOC_CTX *mem_ctx, const struct sd_sid *sids,
			    size_t n, uid_t uid, gid_t gid,
			    const gid_t *groups, size_t ngroups,
			    struct ntacl_token **out);

/* s is one of the token's SIDs. */
bool ntacl_token_has(const struct ntacl_token *tok, const struct sd_sid *s);

/* GENERIC_* bits of mask replaced by the file rights (MS-DTYP 2.4.3,
 * the same for files and directories). */
uint32_t ntacl_map_generic(uint32_t mask);

/*
 * MS-DTYP 2.5.3.2 with MAXIMUM_ALLOWED: every right the DACL gives the
 * token.  A NULL DACL gives all; the owner has READ_CONTROL and
 * WRITE_DAC unless an OWNER RIGHTS ACE says otherwise.  File systems add
 * FILE_READ_ATTRIBUTES for everyone (the caller adds DELETE from the
 * parent's FILE_DELETE_CHILD, MS-FSA 2.1.5.1.2.1).
 */
uint32_t ntacl_max_access(const struct sd *sd, const struct ntacl_token *tok);

/*
 * The descriptor a new object gets under a parent with this descriptor
 * (MS-DTYP 2.5.3.4 with the parent's inheritable ACEs): owner and group
 * are the creator's; CREATOR OWNER / CREATOR GROUP are replaced by them
 * and generic rights are mapped in the ACEs that take effect.  When the
 * parent passes nothing on, the DACL gives the owner and SYSTEM full
 * control as Windows' default.
 */
NTSTATUS ntacl_inherit(TALLOC_CTX *mem_ctx, const struct sd *parent,
		       bool is_dir, const struct sd_sid *owner,
		       const struct sd_sid *group, struct sd **out);

/*
 * SET_INFO security (MS-SMB2 3.3.5.21.3): the parts secinfo names come
 * from new, the rest from old.  Generic rights in effective ACEs are
 * mapped; AUTO_INHERIT_REQ is never stored and AUTO_INHERITED only with
 * it (as Windows).  INVALID_OWNER / INVALID_PRIMARY_GROUP when an owner
 * or group is named but missing.
 */
NTSTATUS ntacl_merge(TALLOC_CTX *mem_ctx, const struct sd *old,
		     const struct sd *new, uint32_t secinfo, struct sd **out);

#endif
