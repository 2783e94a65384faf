/*
 * The IOCTL response (MS-SMB2 2.2.32) around an FSCTL's output.  Every
 * FSCTL handler ends here, at once or from its pool job's done callback
 * (smb2_copychunk.c, smb2_fsctl_fs.c, smb2_fsctl_snap.c, smb2_ioctl.c),
 * so it has a file of its own below them all: the dispatcher in
 * smb2_ioctl.c calls the handlers, the handlers call this, and nothing
 * calls back up.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_ioctl.h"

NTSTATUS smb2_ioctl_reply(struct smb2_request *req,
			  const struct smb2_ioctl_call *call, NTSTATUS status,
			  const struct wire_buf *out)
{
	size_t body, data, len = out != NULL ? out->len : 0;

	if (out != NULL && out->failed) {
		return NT_STATUS_NO_MEMORY;
	}
	if (NT_STATUS_IS_ERR(status) && !(call->error_body && len > 0)) {
		return status;
	}
	if (len > call->max_out) {
		return NT_STATUS_BUFFER_TOO_SMALL;
	}
	/* 3.3.4.4: this error keeps the IOCTL response as its body. */
	req->keep_body = NT_STATUS_IS_ERR(status);

	/* 2.2.32 IOCTL Response; the output buffer follows the body.
	 * InputOffset/OutputOffset point at it even when it is empty. */
	body = req->out->len;
	wire_push_le16(req->out, 49);
	wire_push_le16(req->out, 0);
	wire_push_le32(req->out, call->ctl_code);
	wire_push_bytes(req->out, call->file_id, 16);
	wire_push_zero(req->out, 24); /* offsets, counts, flags, reserved */
	data = req->out->len;
	if (len > 0) {
		wire_push_bytes(req->out, out->data, len);
	} else {
		wire_push_u8(req->out, 0); /* the byte StructureSize counts */
	}
	if (req->out->failed) {
		return NT_STATUS_NO_MEMORY;
	}
	put_le32(req->out->data + body + 24, (uint32_t)(data - req->out_hdr));
	put_le32(req->out->data + body + 32, (uint32_t)(data - req->out_hdr));
	put_le32(req->out->data + body + 36, (uint32_t)len);
	return status;
}
