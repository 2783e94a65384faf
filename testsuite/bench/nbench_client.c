/*
 * One nbench client: replays the NBENCH load through libsmbclient.
 *
 * Each client is its own process with its own SMBCCTX (libsmbclient keeps
 * per-process global state, so fork-per-client is the simple safe model),
 * hence its own TCP connection, SMB2/SMB3 session and tree connect.  Like
 * dbench, client N rewrites every "client1" in the load's paths to
 * "clientN", so each works in its own directory \clients\clientN.  At the
 * end of the load it closes what is still open and starts over.
 *
 * How NBENCH (SMB1-era) operations map to what libsmbclient sends over
 * SMB2 (MS-SMB2 section 2.2 request names).  libsmbclient has no call for
 * FLUSH or LOCK, so those are counted as "not sent", never faked:
 *
 *   NTCreateX file       smbc_open          CREATE (disposition from the
 *                                           load: FILE_OPEN, FILE_CREATE,
 *                                           FILE_OPEN_IF, FILE_OVERWRITE(_IF),
 *                                           FILE_SUPERSEDE as O_CREAT|O_TRUNC)
 *   NTCreateX directory  smbc_mkdir         CREATE(dir) + CLOSE, or for
 *                        or smbc_stat       FILE_OPEN: CREATE+QUERY_INFO+CLOSE
 *   Close                smbc_close         CLOSE (nothing for a directory
 *                                           "handle": mkdir closed it)
 *   ReadX                smbc_lseek+read    READ at the load's offset
 *   WriteX               smbc_lseek+write   WRITE at the load's offset
 *   QUERY_PATH_INFO      smbc_stat          CREATE + QUERY_INFO + CLOSE
 *   QUERY_FILE_INFO      smbc_fstat         QUERY_INFO on the handle
 *   QUERY_FS_INFO        smbc_fstatvfs      QUERY_INFO(FS) on the newest
 *                                           open file; none open:
 *                                           smbc_statvfs of the share root
 *   FIND_FIRST           smbc_opendir+      CREATE(dir) + QUERY_DIRECTORY
 *                        readdir            ("*") + CLOSE; the pattern is
 *                                           matched here (libsmbclient has
 *                                           no pattern argument)
 *   SET_FILE_INFO        smbc_utimes        CREATE + SET_INFO(basic) + CLOSE
 *                                           on the handle's path
 *   Unlink               smbc_unlink        CREATE(delete-on-close)+CLOSE
 *   Rename               smbc_rename        CREATE + SET_INFO(rename)+CLOSE
 *   Mkdir / Rmdir        smbc_mkdir/rmdir   CREATE + CLOSE
 *   Deltree              opendir/readdir/   recursive delete done by the
 *                        unlink/rmdir       client, as dbench does
 *   Flush                (none)             not sent: counted as skipped
 *   LockX / UnlockX      (none)             not sent: counted as skipped
 *
 * A result is compared with the status the load file recorded, folded to
 * what errno can tell (see enum nb_expect); mismatches are counted per
 * operation, never fatal, as in dbench.  Every call is bounded by the
 * context timeout (--op-timeout); 50 transport errors in a row (server
 * gone) end the client with a message.
 */
#include "testsuite/bench/nbench.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define NB_URL_MAX 4096
#define NB_DELTREE_DEPTH 32

enum nb_result {
	NB_RES_OK = 0,
	NB_RES_NOENT,
	NB_RES_EXISTS,
	NB_RES_ERROR,
	NB_RES_SKIPPED
};

enum nb_handle_kind { NB_H_NONE = 0, NB_H_FILE, NB_H_DIR };

struct nb_handle {
	SMBCFILE *f;
	uint8_t kind;     /* enum nb_handle_kind */
	const char *path; /* load path it was opened with */
};

