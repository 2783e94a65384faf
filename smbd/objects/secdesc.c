/*
 * Unix mode -> NT security descriptor (see secdesc.h).  Owner and group
 * use Samba's Unix SIDs (S-1-22-1-uid, S-1-22-2-gid), "other" maps to
 * Everyone (S-1-1-0), each rwx triple to the generic file rights.  The
 * descriptor is built as a struct sd and coded by smbd/wire/sd.c.
 */
#include <stdbool.h>
#include "smbd/objects/secdesc.h"
#include "smbd/objects/ntacl.h"
#include "smbd/objects/open.h"
#include "smbd/wire/sd.h"

#include <string.h>

static uint32_t perm_mask(unsigned rwx, bool owner)
{
	uint32_t m = SEC_FILE_READ_ATTRIBUTE | SEC_STD_READ_CONTROL |
		     SEC_STD_SYNCHRONIZE | SEC_FILE_READ_EA;

	if (rwx & 4) {
		m |= SEC_RIGHTS_FILE_READ;
	}
	if (rwx & 2) {
		/* Write permission on a directory lets one delete what is
		 * in it: FILE_DELETE_CHILD (rwx is then full control, as
		 * Windows and Samba show it), which an NT ACL stored from
		 * this descriptor must keep granting. */
		m |= SEC_RIGHTS_FILE_WRITE | SEC_STD_DELETE |
		     SEC_DIR_DELETE_CHILD;
	}
	if (rwx & 1) {
		m |= SEC_RIGHTS_FILE_EXECUTE;
	}
	if (owner) {
		/* The owner may always change the permissions. */
		m |= SEC_STD_WRITE_DAC | SEC_STD_WRITE_OWNER |
		     SEC_FILE_WRITE_ATTRIBUTE;
	}
	return m;
}

static void mode_ace(struct sd_ace *a, const struct sd_sid *sid,
		     uint32_t mask, uint8_t flags)
{
	memset(a, 0, sizeof(*a));
	a->type = NTACL_ACE_ALLOWED;
	a->flags = flags;
	a->mask = mask;
	a->sid = *sid;
}

void secdesc_from_mode(struct wire_buf *out, uint32_t secinfo, uid_t uid,
		       gid_t gid, mode_t mode, bool is_dir)
{
	struct sd_sid owner, group;

	ntacl_sid_unix_user(&owner, uid);
	ntacl_sid_unix_group(&group, gid);
	secdesc_from_mode_sids(out, secinfo, &owner, &group, mode, is_dir);
}

void secdesc_from_mode_sids(struct wire_buf *out, uint32_t secinfo,
			    const struct sd_sid *owner_sid,
			    const struct sd_sid *group_sid, mode_t mode,
			    bool is_dir)
{
	struct sd_sid owner = *owner_sid, group = *group_sid, world;
	struct sd_ace aces[3];
	struct sd_acl dacl = {.revision = 2, .num_aces = 3, .aces = aces};
	struct sd sd = {.revision = 1, .control = SD_SE_SELF_RELATIVE};
	uint8_t flags = is_dir ? (NTACL_CONTAINER_INHERIT | NTACL_OBJECT_INHERIT)
			       : 0;

	ntacl_sid_wellknown(&world, 1, 0); /* Everyone */
	if (secinfo & SECINFO_OWNER) {
		sd.owner = &owner;
	}
	if (secinfo & SECINFO_GROUP) {
		sd.group = &group;
	}
	if (secinfo & SECINFO_DACL) {
		mode_ace(&aces[0], &owner, perm_mask((mode >> 6) & 7, true),
			 flags);
		mode_ace(&aces[1], &group, perm_mask((mode >> 3) & 7, false),
			 flags);
		mode_ace(&aces[2], &world, perm_mask(mode & 7, false), flags);
		sd.dacl = &dacl;
		sd.control |= SD_SE_DACL_PRESENT;
	}
	sd_push(out, &sd, 0);
}

/* ---- NT security descriptor -> Unix mode (SET_INFO security) ---- */

