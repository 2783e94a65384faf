/*
 * NT ACL semantics (see ntacl.h): access check, generic mapping,
 * inheritance and the SET_INFO merge, written from MS-DTYP 2.4 and
 * 2.5.3.
 */
#include "smbd/objects/ntacl.h"
#include "smbd/objects/open.h"
#include "smbd/objects/secdesc.h"
#include "smbd/auth/winbind.h"

#include <string.h>

/* A SID with authority auth (its last byte) and up to 2 sub-authorities. */
static void sid_set(struct sd_sid *sid, uint8_t auth, uint8_t n, uint32_t a,
		    uint32_t b)
{
	memset(sid, 0, sizeof(*sid));
	sid->revision = 1;
	sid->num_auths = n;
	sid->id_auth[5] = auth;
	sid->sub_auths[0] = a;
	sid->sub_auths[1] = b;
}

void ntacl_sid_unix_user(struct sd_sid *sid, uid_t uid)
{
	sid_set(sid, 22, 2, 1, (uint32_t)uid);
}

void ntacl_sid_unix_group(struct sd_sid *sid, gid_t gid)
{
	sid_set(sid, 22, 2, 2, (uint32_t)gid);
}

void ntacl_sid_of_id(struct sd_sid *sid, bool group, uint32_t id,
		     bool domain)
{
	struct auth_sid a;

	if (domain && winbind_id_to_sid(group, id, &a) &&
	    a.num_auths <= SD_SID_MAX_SUB_AUTHS) {
		memset(sid, 0, sizeof(*sid));
		sid->revision = a.revision;
		sid->num_auths = a.num_auths;
		memcpy(sid->id_auth, a.id_auth, 6);
		memcpy(sid->sub_auths, a.sub_auths,
		       sizeof(uint32_t) * a.num_auths);
		return;
	}
	if (group) {
		ntacl_sid_unix_group(sid, (gid_t)id);
	} else {
		ntacl_sid_unix_user(sid, (uid_t)id);
	}
}

void ntacl_sid_wellknown(struct sd_sid *sid, uint8_t auth, uint32_t rid)
{
	sid_set(sid, auth, 1, rid, 0);
}

bool ntacl_sid_equal(const struct sd_sid *a, const struct sd_sid *b)
{
	return a->revision == b->revision && a->num_auths == b->num_auths &&
	       memcmp(a->id_auth, b->id_auth, 6) == 0 &&
	       memcmp(a->sub_auths, b->sub_auths,
		      sizeof(uint32_t) * a->num_auths) == 0;
}

/* Well-known SIDs (MS-DTYP 2.4.2.4). */
static bool sid_is(const struct sd_sid *s, uint8_t auth, uint32_t sub)
{
	struct sd_sid w;

	sid_set(&w, auth, 1, sub, 0);
	return ntacl_sid_equal(s, &w);
}

#define SID_IS_CREATOR_OWNER(s) sid_is((s), 3, 0)
#define SID_IS_CREATOR_GROUP(s) sid_is((s), 3, 1)
#define SID_IS_OWNER_RIGHTS(s) sid_is((s), 3, 4)

NTSTATUS ntacl_token_unix(TALLOC_CTX *mem_ctx, uid_t uid, gid_t gid,
			  const gid_t *groups, size_t ngroups, bool guest,
			  struct ntacl_token **out)
{
	struct ntacl_token *t = talloc_zero(mem_ctx, struct ntacl_token);
	size_t i, n = 0;