struct nb_client {
	SMBCCTX *ctx;
	const struct nb_options *opts;
	struct nb_client_rec *rec;
	int id;
	char prefix[NB_URL_MAX]; /* smb://server:port/share */
	size_t prefix_len;
	struct nb_handle *h; /* NB_MAX_FNUM + 1 slots */
	char *buf;           /* NB_MAX_IO bytes */
	uint64_t xfer;       /* bytes moved by the current operation */
	uint32_t last_file;  /* fnum of the newest file handle opened */
	int transport_errors;
};

static const struct nb_options *nb_auth_opts;

static void nb_auth(SMBCCTX *c,
                    const char *srv,
                    const char *shr,
                    char *wg,
                    int wglen,
                    char *un,
                    int unlen,
                    char *pw,
                    int pwlen)
{
	const struct nb_options *o = nb_auth_opts;

	snprintf(wg, (size_t)wglen, "%s", o->domain ? o->domain : "");
	snprintf(un, (size_t)unlen, "%s", o->user ? o->user : "");
	snprintf(pw, (size_t)pwlen, "%s", o->password ? o->password : "");
}

/* Percent-encode a '/'-separated path for a libsmbclient URL. */
static int
nb_url_append(char *url, size_t cap, size_t *len, const char *s, size_t slen)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, n = *len;

	for (i = 0; i < slen; i++) {
		unsigned char ch = (unsigned char)s[i];
		bool plain = (ch >= 'a' && ch <= 'z') ||
		             (ch >= 'A' && ch <= 'Z') ||
		             (ch >= '0' && ch <= '9') || ch == '/' ||
		             ch == '.' || ch == '_' || ch == '-' || ch == '~';
		if (n + 4 >= cap) {
			return -1;
		}
		if (plain) {
			url[n++] = (char)ch;
		} else {
			url[n++] = '%';
			url[n++] = hex[ch >> 4];
			url[n++] = hex[ch & 15];
		}
	}
	url[n] = '\0';
	*len = n;
	return 0;
}

/* URL of load PATH for this client: "client1" becomes "client<id>". */
static int nb_url(struct nb_client *c, const char *path, char *url)
{
	static const char pat[] = "client1";
	char name[32];
	size_t len = c->prefix_len, nlen;
	const char *p = path;

	memcpy(url, c->prefix, len + 1);
	nlen = (size_t)snprintf(name, sizeof(name), "client%d", c->id);
	while (*p != '\0') {
		const char *hit = strstr(p, pat);
		size_t chunk = hit ? (size_t)(hit - p) : strlen(p);

		if (nb_url_append(url, NB_URL_MAX, &len, p, chunk) != 0) {
			return -1;
		}
		if (hit == NULL) {
			break;
		}
		if (nb_url_append(url, NB_URL_MAX, &len, name, nlen) != 0) {
			return -1;
		}
		p = hit + sizeof(pat) - 1;
	}
	return 0;
}

static enum nb_result nb_errno_result(struct nb_client *c, int err)
{
	switch (err) {
	case 0:
		c->transport_errors = 0;
		return NB_RES_OK;
	case ENOENT:
	case ENOTDIR:
		c->transport_errors = 0;
		return NB_RES_NOENT;
	case EEXIST:
		c->transport_errors = 0;
		return NB_RES_EXISTS;
	case ETIMEDOUT:
	case ECONNRESET:
	case ECONNREFUSED:
	case ECONNABORTED:
	case ENOTCONN:
	case EPIPE:
		c->transport_errors++;
		return NB_RES_ERROR;
	default:
		c->transport_errors = 0;
		return NB_RES_ERROR;
	}
}

static struct nb_handle *nb_handle(struct nb_client *c, uint32_t fnum)
{
	return &c->h[fnum & NB_MAX_FNUM];
}

static void nb_handle_close(struct nb_client *c, struct nb_handle *h)
{
	if (h->kind == NB_H_FILE && h->f != NULL) {
		smbc_getFunctionClose(c->ctx)(c->ctx, h->f);
	}
	h->f = NULL;
	h->kind = NB_H_NONE;
	h->path = NULL;
}

