/*
 * What the SMB2 handlers keep per worker (issue 37 item 2): the inotify
 * state of CHANGE_NOTIFY (smb2_notify.c), the `username map` cache
 * (user_map.c) and the passdb handle opened on the first logon
 * (smb2_sesssetup_auth.c).  Registered in the worker's SMBD_WCTX_SMB2
 * slot by smb2_server_install and reached with smb2_worker_of(): one
 * pointer load.  smbd/conn/ sees none of it.
 */
#ifndef SMBD_SMB2_SMB2_WORKER_H
#define SMBD_SMB2_SMB2_WORKER_H

#include "smbd/conn/worker.h"

struct notify_ctx;
struct smbd_user_map_cache;
struct passdb;

struct smb2_worker {
	struct notify_ctx *notify;	/* inotify state (smb2_notify.c) */
	struct smbd_user_map_cache *user_map;	/* user_map.c */
	struct passdb *passdb;		/* opened on first logon */
	/* SessionIds (smb2_sesssetup.c): a random epoch, a sequence. */
	uint16_t session_epoch;
	uint64_t session_seq;
};

/* w's handler state; set from the worker's start on. */
static inline struct smb2_worker *smb2_worker_of(const struct smbd_worker *w)
{
	return (struct smb2_worker *)w->ctx[SMBD_WCTX_SMB2];
}

#endif