	if (t == NULL || ngroups > 4096) {
		talloc_free(t);
		return t == NULL ? NT_STATUS_NO_MEMORY
				 : NT_STATUS_INVALID_PARAMETER;
	}
	t->sids = talloc_array(t, struct sd_sid, ngroups + 4);
	if (t->sids == NULL) {
		talloc_free(t);
		return NT_STATUS_NO_MEMORY;
	}
	ntacl_sid_unix_user(&t->sids[n++], uid);
	ntacl_sid_unix_group(&t->sids[n++], gid);
	for (i = 0; i < ngroups; i++) {
		if (groups[i] != gid) {
			ntacl_sid_unix_group(&t->sids[n++], groups[i]);
		}
	}
	sid_set(&t->sids[n++], 1, 1, 0, 0); /* Everyone */
	if (!guest) {
		sid_set(&t->sids[n++], 5, 1, 11, 0); /* Authenticated Users */
	}
	t->num_sids = n;
	t->root = uid == 0;
	*out = t;
	return NT_STATUS_OK;
}

NTSTATUS ntacl_token_domain(TALLOC_CTX *mem_ctx, const struct sd_sid *sids,
			    size_t n, uid_t uid, gid_t gid,
			    const gid_t *groups, size_t ngroups,
			    struct ntacl_token **out)
{
	struct ntacl_token *unix_tok, *t;
	size_t i;
	NTSTATUS st;

	if (n < 2 || n > 4096) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	st = ntacl_token_unix(mem_ctx, uid, gid, groups, ngroups, false,
			      &unix_tok);
	if (!NT_STATUS_IS_OK(st)) {
		return st;
	}
	t = talloc_zero(mem_ctx, struct ntacl_token);
	if (t == NULL) {
		talloc_free(unix_tok);
		return NT_STATUS_NO_MEMORY;
	}
	t->sids = talloc_array(t, struct sd_sid, n + unix_tok->num_sids);
	if (t->sids == NULL) {
		talloc_free(unix_tok);
		talloc_free(t);
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < n; i++) {
		if (i < 2 || !ntacl_token_has(t, &sids[i])) {
			t->sids[t->num_sids++] = sids[i];
		}
	}
	for (i = 0; i < unix_tok->num_sids; i++) {
		if (!ntacl_token_has(t, &unix_tok->sids[i])) {
			t->sids[t->num_sids++] = unix_tok->sids[i];
		}
	}
	t->root = unix_tok->root;
	t->domain = true;
	talloc_free(unix_tok);
	*out = t;
	return NT_STATUS_OK;
}

bool ntacl_token_has(const struct ntacl_token *tok, const struct sd_sid *s)
{
	size_t i;

	for (i = 0; i < tok->num_sids; i++) {
		if (ntacl_sid_equal(&tok->sids[i], s)) {
			return true;
		}
	}
	return false;
}

uint32_t ntacl_map_generic(uint32_t mask)
{
	if (mask & SEC_GENERIC_READ) {
		mask |= SEC_RIGHTS_FILE_READ;
	}
	if (mask & SEC_GENERIC_WRITE) {
		mask |= SEC_RIGHTS_FILE_WRITE;
	}
	if (mask & SEC_GENERIC_EXECUTE) {
		mask |= SEC_RIGHTS_FILE_EXECUTE;
	}
	if (mask & SEC_GENERIC_ALL) {
		mask |= SEC_FILE_ALL;
	}
	return mask & ~(SEC_GENERIC_READ | SEC_GENERIC_WRITE |
			SEC_GENERIC_EXECUTE | SEC_GENERIC_ALL);
}

/* An ACE the check looks at: allowed or denied, not inherit-only. */
static bool ace_effective(const struct sd_ace *a)
{
	return a->opaque == NULL && !(a->flags & NTACL_INHERIT_ONLY) &&
	       (a->type == NTACL_ACE_ALLOWED || a->type == NTACL_ACE_DENIED);
}

/*
 * MS-DTYP 2.5.3.2: OWNER RIGHTS (S-1-3-4) stands for the owner; when the
 * DACL names it, the owner's implicit READ_CONTROL | WRITE_DAC go.
 */