static int nb_open_flags(uint32_t disposition)
{
	switch (disposition) {
	case NB_FILE_SUPERSEDE:
	case NB_FILE_OVERWRITE_IF:
		return O_RDWR | O_CREAT | O_TRUNC;
	case NB_FILE_CREATE:
		return O_RDWR | O_CREAT | O_EXCL;
	case NB_FILE_OPEN_IF:
		return O_RDWR | O_CREAT;
	case NB_FILE_OVERWRITE:
		return O_RDWR | O_TRUNC;
	case NB_FILE_OPEN:
	default:
		return O_RDWR;
	}
}

/*
 * A failed NTCreateX in the capture still names a FID, often one that is
 * open and used afterwards: only a successful open replaces the handle in
 * its slot.
 */
static void nb_set_handle(struct nb_client *c,
                          const struct nb_op *op,
                          uint8_t kind,
                          SMBCFILE *f)
{
	struct nb_handle *h = nb_handle(c, op->fnum);

	if (h->kind != NB_H_NONE) {
		nb_handle_close(c, h); /* the capture reused a live FID */
	}
	h->kind = kind;
	h->f = f;
	h->path = op->path;
	if (kind == NB_H_FILE) {
		c->last_file = op->fnum;
	}
}

static enum nb_result
nb_do_create(struct nb_client *c, const struct nb_op *op, const char *url)
{
	enum nb_result r;
	SMBCFILE *f;

	if (op->a & NB_FILE_DIRECTORY_FILE) {
		if (op->b == NB_FILE_OPEN) {
			struct stat st;
			smbc_stat_fn stat_fn = smbc_getFunctionStat(c->ctx);
			if (stat_fn(c->ctx, url, &st) != 0) {
				return nb_errno_result(c, errno);
			}
			r = S_ISDIR(st.st_mode) ? NB_RES_OK : NB_RES_ERROR;
		} else if (smbc_getFunctionMkdir(c->ctx)(c->ctx, url, 0755) !=
		           0) {
			r = nb_errno_result(c, errno);
			if (r == NB_RES_EXISTS && op->b != NB_FILE_CREATE) {
				r = NB_RES_OK;
			}
		} else {
			r = nb_errno_result(c, 0);
		}
		if (r == NB_RES_OK) {
			nb_set_handle(c, op, NB_H_DIR, NULL);
		}
		return r;
	}
	f = smbc_getFunctionOpen(c->ctx)(
	        c->ctx, url, nb_open_flags(op->b), 0644);
	if (f == NULL) {
		return nb_errno_result(c, errno);
	}
	nb_set_handle(c, op, NB_H_FILE, f);
	return nb_errno_result(c, 0);
}

static enum nb_result nb_do_io(struct nb_client *c, const struct nb_op *op)
{
	struct nb_handle *h = nb_handle(c, op->fnum);
	size_t done = 0;

	if (h->kind != NB_H_FILE) {
		return NB_RES_ERROR; /* its NTCreateX failed */
	}
	if (smbc_getFunctionLseek(c->ctx)(
	            c->ctx, h->f, (off_t)op->offset, SEEK_SET) < 0) {
		return nb_errno_result(c, errno);
	}
	while (done < op->size) {
		ssize_t n;
		if (op->type == NB_READX) {
			n = smbc_getFunctionRead(c->ctx)(
			        c->ctx, h->f, c->buf + done, op->size - done);
		} else {
			n = smbc_getFunctionWrite(c->ctx)(
			        c->ctx, h->f, c->buf + done, op->size - done);
		}
		if (n < 0) {
			c->xfer += done;
			return nb_errno_result(c, errno);
		}
		if (n == 0) {
			break; /* end of file */
		}
		done += (size_t)n;
	}
	c->xfer += done;
	return nb_errno_result(c, 0);
}

