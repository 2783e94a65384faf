/*
 * vfs_fruit's NFS ACEs (see ntacl_nfs.h): added to the DACL a Mac reads,
 * taken out of the DACL it sets.
 */
#include "smbd/objects/ntacl_nfs.h"
#include "smbd/objects/ntacl.h"
#include "smbd/objects/secdesc.h"

#include <string.h>

/* The NT authority (MS-DTYP 2.4.2.1: 5 is SECURITY_NT_AUTHORITY) and the
 * sub-authority Windows' Server for NFS took in it. */
#define NFS_AUTH 5
#define NFS_RID 88

/* AceSize of one of ours: header, mask, S-1-5-88-kind-value. */
#define NFS_ACE_SIZE (4 + 4 + 8 + 3 * 4)

void ntacl_nfs_sid(struct sd_sid *sid, uint32_t kind, uint32_t value)
{
	memset(sid, 0, sizeof(*sid));
	sid->revision = 1;
	sid->num_auths = 3;
	sid->id_auth[5] = NFS_AUTH;
	sid->sub_auths[0] = NFS_RID;
	sid->sub_auths[1] = kind;
	sid->sub_auths[2] = value;
}

bool ntacl_nfs_sid_is(const struct sd_sid *sid)
{
	static const uint8_t nt_auth[6] = {0, 0, 0, 0, 0, NFS_AUTH};

	return sid->revision == 1 && sid->num_auths >= 1 &&
	       memcmp(sid->id_auth, nt_auth, 6) == 0 &&
	       sid->sub_auths[0] == NFS_RID;
}

/* Whether ace names an S-1-5-88 SID (an opaque body is not read). */
static bool ace_is_nfs(const struct sd_ace *ace)
{
	return ace->opaque == NULL && ntacl_nfs_sid_is(&ace->sid);
}

bool ntacl_nfs_acl_has(const struct sd_acl *acl)
{
	uint16_t i;

	for (i = 0; acl != NULL && i < acl->num_aces; i++) {
		if (ace_is_nfs(&acl->aces[i])) {
			return true;
		}
	}
	return false;
}

bool ntacl_nfs_strip(struct sd_acl *acl, uint32_t *mode)
{
	bool found = false;
	uint16_t i, k = 0;

	for (i = 0; acl != NULL && i < acl->num_aces; i++) {
		const struct sd_ace *a = &acl->aces[i];

		if (!ace_is_nfs(a)) {
			acl->aces[k++] = *a;
			continue;
		}
		/* S-1-5-88-3 alone carries no mode: Samba would read a
		 * sub-authority that is not there; it is only removed. */
		if (!found && a->sid.num_auths >= 3 &&
		    a->sid.sub_auths[1] == NTACL_NFS_MODE) {
			*mode = a->sid.sub_auths[2];
			found = true;
		}
	}
	if (acl != NULL) {
		acl->num_aces = k;
	}
	return found;
}

NTSTATUS ntacl_nfs_add(TALLOC_CTX *mem_ctx, struct sd *sd, uid_t uid,
		       gid_t gid, uint32_t mode)
{
	static const uint32_t kinds[3] = {NTACL_NFS_MODE, NTACL_NFS_USER,
					  NTACL_NFS_GROUP};
	uint32_t values[3] = {mode, (uint32_t)uid, (uint32_t)gid};
	struct sd_acl *acl = sd->dacl;
	struct sd_ace *aces;
	uint32_t ignored;
	size_t i;

	if (acl == NULL) {
		acl = talloc_zero(mem_ctx, struct sd_acl);
		if (acl == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		acl->revision = 2;
	}
	(void)ntacl_nfs_strip(acl, &ignored);
	if (acl->num_aces > UINT16_MAX - 3 ||
	    sd_acl_size(acl) + 3 * NFS_ACE_SIZE > UINT16_MAX) {
		return NT_STATUS_INVALID_ACL;
	}
	aces = talloc_array(mem_ctx, struct sd_ace, acl->num_aces + 3U);
	if (aces == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (acl->num_aces != 0) {
		memcpy(aces, acl->aces, sizeof(*aces) * acl->num_aces);
	}
	/* mode, uid, gid: Samba's order */
	for (i = 0; i < 3; i++) {
		struct sd_ace *a = &aces[acl->num_aces + i];

		memset(a, 0, sizeof(*a));
		a->type = NTACL_ACE_DENIED;
		ntacl_nfs_sid(&a->sid, kinds[i], values[i]);
	}
	acl->aces = aces;
	acl->num_aces += 3;
	sd->dacl = acl;
	sd->control |= SD_SE_DACL_PRESENT;
	return NT_STATUS_OK;
}

NTSTATUS ntacl_nfs_set_prepare(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			       size_t len, uint32_t *secinfo, uint8_t **out,
			       size_t *out_len, bool *chmod, mode_t *mode)
{
	struct sd *sd;
	uint32_t m = 0;

	*chmod = false;
	*mode = 0;
	if (!NT_STATUS_IS_OK(sd_parse(mem_ctx, buf, len, &sd))) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!(*secinfo & SECINFO_DACL) || !ntacl_nfs_acl_has(sd->dacl)) {
		/* nothing of ours: the descriptor goes on as it came */
		*out = talloc_memdup(mem_ctx, buf, len);
		*out_len = len;
		return *out != NULL || len == 0 ? NT_STATUS_OK
						: NT_STATUS_NO_MEMORY;
	}
	*chmod = ntacl_nfs_strip(sd->dacl, &m);
	/* 0777: S_IRWXU | S_IRWXG | S_IRWXO, what Samba applies */
	*mode = (mode_t)(m & 0777);
	/* it had ACEs (ours): none left is no DACL to set */
	if (sd->dacl->num_aces == 0) {
		*secinfo &= ~(uint32_t)SECINFO_DACL;
		sd->control &= (uint16_t)~SD_SE_DACL_PRESENT;
		sd->dacl = NULL;
	}
	return sd_marshal(mem_ctx, sd, out, out_len);
}
