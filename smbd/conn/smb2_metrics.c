/*
 * The recording side of the live metrics (smb2_metrics.h): SMB2 command
 * names into the table, one worker block per worker, and what each reply
 * adds to it.  A request counts in its command's overall row, in the
 * latency histogram, and, when it ran on a tree, in its share's row; a
 * tree's share slot is looked up once and kept in the tree.
 */
#include "smbd/conn/smb2_metrics.h"
#include "smbd/conn/conn.h"
#include "smbd/conn/session.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2.h"
#include "smbd/smbd.h"
#include "conf/loadparm.h"
#include "lib/ev.h"
#include "lib/log.h"
#include "lib/metrics.h"

#include <unistd.h>

/* The names smbd/smb2/smb2_cmds.c gives the commands (and logs). */
static const char *const smb2_metrics_names[SMB2_OP_MAX] = {
	[SMB2_OP_NEGPROT] = "NEGOTIATE",
	[SMB2_OP_SESSSETUP] = "SESSION_SETUP",
	[SMB2_OP_LOGOFF] = "LOGOFF",
	[SMB2_OP_TCON] = "TREE_CONNECT",
	[SMB2_OP_TDIS] = "TREE_DISCONNECT",
	[SMB2_OP_CREATE] = "CREATE",
	[SMB2_OP_CLOSE] = "CLOSE",
	[SMB2_OP_FLUSH] = "FLUSH",
	[SMB2_OP_READ] = "READ",
	[SMB2_OP_WRITE] = "WRITE",
	[SMB2_OP_LOCK] = "LOCK",
	[SMB2_OP_IOCTL] = "IOCTL",
	[SMB2_OP_CANCEL] = "CANCEL",
	[SMB2_OP_KEEPALIVE] = "ECHO",
	[SMB2_OP_QUERY_DIRECTORY] = "QUERY_DIRECTORY",
	[SMB2_OP_NOTIFY] = "CHANGE_NOTIFY",
	[SMB2_OP_GETINFO] = "QUERY_INFO",
	[SMB2_OP_SETINFO] = "SET_INFO",
	[SMB2_OP_BREAK] = "OPLOCK_BREAK",
};

_Static_assert(SMB2_OP_MAX <= METRICS_MAX_OPS, "metrics table too small");

/* Counted one by one besides their class: what an admin asks about (a
 * logon's round trips, refusals, missing names, conflicts, the end of a
 * directory listing). */
static const NTSTATUS smb2_metrics_named[] = {
	NT_STATUS_MORE_PROCESSING_REQUIRED, NT_STATUS_LOGON_FAILURE,
	NT_STATUS_ACCESS_DENIED,	    NT_STATUS_OBJECT_NAME_NOT_FOUND,
	NT_STATUS_OBJECT_PATH_NOT_FOUND,    NT_STATUS_OBJECT_NAME_COLLISION,
	NT_STATUS_SHARING_VIOLATION,	    NT_STATUS_FILE_LOCK_CONFLICT,
	NT_STATUS_LOCK_NOT_GRANTED,	    STATUS_NO_MORE_FILES,
	NT_STATUS_END_OF_FILE,		    NT_STATUS_CANCELLED,
	NT_STATUS_INVALID_PARAMETER,	    NT_STATUS_NETWORK_SESSION_EXPIRED,
	NT_STATUS_USER_SESSION_DELETED,	    NT_STATUS_DISK_FULL,
};
#define SMB2_METRICS_NNAMED                                                   \
	(sizeof(smb2_metrics_named) / sizeof(smb2_metrics_named[0]))

_Static_assert(SMB2_METRICS_NNAMED <= METRICS_MAX_NAMED,
	       "too many named statuses");

static void smb2_metrics_name_statuses(struct metrics_shm *m)
{
	const char *names[SMB2_METRICS_NNAMED];
	size_t i;

	for (i = 0; i < SMB2_METRICS_NNAMED; i++) {
		names[i] = nt_errstr(smb2_metrics_named[i]);
	}
	metrics_name_statuses(m, smb2_metrics_named, names,
			      SMB2_METRICS_NNAMED);
}

bool smbd_metrics_create(struct smbd_server *srv)
{
	const char *dir = lp_str(srv->lp, LP_GLOBAL, LP_LOCK_DIRECTORY);
	struct metrics_shm *m;

	if (!lp_bool(srv->lp, LP_GLOBAL, LP_SMBD_METRICS)) {
		DBG_NOTICE("smbd metrics = no: no request metrics\n");
		return true;
	}
	m = metrics_create(srv, dir, (unsigned)srv->nworkers,
			   smb2_metrics_names, SMB2_OP_MAX);
	if (m == NULL) {
		/* Not fatal: the server serves without metrics. */
		DBG_ERR("no request metrics: cannot make %s/%s\n", dir,
			METRICS_FILE);
		return true;
	}
	smb2_metrics_name_statuses(m);
	srv->metrics = m;
	return true;
}

