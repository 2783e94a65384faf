/*
 * Named pipes on IPC$ seen from the SMB2 commands (MS-SMB2 3.3.5.9,
 * 3.3.5.12, 3.3.5.13, 3.3.5.15.1, 3.3.5.15.10, 3.3.5.20.1): the command
 * handlers branch here when the open is a pipe (op->pipe) or the tree is
 * IPC$.  All of it is synchronous (the RPC work is CPU only) but for a
 * member's lsarpc lookups of domain accounts, which wait for winbindd in
 * the pool (smb2_pipe.c).
 */
#ifndef SMBD_SMB2_PIPE_H
#define SMBD_SMB2_PIPE_H

#include <stddef.h>
#include <stdint.h>
#include "lib/ntstatus.h"
#include "lib/wire.h"

struct smb2_request;
struct smbd_open;

#define FSCTL_PIPE_WAIT 0x00110018
#define FSCTL_PIPE_TRANSCEIVE 0x0011C017

/* CREATE on IPC$: name is the UTF-16LE name buffer (name_len bytes). */
NTSTATUS smb2_pipe_create(struct smb2_request *req, const uint8_t *name,
			  size_t name_len, uint32_t access);
/* READ of up to length bytes; STATUS_BUFFER_OVERFLOW with data when the
 * message has more. */
NTSTATUS smb2_pipe_read(struct smb2_request *req, struct smbd_open *op,
			uint32_t length);
NTSTATUS smb2_pipe_write(struct smb2_request *req, struct smbd_open *op,
			 const uint8_t *data, uint32_t length);
/* FSCTL_PIPE_TRANSCEIVE: write in, read up to call->max_out into out;
 * SMBD_STATUS_ASYNC when the call waits for winbindd (the reply then
 * comes from smb2_ioctl_reply with call). */
struct smb2_ioctl_call;
NTSTATUS smb2_pipe_transceive(struct smb2_request *req, struct smbd_open *op,
			      const struct smb2_ioctl_call *call,
			      const uint8_t *in, size_t in_len,
			      struct wire_buf *out);
/* FSCTL_PIPE_WAIT (MS-FSCC 2.3.49): is the named pipe served? */
NTSTATUS smb2_pipe_wait(struct smb2_request *req, const uint8_t *in,
			size_t in_len);
/* QUERY_INFO on a pipe. */
NTSTATUS smb2_pipe_getinfo(struct smb2_request *req, struct smbd_open *op,
			   uint8_t type, uint8_t cls, uint32_t max_out);
/* CLOSE of a pipe (no file system work). */
NTSTATUS smb2_pipe_close(struct smb2_request *req, struct smbd_open *op);

#endif