static enum nb_result nb_do_find(struct nb_client *c, const char *url)
{
	char dir[NB_URL_MAX];
	char pattern[NB_MAX_PATH + 1];
	const char *slash = strrchr(url, '/');
	SMBCFILE *d;
	struct smbc_dirent *de;
	uint64_t matches = 0;
	size_t dlen;

	if (slash == NULL) {
		return NB_RES_ERROR;
	}
	dlen = (size_t)(slash - url);
	memcpy(dir, url, dlen);
	dir[dlen] = '\0';
	/* The pattern was percent-encoded with the rest of the URL. */
	snprintf(pattern, sizeof(pattern), "%s", slash + 1);
	{
		char *in = pattern, *out = pattern;
		while (*in != '\0') {
			unsigned v;
			if (in[0] == '%' && sscanf(in + 1, "%2x", &v) == 1) {
				*out++ = (char)v;
				in += 3;
			} else {
				*out++ = *in++;
			}
		}
		*out = '\0';
	}
	d = smbc_getFunctionOpendir(c->ctx)(c->ctx, dir);
	if (d == NULL) {
		return nb_errno_result(c, errno);
	}
	while ((de = smbc_getFunctionReaddir(c->ctx)(c->ctx, d)) != NULL) {
		if (strcmp(de->name, ".") == 0 || strcmp(de->name, "..") == 0) {
			continue;
		}
		if (nb_dos_match(pattern, de->name)) {
			matches++;
		}
	}
	smbc_getFunctionClosedir(c->ctx)(c->ctx, d);
	(void)nb_errno_result(c, 0);
	return matches > 0 ? NB_RES_OK : NB_RES_NOENT;
}

static int nb_deltree_url(struct nb_client *c, char *url, size_t len, int depth)
{
	SMBCFILE *d;
	struct smbc_dirent *de;
	int ret = 0;

	if (depth > NB_DELTREE_DEPTH) {
		errno = ELOOP;
		return -1;
	}
	d = smbc_getFunctionOpendir(c->ctx)(c->ctx, url);
	if (d == NULL) {
		return -1;
	}
	while ((de = smbc_getFunctionReaddir(c->ctx)(c->ctx, d)) != NULL) {
		size_t n = len;

		if (strcmp(de->name, ".") == 0 || strcmp(de->name, "..") == 0) {
			continue;
		}
		if (nb_url_append(url, NB_URL_MAX, &n, "/", 1) != 0 ||
		    nb_url_append(
		            url, NB_URL_MAX, &n, de->name, strlen(de->name)) !=
		            0) {
			ret = -1;
			continue;
		}
		if (de->smbc_type == SMBC_DIR) {
			if (nb_deltree_url(c, url, n, depth + 1) != 0) {
				ret = -1;
			}
		} else if (smbc_getFunctionUnlink(c->ctx)(c->ctx, url) != 0) {
			ret = -1;
		}
		url[len] = '\0';
	}
	smbc_getFunctionClosedir(c->ctx)(c->ctx, d);
	if (smbc_getFunctionRmdir(c->ctx)(c->ctx, url) != 0) {
		ret = -1;
	}
	return ret;
}

static enum nb_result nb_do_deltree(struct nb_client *c, const char *url)
{
	char work[NB_URL_MAX];
	size_t len = strlen(url);

	memcpy(work, url, len + 1);
	if (nb_deltree_url(c, work, len, 0) != 0 && errno != ENOENT) {
		return nb_errno_result(c, errno);
	}
	/* dbench ignores the status of Deltree: a missing tree is fine. */
	return nb_errno_result(c, 0);
}

