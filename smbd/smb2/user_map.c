/*
 * `username map` / `username map script` at logon (design in
 * user_map.h).
 */
#include "smbd/smb2/user_map.h"
#include "smbd/auth/gensec.h"
#include "smbd/auth/usermap.h"
#include "smbd/conn/conn.h"
#include "smbd/smb2/smb2_worker.h"
#include "smbd/conn/session.h"
#include "smbd/conn/smb2_server.h"
#include "smbd/smbd.h"
#include "conf/loadparm.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/spawn.h"
#include "vfs/textfile.h"

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_AUTH

struct script_answer {
	char *client;
	char *mapped;		/* NULL: the script did not map it */
	uint64_t when_ms;
};

/* Per worker: the parsed map file and the script's recent answers. */
struct smbd_user_map_cache {
	char *path;
	struct vfs_text_stamp stamp;
	struct usermap *map;
	struct script_answer *answers;
	size_t nanswers;
};

static struct smbd_user_map_cache *cache_of(struct smbd_worker *w)
{
	struct smb2_worker *sw = smb2_worker_of(w);

	if (sw->user_map == NULL) {
		sw->user_map = talloc_zero(w, struct smbd_user_map_cache);
	}
	return sw->user_map;
}

/* ---- the map file ---------------------------------------------------- */

/* The map file, read again when it changed (an admin edits it without a
 * reload, as with Samba, which reads it at every logon). */
static const struct usermap *map_file(struct smbd_user_map_cache *c,
				      const char *path)
{
	struct vfs_text_stamp stamp;
	NTSTATUS status;
	char *text;
	size_t n;

	if (c->path != NULL && strcmp(c->path, path) == 0 &&
	    vfs_text_unchanged(path, &c->stamp)) {
		return c->map;
	}
	TALLOC_FREE(c->map);
	TALLOC_FREE(c->path);
	switch (vfs_text_read(c, path, USERMAP_MAX_FILE, &text, &n, &stamp,
			      &status)) {
	case VFS_TEXT_OK:
		break;
	case VFS_TEXT_NO_OPEN:
		DBG_WARNING("username map %s: %s: no mapping\n", path,
			    nt_errstr(status));
		return NULL;
	case VFS_TEXT_NOT_SMALL:
		DBG_WARNING("username map %s: not a regular file of at most "
			    "%d bytes: no mapping\n", path, USERMAP_MAX_FILE);
		return NULL;
	case VFS_TEXT_NO_READ:
	default:
		return NULL;
	}
	c->map = usermap_parse(c, text, n, path);
	talloc_free(text);
	c->path = talloc_strdup(c, path);
	if (c->map == NULL || c->path == NULL) {
		TALLOC_FREE(c->map);
		TALLOC_FREE(c->path);
		return NULL;
	}
	c->stamp = stamp;
	return c->map;
}

/* "@group" in the map: the client's name is a Unix user in the group
 * (its primary group or a member). */
static bool unix_user_in_group(void *priv, const char *user,
			       const char *group)
{
	struct passwd pwbuf, *pw = NULL;
	struct group grbuf, *gr = NULL;
	char buf[16384];
	char pbuf[4096];
	size_t i;

	(void)priv;
	if (getgrnam_r(group, &grbuf, buf, sizeof(buf), &gr) != 0 ||
	    gr == NULL) {
		return false;
	}
	for (i = 0; gr->gr_mem != NULL && gr->gr_mem[i] != NULL; i++) {
		if (strcmp(gr->gr_mem[i], user) == 0) {
			return true;
		}
	}
	return getpwnam_r(user, &pwbuf, pbuf, sizeof(pbuf), &pw) == 0 &&
	       pw != NULL && pw->pw_gid == gr->gr_gid;
}

/* ---- the script -------------------------------------------------------- */

static const char *script_of(const struct smbd_worker *w)
{
	const char *s = lp_str(w->srv->lp, LP_GLOBAL, LP_USERNAME_MAP_SCRIPT);

	return s != NULL && s[0] != '\0' ? s : NULL;
}

static struct script_answer *answer_find(struct smbd_user_map_cache *c,
					 const struct smbd_worker *w,
					 const char *client)
{
	int secs = lp_int(w->srv->lp, LP_GLOBAL, LP_USERNAME_MAP_CACHE_TIME);
	uint64_t now = clock_mono_ms();
	size_t i;

	if (secs <= 0) {
		return NULL;
	}
	for (i = 0; i < c->nanswers; i++) {
		struct script_answer *a = &c->answers[i];

		if (strcasecmp(a->client, client) == 0 &&
		    now - a->when_ms < (uint64_t)secs * 1000) {
			return a;
		}
	}
	return NULL;
}

static void answer_keep(struct smbd_user_map_cache *c,
			const struct smbd_worker *w, const char *client,
			const char *mapped)
{
	int secs = lp_int(w->srv->lp, LP_GLOBAL, LP_USERNAME_MAP_CACHE_TIME);
	uint64_t now = clock_mono_ms();
	struct script_answer *a;
	size_t i, kept = 0;

	if (secs <= 0) {
		return;
	}
	/* drop what expired (and everything when full: a client cannot
	 * make the cache grow past the bound) */
	for (i = 0; i < c->nanswers; i++) {
		if (c->nanswers < SMBD_USER_MAP_CACHE_MAX &&
		    now - c->answers[i].when_ms < (uint64_t)secs * 1000 &&
		    strcasecmp(c->answers[i].client, client) != 0) {
			c->answers[kept++] = c->answers[i];
		} else {
			talloc_free(c->answers[i].client);
			talloc_free(c->answers[i].mapped);
		}
	}
	c->nanswers = kept;
	a = talloc_realloc(c, c->answers, struct script_answer, kept + 1);
	if (a == NULL) {
		return;
	}
	c->answers = a;
	a[kept].client = talloc_strdup(a, client);
	a[kept].mapped = mapped != NULL ? talloc_strdup(a, mapped) : NULL;
	a[kept].when_ms = now;
	if (a[kept].client == NULL || (mapped != NULL && a[kept].mapped == NULL)) {
		talloc_free(a[kept].client);
		talloc_free(a[kept].mapped);
		return;
	}
	c->nanswers++;
}

