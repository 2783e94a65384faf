/*
 * Stored NT ACLs (see ntacl_file.h).
 */
#include "smbd/objects/ntacl_file.h"
#include "smbd/objects/secdesc.h"
#include "smbd/objects/ntacl_nfs.h"
#include "smbd/conn/session.h"
#include "smbd/auth/auth.h"
#include "vfs/ntacl_xattr.h"
#include "vfs/vfs_posix.h"
#include "vfs/handle.h"
#include "vfs/fsctl_io.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

NTSTATUS ntacl_file_get(TALLOC_CTX *mem_ctx, int fd, struct sd **out)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t *blob;
	size_t len;
	uint16_t ver;
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = vfs_ntacl_fget(tmp, fd, &blob, &len);
	if (NT_STATUS_IS_OK(status)) {
		status = ntacl_blob_parse(mem_ctx, blob, len, out, &ver);
		if (!NT_STATUS_IS_OK(status)) {
			status = NT_STATUS_NOT_FOUND;
		}
	}
	talloc_free(tmp);
	return status;
}

NTSTATUS ntacl_file_set(int fd, const struct sd *sd)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	uint8_t *blob;
	size_t len;
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	status = ntacl_blob_push(tmp, sd, &blob, &len);
	if (NT_STATUS_IS_OK(status)) {
		status = vfs_ntacl_fset(fd, blob, len);
	}
	talloc_free(tmp);
	return status;
}

NTSTATUS ntacl_file_from_mode(TALLOC_CTX *mem_ctx, int fd, bool domain,
                              struct sd **out)
{
	TALLOC_CTX *tmp;
	struct wire_buf b;
	struct sd_sid owner, group;
	struct stat sb;
	NTSTATUS status = vfs_fd_stat(fd, &sb);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	tmp = talloc_new(NULL);
	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	wire_buf_init(&b, tmp, 256);
	ntacl_sid_of_id(&owner, false, sb.st_uid, domain);
	ntacl_sid_of_id(&group, true, sb.st_gid, domain);
	secdesc_from_mode_sids(&b, SECINFO_OWNER | SECINFO_GROUP | SECINFO_DACL,
	                       &owner, &group, sb.st_mode,
	                       S_ISDIR(sb.st_mode));
	status = b.failed ? NT_STATUS_NO_MEMORY
	                  : sd_parse(mem_ctx, b.data, b.len, out);
	talloc_free(tmp);
	return status;
}

NTSTATUS ntacl_file_get_parent(TALLOC_CTX *mem_ctx,
                               const struct vfs_share *share,
                               const char *path,
                               struct sd **out)
{
	char *parent = talloc_strdup(NULL, path);
	char *slash = parent != NULL ? strrchr(parent, '/') : NULL;
	NTSTATUS status;
	int pfd;

	if (parent == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	if (path[0] == '\0' || (path[0] == '.' && path[1] == '\0')) {
		talloc_free(parent);
		return NT_STATUS_NOT_FOUND; /* the share root: none above */
	}
	if (slash != NULL) {
		*slash = '\0';
	}
	status = vfs_handle_openat(share,
	                           share->root_fd,
	                           slash != NULL ? parent : ".",
	                           O_PATH | O_DIRECTORY,
	                           0,
	                           &pfd);
	talloc_free(parent);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = ntacl_file_get(mem_ctx, pfd, out);
	vfs_fd_close(pfd);
	return status;
}

NTSTATUS ntacl_session_token(TALLOC_CTX *mem_ctx,
                             const struct smbd_session *s,
                             const struct smbd_tcon *t,
                             struct ntacl_token **out)
{
	if (t != NULL && t->forced) {
		return ntacl_token_unix(mem_ctx, t->force_uid, t->force_gid,
		                        t->force_groups, t->force_ngroups,
		                        s->guest || s->anonymous, out);
	}
	if (s->nsids >= 2 && !s->guest && !s->anonymous) {
		/* security = ads: the domain user's SIDs (from the PAC or
		 * winbindd), so an ACE for a domain group is honoured */
		struct sd_sid *sids = talloc_array(mem_ctx, struct sd_sid,
		                                   s->nsids);
		NTSTATUS st;
		size_t i;

		if (sids == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		for (i = 0; i < s->nsids; i++) {
			const struct auth_sid *a = &s->sids[i];

			memset(&sids[i], 0, sizeof(sids[i]));
			sids[i].revision = a->revision;
			sids[i].num_auths = a->num_auths;
			memcpy(sids[i].id_auth, a->id_auth, 6);
			memcpy(sids[i].sub_auths, a->sub_auths,
			       sizeof(uint32_t) * a->num_auths);
		}
		st = ntacl_token_domain(mem_ctx, sids, s->nsids, s->uid,
		                        s->gid, s->groups, s->ngroups, out);
		talloc_free(sids);
		return st;
	}
	/* An anonymous session has the guest account's ids, as the pool
	 * jobs run (session setup). */
	return ntacl_token_unix(mem_ctx, s->uid, s->gid, s->groups,
	                        s->ngroups, s->guest || s->anonymous, out);
}

NTSTATUS ntacl_file_set_info(int fd,
                             const struct ntacl_token *tok,
                             const uint8_t *buf,
                             size_t len,
                             uint32_t secinfo)
{
	TALLOC_CTX *tmp = talloc_new(NULL);
	struct sd *old, *new, *merged;
	NTSTATUS status;

	if (tmp == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	/* A malformed descriptor is INVALID_PARAMETER, as SET_INFO has
	 * always answered (secdesc_to_mode). */
	status = sd_parse(tmp, buf, len, &new);
	if (!NT_STATUS_IS_OK(status)) {
		status = NT_STATUS_INVALID_PARAMETER;
		goto out;
	}
	/* A DACL with an NFS ACE is a Mac's chmod (ntacl_nfs.h) that did
	 * not come through fruit:nfs_aces: Samba's acl_xattr then sets
	 * nothing and succeeds, and never stores such an ACE. */
	if ((secinfo & SECINFO_DACL) && ntacl_nfs_acl_has(new->dacl)) {
		status = NT_STATUS_OK;
		goto out;
	}
	status = ntacl_file_get(tmp, fd, &old);
	if (status == NT_STATUS_NOT_FOUND) {
		status = ntacl_file_from_mode(tmp, fd, tok->domain, &old);
	}
	if (!NT_STATUS_IS_OK(status)) {
		goto out;
	}
	status = ntacl_merge(tmp, old, new, secinfo, &merged);
	if (!NT_STATUS_IS_OK(status)) {
		goto out;
	}
	/* MS-FSA 2.1.5.16: without SeRestorePrivilege the owner can only
	 * become a SID of the caller's token. */
	if ((secinfo & SECINFO_OWNER) && !tok->root &&
	    (old->owner == NULL ||
	     !ntacl_sid_equal(merged->owner, old->owner)) &&
	    !ntacl_token_has(tok, merged->owner)) {
		status = NT_STATUS_INVALID_OWNER;
		goto out;
	}
	status = ntacl_file_set(fd, merged);
out:
	talloc_free(tmp);
	return status;
}
