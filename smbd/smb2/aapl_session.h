/*
 * vfs_fruit's per-session behaviours: Samba's fruit gives a session the
 * macOS semantics once its client asked the AAPL server query (every Mac
 * does so on its first CREATE), and leaves other clients Windows's.
 */
#ifndef SMBD_SMB2_AAPL_SESSION_H
#define SMBD_SMB2_AAPL_SESSION_H

#include <stddef.h>

#include "smbd/conn/session.h"
#include "smbd/conn/smb2_server.h"
#include "vfs/fruit.h"

/* The share's fruit configuration when req's session is a Mac's, else
 * NULL (no fruit on the share, or a client that never asked AAPL). */
static inline const struct vfs_fruit_config *
smb2_fruit_mac(const struct smb2_request *req)
{
	if (req->session == NULL || !req->session->aapl ||
	    req->tcon == NULL) {
		return NULL;
	}
	return vfs_fruit_config(req->tcon->vfs);
}

#endif