struct script_job {
	/* in */
	char *script;
	char *client;
	uint64_t session_id;
	NTSTATUS (*resume)(struct smb2_request *req);
	/* out */
	char *mapped;		/* NULL: not mapped */
	char err[128];
};

/*
 * Pool thread: `sh -c 'SCRIPT "$1"' sh NAME` (lib/spawn.h).  The
 * client's name is the shell's $1, never part of the command text, so no
 * name a client sends is parsed by the shell; the command itself may
 * hold arguments, as in Samba.  Descriptors of the daemon are not
 * inherited.
 */
static void script_run(void *priv)
{
	struct script_job *j = priv;
	char *cmd = talloc_asprintf(j, "%s \"$1\"", j->script);
	char *argv[] = {"/bin/sh", "-c", cmd, "sh", j->client, NULL};
	char out[SMBD_USER_MAP_SCRIPT_OUTPUT + 1];
	size_t n;
	char *nl;

	if (cmd == NULL) {
		snprintf(j->err, sizeof(j->err), "cannot start: %s",
			 "out of memory");
		return;
	}
	if (!spawn_capture(argv, out, SMBD_USER_MAP_SCRIPT_OUTPUT,
			   SMBD_USER_MAP_SCRIPT_SECONDS, &n, j->err,
			   sizeof(j->err))) {
		return;
	}
	out[n] = '\0';
	nl = strpbrk(out, "\r\n");
	if (nl != NULL) {
		*nl = '\0';
	}
	if (out[0] != '\0') {
		j->mapped = talloc_strdup(j, out);
	}
}

static NTSTATUS script_done(struct smb2_request *req, void *priv)
{
	struct script_job *j = priv;
	struct smbd_worker *w = req->conn->worker;
	struct smbd_session *s = smbd_session_find(req->conn, j->session_id);

	if (s == NULL) {
		return NT_STATUS_USER_SESSION_DELETED;
	}
	if (j->err[0] != '\0') {
		DBG_WARNING("username map script %s for [%s]: %s: not "
			    "mapped\n", j->script, j->client, j->err);
	} else {
		answer_keep(cache_of(w), w, j->client, j->mapped);
	}
	TALLOC_FREE(s->map_client);
	TALLOC_FREE(s->map_result);
	s->map_client = talloc_steal(s, j->client);
	s->map_result = talloc_steal(s, j->mapped);
	return j->resume(req);
}

NTSTATUS smbd_user_map_prepare(struct smb2_request *req,
			       struct smbd_session *s, const uint8_t *in,
			       size_t in_len,
			       NTSTATUS (*resume)(struct smb2_request *req))
{
	struct smbd_worker *w = req->conn->worker;
	const char *script = script_of(w);
	struct smbd_user_map_cache *c;
	struct script_answer *a;
	struct script_job *j;
	char *client;

	TALLOC_FREE(s->map_client);
	TALLOC_FREE(s->map_result);
	if (script == NULL) {
		return NT_STATUS_OK;
	}
	client = gensec_peek_user(s->gensec, s, in, in_len);
	if (client == NULL) {
		return NT_STATUS_OK;	/* not the leg with a name */
	}
	c = cache_of(w);
	a = c != NULL ? answer_find(c, w, client) : NULL;
	if (a != NULL) {
		s->map_client = client;
		s->map_result = a->mapped != NULL ? talloc_strdup(s, a->mapped)
						  : NULL;
		return NT_STATUS_OK;
	}
	j = talloc_zero(NULL, struct script_job);
	if (j == NULL) {
		talloc_free(client);
		return NT_STATUS_NO_MEMORY;
	}
	j->script = talloc_strdup(j, script);
	j->client = talloc_steal(j, client);
	j->session_id = s->id;
	j->resume = resume;
	if (j->script == NULL) {
		talloc_free(j);
		return NT_STATUS_NO_MEMORY;
	}
	return smb2_job_run_daemon(req, j, script_run, script_done, NULL);
}

/* ---- the lookup ------------------------------------------------------- */

char *smbd_user_map_name(struct smbd_session *s, TALLOC_CTX *mem_ctx,
			 const char *name)
{
	struct smbd_worker *w = s->conn->worker;
	const char *path, *mapped = NULL;
	struct smbd_user_map_cache *c;

	if (script_of(w) != NULL) {
		/* The script decides (the file is not read, as in Samba);
		 * its answer is for the name prepare() saw. */
		if (s->map_client != NULL && s->map_result != NULL &&
		    strcmp(s->map_client, name) == 0) {
			mapped = s->map_result;
		}
	} else {
		path = lp_str(w->srv->lp, LP_GLOBAL, LP_USERNAME_MAP);
		c = path != NULL && path[0] != '\0' ? cache_of(w) : NULL;
		if (c != NULL) {
			mapped = usermap_map(map_file(c, path), name,
					     unix_user_in_group, NULL);
		}
	}
	if (mapped != NULL && strcmp(mapped, name) != 0) {
		DBG_INFO("username map: [%s] logs on as [%s]\n", name, mapped);
		return talloc_strdup(mem_ctx, mapped);
	}
	return talloc_strdup(mem_ctx, name);
}