uint32_t ntacl_max_access(const struct sd *sd, const struct ntacl_token *tok)
{
	uint32_t granted = 0, denied = 0;
	bool is_owner, owner_rights = false;
	uint16_t i;

	if (tok->root || sd->dacl == NULL) {
		return SEC_FILE_ALL;
	}
	is_owner = sd->owner != NULL && ntacl_token_has(tok, sd->owner);
	for (i = 0; i < sd->dacl->num_aces; i++) {
		const struct sd_ace *a = &sd->dacl->aces[i];

		if (ace_effective(a) && SID_IS_OWNER_RIGHTS(&a->sid)) {
			owner_rights = true;
		}
	}
	if (is_owner && !owner_rights) {
		granted = SEC_STD_READ_CONTROL | SEC_STD_WRITE_DAC;
	}
	for (i = 0; i < sd->dacl->num_aces; i++) {
		const struct sd_ace *a = &sd->dacl->aces[i];
		uint32_t mask;
		bool match;

		if (!ace_effective(a)) {
			continue;
		}
		match = SID_IS_OWNER_RIGHTS(&a->sid)
				? is_owner
				: ntacl_token_has(tok, &a->sid);
		if (!match) {
			continue;
		}
		mask = ntacl_map_generic(a->mask);
		if (a->type == NTACL_ACE_ALLOWED) {
			granted |= mask & ~denied;
		} else {
			denied |= mask & ~granted;
		}
	}
	return (granted | SEC_FILE_READ_ATTRIBUTE) & SEC_FILE_ALL;
}

