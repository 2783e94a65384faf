/*
 * A session that asked Apple's AAPL create context (every Mac does so on
 * its first CREATE) gets macOS semantics on a share whose stack speaks
 * AAPL (vfs/stack_props.h), as with Samba's fruit; other clients keep
 * Windows's.
 */
#ifndef SMBD_SMB2_AAPL_SESSION_H
#define SMBD_SMB2_AAPL_SESSION_H

#include <stddef.h>

#include "smbd/conn/session.h"
#include "smbd/conn/smb2_server.h"
#include "vfs/stack_props.h"

/* The share's AAPL properties when req's session negotiated AAPL, else
 * NULL (no module speaks AAPL there, or a client that never asked). */
static inline const struct vfs_aapl *
smb2_aapl_session(const struct smb2_request *req)
{
	if (req->session == NULL || !req->session->aapl ||
	    req->tcon == NULL) {
		return NULL;
	}
	return vfs_stack_aapl(req->tcon->vfs);
}

#endif
