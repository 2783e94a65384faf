/*
 * `username map` and `username map script` at logon (issue 15 item 6).
 *
 * As in Samba 4 standalone, the name a client logs on with is mapped
 * before the passdb lookup: the mapped name is the account looked up, so
 * its password is the one checked (the NTLMv2 response still hashes the
 * name the client typed), and the session's account and Unix user are the
 * mapped account (file owners on disk, smbstatus).  With `username map
 * script` set, the script decides and the map file is not read, as in
 * Samba.
 *
 * The map file is parsed by smbd/auth/usermap.c and kept per worker,
 * re-read when the file (its path, inode, size or mtime) changes.  The
 * script runs in the worker's thread pool, never on the event loop: it
 * gets the client's name as its one argument and its first output line
 * is the mapped name; it may run SMBD_USER_MAP_SCRIPT_SECONDS and print
 * SMBD_USER_MAP_SCRIPT_OUTPUT bytes, it is killed past that.  `username
 * map cache time` keeps its answers that many seconds per worker.
 */
#ifndef SMBD_USER_MAP_H
#define SMBD_USER_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include "lib/ntstatus.h"

#define SMBD_USER_MAP_SCRIPT_SECONDS 10
#define SMBD_USER_MAP_SCRIPT_OUTPUT 4096
/* Script answers a worker keeps (`username map cache time`). */
#define SMBD_USER_MAP_CACHE_MAX 1024

struct smb2_request;
struct smbd_session;

/*
 * Before the session's gensec_update(): when `username map script` is
 * set and `in` is the AUTHENTICATE leg, run the script for the client's
 * name in the pool (as root, as Samba runs it) unless its answer is
 * cached; the answer is kept on the session and resume(req) is called on
 * the loop thread.  Returns SMBD_STATUS_ASYNC when the script runs,
 * NT_STATUS_OK when there is nothing to wait for.
 */
NTSTATUS smbd_user_map_prepare(struct smb2_request *req,
			       struct smbd_session *s, const uint8_t *in,
			       size_t in_len,
			       NTSTATUS (*resume)(struct smb2_request *req));

/*
 * The account name to look up in passdb for the client's `name` (the
 * session's own script answer, or the map file's mapping), or name itself
 * when nothing maps it; allocated on mem_ctx.  NULL: out of memory.
 */
char *smbd_user_map_name(struct smbd_session *s, TALLOC_CTX *mem_ctx,
			 const char *name);

#endif