static unsigned sd_rwx(uint32_t mask)
{
	unsigned b = 0;

	if (mask & (SEC_FILE_READ_DATA | SEC_GENERIC_READ | SEC_GENERIC_ALL)) {
		b |= 4;
	}
	if (mask & (SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA |
		    SEC_GENERIC_WRITE | SEC_GENERIC_ALL)) {
		b |= 2;
	}
	if (mask & (SEC_FILE_EXECUTE | SEC_GENERIC_EXECUTE | SEC_GENERIC_ALL)) {
		b |= 1;
	}
	return b;
}

/* The rwx bits one ALLOWED ACE gives the mode's owner, group or other. */
/* The owner's and group's SIDs: their Unix ones and, on a member, the
 * domain ones QUERY_INFO shows (NULL: none). */
struct mode_sids {
	struct sd_sid u, g;
	const struct sd_sid *du, *dg;
};

static bool sid_is(const struct sd_sid *s, const struct sd_sid *unix_sid,
		   const struct sd_sid *dom)
{
	return ntacl_sid_equal(s, unix_sid) ||
	       (dom != NULL && ntacl_sid_equal(s, dom));
}

static void mode_from_ace(const struct sd_ace *a, const struct mode_sids *m,
			  unsigned *owner, unsigned *group, unsigned *other)
{
	struct sd_sid w, au;

	if (a->type != NTACL_ACE_ALLOWED || a->opaque != NULL) {
		return; /* deny ACEs and others: no mode bits */
	}
	ntacl_sid_wellknown(&w, 1, 0); /* Everyone */
	/* Authenticated Users: as "other" here. */
	ntacl_sid_wellknown(&au, 5, 11);
	if (sid_is(&a->sid, &m->u, m->du)) {
		*owner |= sd_rwx(a->mask);
	} else if (sid_is(&a->sid, &m->g, m->dg)) {
		*group |= sd_rwx(a->mask);
	} else if (ntacl_sid_equal(&a->sid, &w) ||
		   ntacl_sid_equal(&a->sid, &au)) {
		*other |= sd_rwx(a->mask);
	}
}

NTSTATUS secdesc_to_mode(const uint8_t *buf, size_t len, uint32_t secinfo,
			 uid_t uid, gid_t gid, mode_t old, mode_t *mode)
{
	return secdesc_to_mode_sids(buf, len, secinfo, uid, gid, NULL, NULL,
				    old, mode);
}

NTSTATUS secdesc_to_mode_sids(const uint8_t *buf, size_t len,
			      uint32_t secinfo, uid_t uid, gid_t gid,
			      const struct sd_sid *owner_sid,
			      const struct sd_sid *group_sid, mode_t old,
			      mode_t *mode)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	unsigned owner = 0, group = 0, other = 0;
	struct mode_sids m = {.du = owner_sid, .dg = group_sid};
	struct sd *sd;
	uint16_t i;

	*mode = old;
	ntacl_sid_unix_user(&m.u, uid);
	ntacl_sid_unix_group(&m.g, gid);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	/* Any malformed descriptor is INVALID_PARAMETER here, as SET_INFO
	 * has always answered. */
	if (!NT_STATUS_IS_OK(sd_parse(tmp, buf, len, &sd))) {
		talloc_free(tmp);
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!(secinfo & SECINFO_DACL) || !(sd->control & SD_SE_DACL_PRESENT)) {
		talloc_free(tmp);
		return NT_STATUS_OK; /* owner/group: kept (no chown) */
	}
	if (sd->dacl == NULL) {
		/* A NULL DACL grants everyone everything. */
		*mode = (old & ~0777u) | 0777u;
		talloc_free(tmp);
		return NT_STATUS_OK;
	}
	for (i = 0; i < sd->dacl->num_aces; i++) {
		mode_from_ace(&sd->dacl->aces[i], &m, &owner, &group, &other);
	}
	talloc_free(tmp);
	/* Everyone's rights apply to owner and group too. */
	owner |= other;
	group |= other;
	/* The owner never locks itself out of reading the file. */
	owner |= 4;
	*mode = (old & ~0777u) | (owner << 6) | (group << 3) | other;
	return NT_STATUS_OK;
}