struct metrics_shm *smbd_metrics_table(const struct smbd_server *srv)
{
	return srv->metrics;
}

#define SMBD_METRICS_TICK_MS 1000

static void smbd_metrics_tick(void *priv)
{
	struct smbd_worker *w = priv;
	struct metrics_worker *b = w->metrics;
	const struct smbd_conn *c;
	uint64_t sessions = 0, opens = 0;

	for (c = w->conns; c != NULL; c = c->wnext) {
		sessions += c->nsessions;
		opens += c->nopens;
	}
	METRIC_SET(&b->info.connections, w->nconns);
	METRIC_SET(&b->info.sessions, sessions);
	METRIC_SET(&b->info.opens, opens);
	if (ev_timer_add(w, w->loop, SMBD_METRICS_TICK_MS, smbd_metrics_tick,
			 w) == NULL) {
		DBG_WARNING("worker %d: metrics gauges stop\n", w->index);
	}
}

void smbd_metrics_worker_init(struct smbd_worker *w)
{
	struct metrics_shm *m = w->srv->metrics;
	struct metrics_worker *b;

	if (m == NULL || w->index < 0 ||
	    (unsigned)w->index >= m->hdr->nworkers) {
		return;
	}
	b = metrics_worker(m, (unsigned)w->index);
	METRIC_SET(&b->info.pid, (uint64_t)getpid());
	METRIC_SET(&b->info.cpu, (uint64_t)w->cpu);
	METRIC_ADD(&b->info.starts, 1);
	METRIC_SET(&b->info.connections, 0);
	w->metrics = b;
	if (w->loop != NULL) {
		smbd_metrics_tick(w);
	}
}

static unsigned tcon_slot(struct smbd_worker *w, struct smbd_tcon *t)
{
	if (t->metrics_slot == 0) {
		t->metrics_slot = 1 + metrics_share_slot(
					      w->srv->metrics,
					      t->share_name ? t->share_name
							    : "");
	}
	return t->metrics_slot - 1;
}

void smbd_metrics_reply(const struct smb2_request *req, NTSTATUS status,
			size_t out_bytes, uint64_t t0)
{
	struct smbd_worker *w = req->conn->worker;
	struct metrics_worker *b = w->metrics;
	enum metrics_class cls = metrics_class_of(status);
	uint64_t t1, us;
	struct metrics_op *op;

	if (b == NULL || req->opcode >= SMB2_OP_MAX) {
		return;
	}
	t1 = smbd_metrics_clock(b);
	us = t1 > t0 ? (t1 - t0) / 1000 : 0;
	op = &b->op[req->opcode];
	METRIC_ADD(&op->count, 1);
	METRIC_ADD(&op->bytes_in, req->in_len);
	METRIC_ADD(&op->bytes_out, out_bytes);
	METRIC_ADD(&op->status[cls], 1);
	histo_record(&b->latency[req->opcode], us);
	if (status != NT_STATUS_OK) {
		size_t i;

		for (i = 0; i < SMB2_METRICS_NNAMED; i++) {
			if (smb2_metrics_named[i] == status) {
				METRIC_ADD(&b->named[req->opcode][i], 1);
				break;
			}
		}
	}
	if (req->tcon != NULL) {
		op = &b->share[tcon_slot(w, req->tcon)][req->opcode];
		METRIC_ADD(&op->count, 1);
		METRIC_ADD(&op->bytes_in, req->in_len);
		METRIC_ADD(&op->bytes_out, out_bytes);
		METRIC_ADD(&op->status[cls], 1);
	}
}

/* Added to, not copied from w->accepted: a restarted worker's counts
 * go on from its predecessor's. */
void smbd_metrics_accepted(struct smbd_worker *w, bool local)
{
	struct metrics_worker *b = w->metrics;

	if (b != NULL) {
		METRIC_ADD(&b->info.accepted, 1);
		METRIC_ADD(&b->info.accepted_local, local ? 1 : 0);
		METRIC_SET(&b->info.connections, w->nconns);
	}
}

void smbd_metrics_handed_over(struct smbd_worker *w)
{
	struct metrics_worker *b = w->metrics;

	if (b != NULL) {
		METRIC_ADD(&b->info.handed_over, 1);
	}
}
