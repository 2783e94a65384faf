/*
 * FSCTL_SRV_ENUMERATE_SNAPSHOTS (MS-SMB2 3.3.5.15.1): the share's
 * previous versions as @GMT tokens in an SRV_SNAPSHOT_ARRAY (2.2.32.2,
 * encoded by fsctl_wire.c).  The list comes from the share's vfs module
 * stack (its snapshot modules' snap_list hook, vfs/module.h), read in
 * the pool as the user, since the snapshot directory is read with the
 * user's rights like any other.
 */
#include "smbd/smb2/smb2_ioctl.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/wire/fsctl_wire.h"
#include "smbd/objects/open.h"
#include "smbd/conn/session.h"
#include "vfs/fsctl_io.h"
#include "vfs/module.h"
#include "vfs/snapshot.h"
#include "lib/log.h"


struct snap_job {
	struct smb2_ioctl_call call;
	struct vfs_share share;		/* root_fd is our own dup */
	struct vfs_stack *vfs;		/* our reference */
	int64_t *times;
	size_t n;
	NTSTATUS status;
};

static int snap_job_destructor(struct snap_job *j)
{
	vfs_fd_close(j->share.root_fd);
	vfs_stack_unref(j->vfs);
	return 0;
}

static void snap_job_run(void *p)
{
	struct snap_job *j = p;

	j->status = vfs_stack_snap_list(j->vfs, j, &j->share, &j->times,
					&j->n);
}

static void snap_job_orphan(void *p)
{
}

static NTSTATUS snap_job_done(struct smb2_request *req, void *p)
{
	struct snap_job *j = p;
	const char **tokens;
	struct wire_buf out;
	NTSTATUS status = j->status;
	size_t i, n = 0;

	if (!NT_STATUS_IS_OK(status)) {
		return smb2_ioctl_reply(req, &j->call, status, NULL);
	}
	tokens = talloc_array(req->mem_ctx, const char *, j->n + 1);
	if (tokens == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	for (i = 0; i < j->n; i++) {
		char *tok = talloc_size(tokens, VFS_GMT_TOKEN_LEN + 1);

		if (tok == NULL) {
			return NT_STATUS_NO_MEMORY;
		}
		if (vfs_gmt_token_format(j->times[i], tok)) {
			tokens[n++] = tok;
		}
	}
	wire_buf_init(&out, req->mem_ctx, 16 + n * 50);
	status = fsctl_snapshot_array_push(&out, tokens, (uint32_t)n,
					   j->call.max_out);
	return smb2_ioctl_reply(req, &j->call, status, &out);
}

NTSTATUS smb2_fsctl_enumerate_snapshots(struct smb2_ioctl_state *st)
{
	struct smbd_tcon *t = st->req->tcon;
	struct snap_job *j;

	if (st->op->pipe != NULL) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	if (!vfs_stack_has_snapshots(t->vfs)) {
		/* No previous versions on this share (no snapshot module
		 * in its `vfs objects`). */
		return NT_STATUS_NOT_SUPPORTED;
	}
	if (st->call.max_out < FSCTL_SNAPSHOT_MIN_OUT) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	j = talloc_zero(NULL, struct snap_job);
	if (j == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	j->call = st->call;
	if (!vfs_share_copy(j, &j->share, &t->share)) {
		talloc_free(j);
		return NT_STATUS_NO_MEMORY;
	}
	(void)vfs_fd_dup(t->share.root_fd, &j->share.root_fd);
	j->vfs = vfs_stack_ref(t->vfs);
	talloc_set_destructor(j, snap_job_destructor);
	if (j->share.root_fd == -1) {
		talloc_free(j);
		return NT_STATUS_TOO_MANY_OPENED_FILES;
	}
	return smb2_job_run(st->req, j, snap_job_run, snap_job_done,
			    snap_job_orphan);
}