static enum nb_result nb_do_handle_op(struct nb_client *c,
                                      const struct nb_op *op)
{
	struct nb_handle *h = nb_handle(c, op->fnum);
	char url[NB_URL_MAX];
	struct stat st;

	switch (op->type) {
	case NB_CLOSE:
		if (h->kind == NB_H_NONE) {
			return NB_RES_ERROR;
		}
		if (h->kind == NB_H_FILE &&
		    smbc_getFunctionClose(c->ctx)(c->ctx, h->f) != 0) {
			int err = errno;
			h->f = NULL;
			nb_handle_close(c, h);
			return nb_errno_result(c, err);
		}
		h->f = NULL;
		nb_handle_close(c, h);
		return nb_errno_result(c, 0);
	case NB_QFILEINFO:
		if (h->kind == NB_H_FILE) {
			if (smbc_getFunctionFstat(c->ctx)(c->ctx, h->f, &st) !=
			    0) {
				return nb_errno_result(c, errno);
			}
			return nb_errno_result(c, 0);
		}
		break; /* a directory: by path below */
	case NB_SETFILEINFO:
		break;
	default:
		return NB_RES_ERROR;
	}
	if (h->kind == NB_H_NONE || nb_url(c, h->path, url) != 0) {
		return NB_RES_ERROR;
	}
	if (op->type == NB_QFILEINFO) {
		if (smbc_getFunctionStat(c->ctx)(c->ctx, url, &st) != 0) {
			return nb_errno_result(c, errno);
		}
	} else if (smbc_getFunctionUtimes(c->ctx)(c->ctx, url, NULL) != 0) {
		return nb_errno_result(c, errno);
	}
	return nb_errno_result(c, 0);
}

/*
 * QUERY_FS_INFORMATION has no handle in the load.  smbc_fstatvfs on an
 * open file is one QUERY_INFO (FileFsFullSizeInformation); with no file
 * open, smbc_statvfs on the share root (which lists the root first).
 */
static enum nb_result nb_do_qfs(struct nb_client *c)
{
	struct nb_handle *h = nb_handle(c, c->last_file);
	char url[NB_URL_MAX];
	struct statvfs sv;

	if (h->kind == NB_H_FILE) {
		if (smbc_getFunctionFstatVFS(c->ctx)(c->ctx, h->f, &sv) != 0) {
			return nb_errno_result(c, errno);
		}
		return nb_errno_result(c, 0);
	}
	memcpy(url, c->prefix, c->prefix_len);
	url[c->prefix_len] = '/';
	url[c->prefix_len + 1] = '\0';
	if (smbc_getFunctionStatVFS(c->ctx)(c->ctx, url, &sv) != 0) {
		return nb_errno_result(c, errno);
	}
	return nb_errno_result(c, 0);
}

static enum nb_result nb_exec(struct nb_client *c, const struct nb_op *op)
{
	char url[NB_URL_MAX], url2[NB_URL_MAX];
	struct stat st;
	int rc;

	if (op->path != NULL && nb_url(c, op->path, url) != 0) {
		return NB_RES_ERROR;
	}
	switch ((enum nb_op_type)op->type) {
	case NB_NTCREATEX:
		return nb_do_create(c, op, url);
	case NB_CLOSE:
	case NB_QFILEINFO:
	case NB_SETFILEINFO:
		return nb_do_handle_op(c, op);
	case NB_READX:
	case NB_WRITEX:
		return nb_do_io(c, op);
	case NB_QPATHINFO:
		rc = smbc_getFunctionStat(c->ctx)(c->ctx, url, &st);
		break;
	case NB_QFSINFO:
		return nb_do_qfs(c);
	case NB_FINDFIRST:
		return nb_do_find(c, url);
	case NB_UNLINK:
		rc = smbc_getFunctionUnlink(c->ctx)(c->ctx, url);
		break;
	case NB_RENAME:
		if (nb_url(c, op->path2, url2) != 0) {
			return NB_RES_ERROR;
		}
		rc = smbc_getFunctionRename(c->ctx)(c->ctx, url, c->ctx, url2);
		break;
	case NB_MKDIR:
		rc = smbc_getFunctionMkdir(c->ctx)(c->ctx, url, 0755);
		if (rc != 0 && errno == EEXIST) {
			rc = 0; /* "\clients" is shared by all clients */
		}
		break;
	case NB_RMDIR:
		rc = smbc_getFunctionRmdir(c->ctx)(c->ctx, url);
		break;
	case NB_DELTREE:
		return nb_do_deltree(c, url);
	case NB_FLUSH:
	case NB_LOCKX:
	case NB_UNLOCKX:
	default:
		return NB_RES_SKIPPED;
	}
	return nb_errno_result(c, rc == 0 ? 0 : errno);
}