static NTSTATUS acl_add(TALLOC_CTX *mem_ctx, struct sd_acl *acl,
			const struct sd_ace *ace)
{
	struct sd_ace *n = talloc_realloc(mem_ctx, acl->aces, struct sd_ace,
					  acl->num_aces + 1);

	if (n == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	acl->aces = n;
	n[acl->num_aces++] = *ace;
	return NT_STATUS_OK;
}

/* The ACE as it applies to the new object: creator SIDs replaced,
 * generic rights mapped, no inheritance flags. */
static struct sd_ace ace_effective_copy(const struct sd_ace *a,
					const struct sd_sid *owner,
					const struct sd_sid *group,
					uint8_t inherited)
{
	struct sd_ace e = *a;

	if (SID_IS_CREATOR_OWNER(&a->sid)) {
		e.sid = *owner;
	} else if (SID_IS_CREATOR_GROUP(&a->sid)) {
		e.sid = *group;
	}
	e.mask = ntacl_map_generic(a->mask);
	e.flags = inherited;
	return e;
}

static bool ace_needs_split(const struct sd_ace *a)
{
	return SID_IS_CREATOR_OWNER(&a->sid) || SID_IS_CREATOR_GROUP(&a->sid) ||
	       ntacl_map_generic(a->mask) != a->mask;
}

/* MS-DTYP 2.5.3.4.2 ComputeInheritedACLfromParent for one ACE. */
static NTSTATUS inherit_ace(TALLOC_CTX *mem_ctx, struct sd_acl *acl,
			    const struct sd_ace *a, bool is_dir,
			    const struct sd_sid *owner,
			    const struct sd_sid *group, uint8_t inherited)
{
	struct sd_ace e;
	NTSTATUS status;

	if (a->opaque != NULL) {
		return NT_STATUS_OK;
	}
	if (!is_dir) {
		if (!(a->flags & NTACL_OBJECT_INHERIT)) {
			return NT_STATUS_OK;
		}
		e = ace_effective_copy(a, owner, group, inherited);
		return acl_add(mem_ctx, acl, &e);
	}
	if (a->flags & NTACL_CONTAINER_INHERIT) {
		if (a->flags & NTACL_NO_PROPAGATE) {
			e = ace_effective_copy(a, owner, group, inherited);
			return acl_add(mem_ctx, acl, &e);
		}
		if (ace_needs_split(a)) {
			e = ace_effective_copy(a, owner, group, inherited);
			status = acl_add(mem_ctx, acl, &e);
			if (!NT_STATUS_IS_OK(status)) {
				return status;
			}
			e = *a;
			e.flags = (uint8_t)((a->flags & (NTACL_OBJECT_INHERIT |
							 NTACL_CONTAINER_INHERIT)) |
					    NTACL_INHERIT_ONLY | inherited);
			return acl_add(mem_ctx, acl, &e);
		}
		e = *a;
		e.flags = (uint8_t)((a->flags & (NTACL_OBJECT_INHERIT |
						 NTACL_CONTAINER_INHERIT)) |
				    inherited);
		return acl_add(mem_ctx, acl, &e);
	}
	if ((a->flags & NTACL_OBJECT_INHERIT) &&
	    !(a->flags & NTACL_NO_PROPAGATE)) {
		/* Passed on to files below, not in force here. */
		e = *a;
		e.flags = NTACL_OBJECT_INHERIT | NTACL_INHERIT_ONLY | inherited;
		return acl_add(mem_ctx, acl, &e);
	}
	return NT_STATUS_OK;
}

/* Windows' DACL for an object that inherits nothing. */
static NTSTATUS default_dacl(TALLOC_CTX *mem_ctx, struct sd_acl *acl,
			     const struct sd_sid *owner)
{
	struct sd_ace e;
	NTSTATUS status;

	memset(&e, 0, sizeof(e));
	e.type = NTACL_ACE_ALLOWED;
	e.mask = SEC_FILE_ALL;
	e.sid = *owner;
	status = acl_add(mem_ctx, acl, &e);
	if (NT_STATUS_IS_OK(status)) {
		sid_set(&e.sid, 5, 1, 18, 0); /* SYSTEM */
		status = acl_add(mem_ctx, acl, &e);
	}
	return status;
}

NTSTATUS ntacl_inherit(TALLOC_CTX *mem_ctx, const struct sd *parent,
		       bool is_dir, const struct sd_sid *owner,
		       const struct sd_sid *group, struct sd **out)
{
	struct sd *sd = talloc_zero(mem_ctx, struct sd);
	bool auto_inh = parent != NULL &&
			(parent->control & NTACL_SE_DACL_AUTO_INHERITED);
	uint8_t inherited = auto_inh ? NTACL_INHERITED : 0;
	NTSTATUS status = NT_STATUS_OK;
	uint16_t i;

	if (sd == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	sd->revision = 1;
	sd->control = SD_SE_SELF_RELATIVE | SD_SE_DACL_PRESENT;
	sd->owner = talloc_memdup(sd, owner, sizeof(*owner));
	sd->group = talloc_memdup(sd, group, sizeof(*group));
	sd->dacl = talloc_zero(sd, struct sd_acl);
	if (sd->owner == NULL || sd->group == NULL || sd->dacl == NULL) {
		talloc_free(sd);
		return NT_STATUS_NO_MEMORY;
	}
	sd->dacl->revision = 2;
	for (i = 0; parent != NULL && parent->dacl != NULL &&
		    i < parent->dacl->num_aces && NT_STATUS_IS_OK(status);
	     i++) {
		status = inherit_ace(sd->dacl, sd->dacl,
				     &parent->dacl->aces[i], is_dir, owner,
				     group, inherited);
	}
	if (NT_STATUS_IS_OK(status) && sd->dacl->num_aces == 0) {
		status = default_dacl(sd->dacl, sd->dacl, owner);
	} else if (auto_inh) {
		sd->control |= NTACL_SE_DACL_AUTO_INHERITED;
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(sd);
		return status;
	}
	*out = sd;
	return NT_STATUS_OK;
}

/* A copy of acl with generic rights mapped in the ACEs in force. */
static struct sd_acl *acl_copy_mapped(TALLOC_CTX *mem_ctx,
				      const struct sd_acl *acl)
{
	struct sd_acl *c = talloc_zero(mem_ctx, struct sd_acl);
	uint16_t i;

	if (c == NULL) {
		return NULL;
	}
	c->revision = acl->revision;
	c->num_aces = acl->num_aces;
	c->aces = talloc_array(c, struct sd_ace, acl->num_aces ? acl->num_aces
							       : 1);
	if (c->aces == NULL) {
		talloc_free(c);
		return NULL;
	}
	for (i = 0; i < acl->num_aces; i++) {
		c->aces[i] = acl->aces[i];
		if (acl->aces[i].opaque != NULL) {
			c->aces[i].opaque = talloc_memdup(
				c->aces, acl->aces[i].opaque,
				acl->aces[i].opaque_len);
		} else if (!(acl->aces[i].flags & NTACL_INHERIT_ONLY)) {
			c->aces[i].mask = ntacl_map_generic(acl->aces[i].mask);
		}
	}
	return c;
}

static struct sd_sid *sid_dup(TALLOC_CTX *mem_ctx, const struct sd_sid *s)
{
	return s == NULL ? NULL : talloc_memdup(mem_ctx, s, sizeof(*s));
}

/* The DACL part of SET_INFO: ACL and its control bits from new. */
static NTSTATUS merge_dacl(struct sd *sd, const struct sd *old,
			   const struct sd *new, uint32_t secinfo)
{
	const uint16_t dacl_bits = SD_SE_DACL_PRESENT | NTACL_SE_DACL_DEFAULTED |
				   NTACL_SE_DACL_AUTO_INHERITED |
				   NTACL_SE_DACL_PROTECTED;

	if (!(secinfo & SECINFO_DACL)) {
		sd->control |= old->control & dacl_bits;
		if (old->dacl != NULL) {
			sd->dacl = acl_copy_mapped(sd, old->dacl);
			if (sd->dacl == NULL) {
				return NT_STATUS_NO_MEMORY;
			}
		}
		return NT_STATUS_OK;
	}
	sd->control |= new->control & dacl_bits;
	/* AUTO_INHERITED is kept only when asked for with AUTO_INHERIT_REQ
	 * (what Windows stores: smbtorture smb2.acls.INHERITFLAGS). */
	if (!(new->control & NTACL_SE_DACL_AUTO_INHERIT_REQ)) {
		sd->control &= (uint16_t)~NTACL_SE_DACL_AUTO_INHERITED;
	}
	/* No DACL at all is the NULL DACL (everyone has access). */
	sd->control |= SD_SE_DACL_PRESENT;
	if (new->dacl != NULL && (new->control & SD_SE_DACL_PRESENT)) {
		sd->dacl = acl_copy_mapped(sd, new->dacl);
		if (sd->dacl == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
	}
	return NT_STATUS_OK;
}

NTSTATUS ntacl_merge(TALLOC_CTX *mem_ctx, const struct sd *old,
		     const struct sd *new, uint32_t secinfo, struct sd **out)
{
	struct sd *sd = talloc_zero(mem_ctx, struct sd);
	NTSTATUS status;

	if (sd == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if ((secinfo & SECINFO_OWNER) && new->owner == NULL) {
		talloc_free(sd);
		return NT_STATUS_INVALID_OWNER;
	}
	if ((secinfo & SECINFO_GROUP) && new->group == NULL) {
		talloc_free(sd);
		return NT_STATUS_INVALID_PRIMARY_GROUP;
	}
	sd->revision = 1;
	sd->control = SD_SE_SELF_RELATIVE;
	sd->owner = sid_dup(sd, (secinfo & SECINFO_OWNER) ? new->owner
							  : old->owner);
	sd->group = sid_dup(sd, (secinfo & SECINFO_GROUP) ? new->group
							  : old->group);
	/* The SACL needs SeSecurityPrivilege, never held here: kept. */
	if (old->sacl != NULL) {
		sd->sacl = acl_copy_mapped(sd, old->sacl);
		sd->control |= old->control & SD_SE_SACL_PRESENT;
	}
	status = merge_dacl(sd, old, new, secinfo);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(sd);
		return status;
	}
	*out = sd;
	return NT_STATUS_OK;
}
