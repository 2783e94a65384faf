/*
 * IOCTL handlers and the dispatcher between them (smb2_ioctl.c).
 *
 * A handler reads its input through st->in and appends its output to
 * st->out, a buffer of its own; smb2_ioctl_reply() (smb2_ioctl_reply.c)
 * wraps that in the 2.2.32 IOCTL Response.  A handler that hands work to the pool
 * (server-side copy, hole punching) returns SMBD_STATUS_ASYNC after
 * smb2_job_run(); its done callback builds the output the same way and
 * returns smb2_ioctl_reply() with the saved smb2_ioctl_call.
 */
#ifndef SMBD_SMB2_IOCTL_H
#define SMBD_SMB2_IOCTL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/ntstatus.h"
#include "lib/wire.h"

struct smb2_request;
struct smbd_open;

/* What the response needs from the request, kept across a job. */
struct smb2_ioctl_call {
	uint32_t ctl_code;
	uint8_t file_id[16];
	uint32_t max_out;
	/* An error status that still carries the output (3.3.4.4: copychunk
	 * errors return SRV_COPYCHUNK_RESPONSE). */
	bool error_body;
};

struct smb2_ioctl_state {
	struct smb2_request *req;
	struct smb2_ioctl_call call;
	struct wire_cur in;
	struct wire_buf *out;
	struct smbd_open *op;	/* for FSCTLs on a file */
};

/* The IOCTL response for call with out's bytes as its output buffer
 * (may be NULL when there is none); returns the status to reply with. */
NTSTATUS smb2_ioctl_reply(struct smb2_request *req,
			  const struct smb2_ioctl_call *call, NTSTATUS status,
			  const struct wire_buf *out);

/* smb2_copychunk.c: server-side copy (3.3.5.15.6, 3.3.5.15.3). */
NTSTATUS smb2_fsctl_request_resume_key(struct smb2_ioctl_state *st);
NTSTATUS smb2_fsctl_copychunk(struct smb2_ioctl_state *st);

/* smb2_fsctl_fs.c: sparse files, compression, object ids. */
NTSTATUS smb2_fsctl_set_sparse(struct smb2_ioctl_state *st);
NTSTATUS smb2_fsctl_set_zero_data(struct smb2_ioctl_state *st);
NTSTATUS smb2_fsctl_query_allocated_ranges(struct smb2_ioctl_state *st);
NTSTATUS smb2_fsctl_get_compression(struct smb2_ioctl_state *st);
NTSTATUS smb2_fsctl_set_compression(struct smb2_ioctl_state *st);
NTSTATUS smb2_fsctl_object_id(struct smb2_ioctl_state *st);

/* smb2_fsctl_reparse.c: reparse points (MS-FSA 2.1.5.10.14/.37/.6). */
NTSTATUS smb2_fsctl_get_reparse_point(struct smb2_ioctl_state *st);
NTSTATUS smb2_fsctl_set_reparse_point(struct smb2_ioctl_state *st);
NTSTATUS smb2_fsctl_delete_reparse_point(struct smb2_ioctl_state *st);

/* smb2_fsctl_snap.c: 3.3.5.15.1 previous versions */
NTSTATUS smb2_fsctl_enumerate_snapshots(struct smb2_ioctl_state *st);

/* smb2_fsctl_dfs.c: 3.3.5.15.2 DFS referrals (MS-DFSC) */
NTSTATUS smb2_fsctl_dfs_get_referrals(struct smb2_ioctl_state *st);
NTSTATUS smb2_fsctl_dfs_get_referrals_ex(struct smb2_ioctl_state *st);

/* smb2_fsctl_net.c: 3.3.5.15.11 */
NTSTATUS smb2_fsctl_network_interface_info(struct smb2_ioctl_state *st);

/* smb2_fsctl_lmr.c: 3.3.5.15.9 resilient handles */
NTSTATUS smb2_fsctl_request_resiliency(struct smb2_ioctl_state *st);

#endif