static bool nb_result_matches(enum nb_result r, uint8_t expect)
{
	switch (expect) {
	case NB_EXPECT_OK:
		return r == NB_RES_OK;
	case NB_EXPECT_NOENT:
		return r == NB_RES_NOENT;
	case NB_EXPECT_EXISTS:
		return r == NB_RES_EXISTS;
	default:
		return r != NB_RES_OK;
	}
}

static uint64_t nb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void nb_record(struct nb_client *c,
                      const struct nb_op *op,
                      enum nb_result r,
                      uint64_t ns,
                      int phase)
{
	struct nb_client_rec *rec = c->rec;
	bool ok = r == NB_RES_SKIPPED || nb_result_matches(r, op->expect);

	if (r != NB_RES_SKIPPED) {
		nb_count(&rec->ops_all, 1);
		nb_count(&rec->bytes_all, c->xfer);
	}
	if (!ok && c->opts->verbose) {
		/* A CLI tool: diagnostics go to stderr, not a daemon log. */
		fprintf(stderr,
		        "nbench: client %d line %u %s: result %d, load "
		        "says %d\n",
		        c->id,
		        op->line,
		        nb_op_name(op->type),
		        (int)r,
		        (int)op->expect);
	}
	if (phase != NB_PHASE_MEASURE) {
		return;
	}
	if (r == NB_RES_SKIPPED) {
		nb_count(&rec->skipped, 1);
		nb_count(&rec->op_skipped[op->type], 1);
		return;
	}
	nb_count(&rec->ops, 1);
	if (op->type == NB_READX) {
		nb_count(&rec->bytes_read, c->xfer);
	} else if (op->type == NB_WRITEX) {
		nb_count(&rec->bytes_written, c->xfer);
	}
	if (!ok) {
		nb_count(&rec->fails, 1);
		nb_count(&rec->op_fail[op->type], 1);
	}
	nb_hist_add(&rec->hist[op->type], ns);
}

SMBCCTX *nb_smb_connect(const struct nb_options *opts, char *err, size_t errlen)
{
	SMBCCTX *ctx = smbc_new_context();
	char url[NB_URL_MAX];
	struct stat st;

	if (ctx == NULL) {
		snprintf(err, errlen, "smbc_new_context failed");
		return NULL;
	}
	nb_auth_opts = opts;
	smbc_setDebug(ctx, opts->debug_level);
	smbc_setOptionDebugToStderr(ctx, 1);
	smbc_setFunctionAuthDataWithContext(ctx, nb_auth);
	smbc_setOptionUseKerberos(ctx, 0);
	smbc_setOptionFallbackAfterKerberos(ctx, 1);
	smbc_setOptionUseCCache(ctx, 0);
	smbc_setOptionNoAutoAnonymousLogin(ctx, 1);
	smbc_setTimeout(ctx, opts->op_timeout_ms);
	if (smbc_init_context(ctx) == NULL) {
		snprintf(err, errlen, "smbc_init_context: %s", strerror(errno));
		smbc_free_context(ctx, 1);
		return NULL;
	}
	/* After init: init loads the default smb.conf, ours must win. */
	if (opts->client_conf != NULL &&
	    smbc_setConfiguration(ctx, opts->client_conf) != 0) {
		snprintf(err, errlen, "cannot load %s", opts->client_conf);
		smbc_free_context(ctx, 1);
		return NULL;
	}
	smbc_setOptionProtocols(ctx, opts->min_protocol, opts->max_protocol);
	smbc_setOptionSmbEncryptionLevel(ctx,
	                                 opts->encrypt
	                                         ? SMBC_ENCRYPTLEVEL_REQUIRE
	                                         : SMBC_ENCRYPTLEVEL_NONE);
	snprintf(url,
	         sizeof(url),
	         "smb://%s:%u/%s/",
	         opts->server,
	         opts->port,
	         opts->share);
	if (smbc_getFunctionStat(ctx)(ctx, url, &st) != 0) {
		snprintf(err,
		         errlen,
		         "cannot connect to %s: %s",
		         url,
		         strerror(errno));
		smbc_free_context(ctx, 1);
		return NULL;
	}
	return ctx;
}

void nb_smb_free(SMBCCTX *ctx)
{
	if (ctx != NULL) {
		smbc_free_context(ctx, 1);
	}
}

static void nb_client_cleanup(struct nb_client *c)
{
	size_t i;

	for (i = 0; i <= NB_MAX_FNUM; i++) {
		if (c->h[i].kind != NB_H_NONE) {
			nb_handle_close(c, &c->h[i]);
		}
	}
}

static int nb_replay(struct nb_client *c,
                     const struct nb_load *load,
                     struct nb_shared *shm)
{
	for (;;) {
		size_t i;

		for (i = 0; i < load->num_ops; i++) {
			const struct nb_op *op = &load->ops[i];
			uint64_t t0, t1;
			enum nb_result r;
			int phase = nb_phase_get(shm);

			if (phase >= NB_PHASE_STOP) {
				return 0;
			}
			c->xfer = 0;
			t0 = nb_now_ns();
			r = nb_exec(c, op);
			t1 = nb_now_ns();
			nb_record(c, op, r, t1 - t0, nb_phase_get(shm));
			if (c->transport_errors >= 50) {
				snprintf(c->rec->msg,
				         sizeof(c->rec->msg),
				         "client %d: server unreachable "
				         "(last: %s at line %u)",
				         c->id,
				         strerror(errno),
				         op->line);
				return -1;
			}
		}
		nb_client_cleanup(c);
		nb_count(&c->rec->loops, 1);
	}
}

int nb_client_run(const struct nb_options *opts,
                  const struct nb_load *load,
                  struct nb_shared *shm,
                  int id)
{
	struct nb_client c = {.opts = opts, .id = id};
	int ret = 1;

	c.rec = &shm->client[id - 1];
	/* Die with the parent: a benchmark client must never linger. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1) {
		return 1;
	}
	c.h = calloc(NB_MAX_FNUM + 1, sizeof(*c.h));
	c.buf = malloc(NB_MAX_IO);
	if (c.h == NULL || c.buf == NULL) {
		snprintf(c.rec->msg, sizeof(c.rec->msg), "out of memory");
		goto out;
	}
	memset(c.buf, 'n', NB_MAX_IO);
	c.prefix_len = (size_t)snprintf(c.prefix,
	                                sizeof(c.prefix),
	                                "smb://%s:%u/%s",
	                                opts->server,
	                                opts->port,
	                                opts->share);
	c.ctx = nb_smb_connect(opts, c.rec->msg, sizeof(c.rec->msg));
	if (c.ctx == NULL) {
		goto out;
	}
	__atomic_store_n(&c.rec->state, NB_CLIENT_READY, __ATOMIC_RELEASE);
	while (nb_phase_get(shm) == NB_PHASE_CONNECT) {
		usleep(1000);
	}
	if (nb_replay(&c, load, shm) == 0) {
		ret = 0;
	}
	nb_client_cleanup(&c);
	if (ret == 0 && opts->cleanup) {
		char url[NB_URL_MAX];
		if (nb_url(&c, "/clients/client1", url) == 0) {
			(void)nb_do_deltree(&c, url);
		}
	}
out:
	__atomic_store_n(&c.rec->state,
	                 ret == 0 ? NB_CLIENT_DONE : NB_CLIENT_FAILED,
	                 __ATOMIC_RELEASE);
	nb_smb_free(c.ctx);
	free(c.h);
	free(c.buf);
	return ret;
}
