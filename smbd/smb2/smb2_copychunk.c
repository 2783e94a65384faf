/*
 * Server-side copy: FSCTL_SRV_REQUEST_RESUME_KEY (MS-SMB2 3.3.5.15.6)
 * names a source open; FSCTL_SRV_COPYCHUNK and FSCTL_SRV_COPYCHUNK_WRITE
 * (3.3.5.15.3) copy chunks of it into the open the IOCTL is sent on.
 * Windows Explorer copies every file inside a share this way, 16 MiB per
 * request, so the data never crosses the wire.
 *
 * Everything that needs the loop thread is done before the copy: the
 * access checks, the resume key lookup (any tree connect of the same
 * session: smbtorture copy_chunk_across_shares) and the byte-range lock
 * checks against locking/ (the first conflicting chunk ends the copy
 * with STATUS_FILE_LOCK_CONFLICT, as Windows 2012 and Samba do).  The
 * copy itself runs in the pool as the session user, on dup'ed fds:
 * copy_file_range(2), which lets the file system share or clone blocks,
 * falling back to pread/pwrite through one buffer the size of the
 * largest chunk (so an overlapping copy within one file reads a whole
 * chunk before writing it, as Windows 2012 does) and to the handle's
 * ops (vfs/handle.h) for named streams.
 *
 * Apple's copyfile (AAPL's OSX_COPYFILE, vfs/copyfile.h): on a session
 * that negotiated AAPL, on a share that offers it, a request of 0
 * chunks is a Mac's copyfile, which Samba's fruit answers by copying the
 * whole source, its data and then every named stream it lists, onto the
 * target (elsewhere 0 chunks copy nothing, as Windows does).  The
 * same access checks come first; then pool jobs, each started from the
 * last one's done callback: the source's size; the byte-range locks
 * over it, on the loop thread; the data, at most COPYFILE_STEP bytes a
 * job through a buffer of COPYFILE_BUF (other requests get the pool in
 * between, and a dropped connection stops the copy at the next step);
 * the streams in the last.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_ioctl.h"
#include "smbd/wire/fsctl_wire.h"
#include "smbd/smb2/aapl_session.h"
#include "smbd/conn/conn.h"
#include "smbd/objects/open.h"
#include "smbd/objects/oplock.h"
#include "smbd/conn/session.h"
#include "smbd/smbd.h"
#include "vfs/copyfile.h"
#include "vfs/handle.h"
#include "vfs/vfs.h"
#include "vfs/fsctl_io.h"
#include "vfs/streams.h"
#include "lib/crypto.h"

#include <string.h>
#include <sys/stat.h>

/* copyfile's buffer, and the most of the data one job copies */
#define COPYFILE_BUF (1024 * 1024)
#define COPYFILE_STEP (64ULL * 1024 * 1024)

/* The source or the target of a copy: the open's handle (vfs/handle.h)
 * on our dup of its fd, with our copy of its stream's xattr. */
struct copychunk_end {
	struct vfs_handle h;
};

enum copyfile_stage { COPYFILE_SIZE, COPYFILE_DATA, COPYFILE_DONE };

/* copyfile: the whole source onto the target. */
struct copyfile {
	/* the source, found again for the lock check */
	uint8_t key[FSCTL_RESUME_KEY_LEN];
	enum copyfile_stage stage;	/* what the next job does */
	uint64_t len;	/* the source's size when the copy began */
	uint64_t done;	/* the bytes of it copied */
	/* Both opens are files' data (neither is a stream): the streams
	 * follow, from and to these (whose fds are src's and dst's). */
	bool streams;
	struct vfs_copy_side *from, *to;
};

struct copychunk_state {
	struct smb2_ioctl_call call;
	struct copychunk_end src, dst;
	struct copyfile *cf;	/* NULL but for a copyfile */
	struct fsctl_chunk *chunks;
	uint32_t count;		/* chunks to copy (those before a conflict) */
	NTSTATUS stop_status;	/* why the copy stops after count chunks */
	uint8_t *buf;		/* the fallback's buffer */
	/* results */
	NTSTATUS status;
	uint32_t chunks_written;
	uint32_t total_written;
};

NTSTATUS smb2_fsctl_request_resume_key(struct smb2_ioctl_state *st)
{
	struct smbd_open *op = st->op;
	struct fsctl_resume_key k;
	uint8_t key[FSCTL_RESUME_KEY_LEN];

	if (op->pipe != NULL) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	while (op->resume_tag == 0) {
		crypto_random(&op->resume_tag, sizeof(op->resume_tag));
	}
	k.fid_volatile = op->fid_volatile;
	k.fid_persistent = op->fid_persistent;
	k.tag = op->resume_tag;
	fsctl_resume_key_encode(&k, key);
	return fsctl_resume_key_rsp_push(st->out, key, st->call.max_out);
}

/*
 * 3.3.5.15.3: the open a resume key names, among the opens of this
 * session (on any of its tree connects); NULL when closed, made up or
 * another session's.
 */
static struct smbd_open *copychunk_source(struct smb2_request *req,
					  const uint8_t *key)
{
	struct fsctl_resume_key k;
	struct smbd_open *op;

	fsctl_resume_key_decode(key, &k);
	op = smbd_open_by_id(req->conn->worker, k.fid_volatile);
	if (op == NULL || op->fid_persistent != k.fid_persistent ||
	    op->resume_tag == 0 || op->resume_tag != k.tag ||
	    op->session != req->session || op->h.fd == -1) {
		return NULL;
	}
	return op;
}

/* ---- the copy, in the pool ---- */

/* Whether e is a file's own data (its fd's bytes), not a stream. */
static bool copychunk_own_data(const struct copychunk_end *e)
{
	return vfs_handle_has(&e->h, VFS_HANDLE_FD_DATA);
}

/* A chunk of src into buf: a file's data read directly, a stream
 * through its handle's module; all of it, else INVALID_VIEW_SIZE. */
static NTSTATUS copychunk_read(const struct copychunk_end *src, uint8_t *buf,
			       const struct fsctl_chunk *ch)
{
	size_t done = 0;
	NTSTATUS status;

	if (copychunk_own_data(src)) {
		status = vfs_pread_all(src->h.fd, buf, ch->len, ch->src_off,
				       &done);
	} else {
		status = vfs_pread(&src->h, buf, ch->len, ch->src_off, &done);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return done == ch->len ? NT_STATUS_OK : NT_STATUS_INVALID_VIEW_SIZE;
}

static NTSTATUS copychunk_write(const struct copychunk_end *dst,
				const uint8_t *buf,
				const struct fsctl_chunk *ch)
{
	size_t written;

	if (copychunk_own_data(dst)) {
		return vfs_pwrite_all(dst->h.fd, buf, ch->len, ch->dst_off);
	}
	return vfs_pwrite(&dst->h, buf, ch->len, ch->dst_off, &written);
}

static NTSTATUS copychunk_size(const struct copychunk_end *e, uint64_t *size)
{
	return copychunk_own_data(e) ? vfs_data_size(e->h.fd, NULL, size)
				     : vfs_handle_size(&e->h, size);
}

/* One chunk; through buf (ch->len bytes) where the kernel cannot. */
static NTSTATUS copychunk_one(const struct copychunk_end *src,
			      const struct copychunk_end *dst, uint8_t *buf,
			      const struct fsctl_chunk *ch)
{
	NTSTATUS status;
	uint64_t size;

	/* 3.3.5.15.3 via MS-FSA: reading past the source's end fails the
	 * chunk (smbtorture copy_chunk_src_exceed). */
	status = copychunk_size(src, &size);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (ch->src_off > size || ch->len > size - ch->src_off) {
		return NT_STATUS_INVALID_VIEW_SIZE;
	}
	if (copychunk_own_data(src) && copychunk_own_data(dst) &&
	    vfs_copy_range(src->h.fd, ch->src_off, dst->h.fd, ch->dst_off,
			   ch->len, &status)) {
		return status;
	}
	status = copychunk_read(src, buf, ch);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return copychunk_write(dst, buf, ch);
}

/* Close the fds the state holds (in the pool: close(2) may block). */
static void copychunk_close(struct copychunk_state *st)
{
	int *fds[2] = {&st->src.h.fd, &st->dst.h.fd};
	size_t i;

	if (st->cf != NULL) {
		vfs_copy_side_close(st->cf->from);
		vfs_copy_side_close(st->cf->to);
	}
	for (i = 0; i < 2; i++) {
		if (*fds[i] != -1) {
			vfs_fd_close(*fds[i]);
			*fds[i] = -1;
		}
	}
}

static void copychunk_job(void *p)
{
	struct copychunk_state *st = p;
	uint32_t i;

	st->status = st->stop_status;
	for (i = 0; i < st->count; i++) {
		NTSTATUS status = copychunk_one(&st->src, &st->dst, st->buf,
						&st->chunks[i]);

		if (!NT_STATUS_IS_OK(status)) {
			st->status = status;
			break;
		}
		st->chunks_written++;
		st->total_written += st->chunks[i].len;
	}
	copychunk_close(st);
}

/* copyfile: [from, end) of src to the same offsets of dst, in
 * pieces the buffer holds. */
static NTSTATUS copyfile_range(const struct copychunk_end *src,
			       const struct copychunk_end *dst, uint8_t *buf,
			       uint64_t from, uint64_t end)
{
	NTSTATUS status = NT_STATUS_OK;
	struct fsctl_chunk ch;

	while (NT_STATUS_IS_OK(status) && from < end) {
		ch.src_off = ch.dst_off = from;
		ch.len = (uint32_t)(end - from < COPYFILE_BUF ? end - from
							       : COPYFILE_BUF);
		status = copychunk_one(src, dst, buf, &ch);
		from += ch.len;
	}
	return status;
}

static void copyfile_job(void *p)
{
	struct copychunk_state *st = p;
	struct copyfile *cf = st->cf;
	uint64_t end;

	if (cf->stage == COPYFILE_SIZE) {
		st->status = copychunk_size(&st->src, &cf->len);
	} else {
		end = cf->len - cf->done > COPYFILE_STEP ? cf->done + COPYFILE_STEP
							 : cf->len;
		st->status = copyfile_range(&st->src, &st->dst, st->buf,
					    cf->done, end);
		if (NT_STATUS_IS_OK(st->status)) {
			cf->done = end;
		}
		if (NT_STATUS_IS_OK(st->status) && cf->done == cf->len) {
			if (cf->streams) {
				/* the streams, as the share keeps them */
				st->status = vfs_copy_streams(
					st, cf->from, cf->to, st->buf,
					COPYFILE_BUF);
			}
			cf->stage = COPYFILE_DONE;
		}
	}
	if (!NT_STATUS_IS_OK(st->status) || cf->stage == COPYFILE_DONE) {
		copychunk_close(st);
	}
}

static void copychunk_orphan(void *p)
{
}

static NTSTATUS copychunk_done(struct smb2_request *req, void *p)
{
	struct copychunk_state *st = p;
	struct wire_buf out;

	/* 2.2.32.1: ChunkBytesWritten stays 0, as Windows and Samba send
	 * it (the chunk that failed wrote nothing we report). */
	wire_buf_init(&out, req->mem_ctx, FSCTL_COPYCHUNK_RSP_LEN);
	fsctl_copychunk_rsp_push(&out, st->chunks_written, 0,
				 st->total_written);
	return smb2_ioctl_reply(req, &st->call, st->status, &out);
}

/* ---- the request, on the loop thread ---- */

/* 3.3.5.15.3: the target needs WRITE_DATA, and for FSCTL_SRV_COPYCHUNK
 * also READ_DATA (COPYCHUNK_WRITE was added for write-only targets). */
static NTSTATUS copychunk_check_target(const struct smb2_ioctl_state *st)
{
	const struct smbd_open *dst = st->op;
	uint32_t need = SEC_FILE_WRITE_DATA;

	if (st->call.ctl_code == FSCTL_SRV_COPYCHUNK) {
		need |= SEC_FILE_READ_DATA;
	}
	if (dst->pipe != NULL || dst->is_dir) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	if ((dst->access_mask & need) != need || dst->opath ||
	    st->req->tcon->read_only) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}

/* MS-FSA 2.1.4.10, as READ and WRITE check: another open's byte-range
 * lock over the source's range or the target's. */
static NTSTATUS copychunk_check_locks(struct smbd_open *src,
				      struct smbd_open *dst, uint64_t src_off,
				      uint64_t dst_off, uint64_t len)
{
	NTSTATUS status = smbd_open_check_io(src, src_off, len, false);

	if (NT_STATUS_IS_OK(status)) {
		status = smbd_open_check_io(dst, dst_off, len, true);
	}
	return status;
}

/*
 * How many chunks may run before one that a byte-range lock of another
 * open covers, or whose offsets no file can reach; *why says what stops
 * the copy there.
 */
static uint32_t copychunk_runnable(struct smbd_open *src, struct smbd_open *dst,
				   const struct fsctl_copychunk *cc,
				   NTSTATUS *why)
{
	uint32_t i;

	*why = NT_STATUS_OK;
	for (i = 0; i < cc->count; i++) {
		const struct fsctl_chunk *ch = &cc->chunks[i];

		if (ch->src_off > (uint64_t)INT64_MAX - ch->len ||
		    ch->dst_off > (uint64_t)INT64_MAX - ch->len) {
			*why = NT_STATUS_INVALID_PARAMETER;
			break;
		}
		*why = copychunk_check_locks(src, dst, ch->src_off,
					     ch->dst_off, ch->len);
		if (!NT_STATUS_IS_OK(*why)) {
			break;
		}
	}
	return i;
}

/* Fill st's ends (fds, stream names) for the pool. */
static NTSTATUS copychunk_prepare_ends(struct copychunk_state *st,
				       struct smbd_open *src,
				       struct smbd_open *dst)
{
	/* the opens' handles, each with its module's ops and mode */
	st->src.h = src->h;
	st->dst.h = dst->h;
	st->src.h.xattr = st->dst.h.xattr = NULL;
	st->src.h.fd = st->dst.h.fd = -1;
	/* TOO_MANY_OPENED_FILES whatever stopped the dup */
	(void)vfs_fd_dup(src->h.fd, &st->src.h.fd);
	(void)vfs_fd_dup(dst->h.fd, &st->dst.h.fd);
	if (st->src.h.fd == -1 || st->dst.h.fd == -1) {
		return NT_STATUS_TOO_MANY_OPENED_FILES;
	}
	if (src->h.xattr != NULL) {
		st->src.h.xattr = talloc_strdup(st, src->h.xattr);
	}
	if (dst->h.xattr != NULL) {
		st->dst.h.xattr = talloc_strdup(st, dst->h.xattr);
	}
	if ((src->h.xattr != NULL && st->src.h.xattr == NULL) ||
	    (dst->h.xattr != NULL && st->dst.h.xattr == NULL)) {
		return NT_STATUS_NO_MEMORY;
	}
	return NT_STATUS_OK;
}

/* Fill st's ends and the buffer for the chunks. */
static NTSTATUS copychunk_prepare(struct copychunk_state *st,
				  struct smbd_open *src, struct smbd_open *dst)
{
	uint32_t i, max_len = 0;
	NTSTATUS status = copychunk_prepare_ends(st, src, dst);

	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	for (i = 0; i < st->count; i++) {
		if (st->chunks[i].len > max_len) {
			max_len = st->chunks[i].len;
		}
	}
	st->buf = talloc_size(st, max_len);
	return st->buf != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

static int copychunk_state_destructor(struct copychunk_state *st)
{
	copychunk_close(st);
	return 0;
}

/* ---- copyfile, on the loop thread ---- */

/* Whether a request of 0 chunks is a Mac's copyfile: the target's share
 * offers OSX_COPYFILE and the session negotiated AAPL. */
static bool copyfile_wanted(const struct smb2_ioctl_state *st)
{
	const struct vfs_aapl *a = smb2_aapl_session(st->req);

	return a != NULL && vfs_aapl_copyfile(a);
}

/* *side: op's file (its dup'ed fd) and how op's share keeps streams. */
static NTSTATUS copyfile_side(TALLOC_CTX *mem_ctx,
			      struct vfs_copy_side **side,
			      const struct smbd_open *op, int fd)
{
	int root = op->snap_root_fd != -1 ? op->snap_root_fd
					  : op->tcon->share.root_fd;

	return vfs_copy_side_new(mem_ctx, op->tcon->vfs, &op->tcon->share,
				 root, op->path, fd, side);
}

/* Set cs up for the copyfile of src onto st's open; its first job
 * takes the source's size. */
static NTSTATUS copyfile_start(struct smb2_ioctl_state *st,
			       struct copychunk_state *cs,
			       struct smbd_open *src, const uint8_t *key)
{
	struct smbd_open *dst = st->op;
	struct copyfile *cf = talloc_zero(cs, struct copyfile);
	NTSTATUS status;

	if (cf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	cs->cf = cf;
	memcpy(cf->key, key, sizeof(cf->key));
	status = copychunk_prepare_ends(cs, src, dst);
	/* A stream handle at either end copies that stream's data only. */
	cf->streams = src->stream == NULL && dst->stream == NULL;
	if (NT_STATUS_IS_OK(status) && cf->streams) {
		status = copyfile_side(cf, &cf->from, src, cs->src.h.fd);
	}
	if (NT_STATUS_IS_OK(status) && cf->streams) {
		status = copyfile_side(cf, &cf->to, dst, cs->dst.h.fd);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* MS-FSA 2.1.4.12: a write ends other opens' read caching. */
	smbd_break_readers(dst);
	return SMBD_STATUS_ASYNC;
}

/*
 * After the size: the byte-range locks over [0, len) of both files, as
 * Samba checks them for the whole copy, and the buffer.  The opens are
 * found again: a CLOSE, LOGOFF or TREE_DISCONNECT in another frame may
 * have freed them, or the session and tree req was dispatched with.
 */
static NTSTATUS copyfile_check(struct smb2_request *req,
			       struct copychunk_state *st)
{
	struct copyfile *cf = st->cf;
	struct smbd_open *src, *dst = NULL;
	NTSTATUS status;

	req->session = smbd_session_find(req->conn, req->session_id);
	req->tcon = req->session != NULL
			    ? smbd_tcon_find(req->session, req->tree_id)
			    : NULL;
	if (req->tcon == NULL) {
		return NT_STATUS_FILE_CLOSED;
	}
	if (cf->stage != COPYFILE_SIZE) {
		return NT_STATUS_OK;
	}
	src = copychunk_source(req, cf->key);
	status = smbd_open_lookup(req, st->call.file_id, &dst);
	if (NT_STATUS_IS_OK(status) && src == NULL) {
		status = NT_STATUS_FILE_CLOSED;
	}
	if (NT_STATUS_IS_OK(status) && cf->len > (uint64_t)INT64_MAX) {
		status = NT_STATUS_INVALID_PARAMETER;
	}
	if (NT_STATUS_IS_OK(status)) {
		status = copychunk_check_locks(src, dst, 0, 0, cf->len);
	}
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	st->buf = talloc_size(st, COPYFILE_BUF);
	cf->stage = COPYFILE_DATA;
	return st->buf != NULL ? NT_STATUS_OK : NT_STATUS_NO_MEMORY;
}

static void copyfile_job(void *p);

static NTSTATUS copyfile_done(struct smb2_request *req, void *p)
{
	struct copychunk_state *st = p;
	struct copyfile *cf = st->cf;
	NTSTATUS status = st->status;
	struct wire_buf out;

	if (NT_STATUS_IS_OK(status) && cf->stage != COPYFILE_DONE) {
		status = copyfile_check(req, st);
		if (NT_STATUS_IS_OK(status)) {
			/* the state is the next job's (freed if it cannot
			 * start) */
			return smb2_job_run(req, st, copyfile_job,
					    copyfile_done, copychunk_orphan);
		}
	}
	/* Samba's answer: no chunks, and the size copied (its low 32
	 * bits), or nothing on an error. */
	wire_buf_init(&out, req->mem_ctx, FSCTL_COPYCHUNK_RSP_LEN);
	fsctl_copychunk_rsp_push(&out, 0, 0,
				 NT_STATUS_IS_OK(status) ? (uint32_t)cf->len
							 : 0);
	return smb2_ioctl_reply(req, &st->call, status, &out);
}

/* The parsed request, checked against the limits and the source. */
static NTSTATUS copychunk_start(struct smb2_ioctl_state *st,
				struct copychunk_state *cs,
				struct fsctl_copychunk *cc)
{
	struct smbd_open *src;
	NTSTATUS status;

	if (!fsctl_copychunk_limits_ok(cc)) {
		/* 3.3.5.15.3: the response tells the limits. */
		fsctl_copychunk_rsp_push(st->out, FSCTL_COPYCHUNK_MAX_CHUNKS,
					 FSCTL_COPYCHUNK_MAX_CHUNK_LEN,
					 FSCTL_COPYCHUNK_MAX_TOTAL);
		return NT_STATUS_INVALID_PARAMETER;
	}
	src = copychunk_source(st->req, cc->key);
	if (src == NULL) {
		return NT_STATUS_OBJECT_NAME_NOT_FOUND;
	}
	/* As for READ, EXECUTE lets the data be read (smbtorture
	 * copy_chunk_bad_access). */
	if (!(src->access_mask & (SEC_FILE_READ_DATA | SEC_FILE_EXECUTE)) ||
	    src->opath || src->is_dir || src->pipe != NULL) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (cc->count == 0 && copyfile_wanted(st)) {
		return copyfile_start(st, cs, src, cc->key);
	}
	cs->chunks = cc->chunks;
	cs->count = copychunk_runnable(src, st->op, cc, &cs->stop_status);
	if (cs->count == 0) {
		/* Nothing to do in the pool: 0 chunks, or the first one is
		 * refused. */
		cs->status = cs->stop_status;
		return NT_STATUS_OK;
	}
	status = copychunk_prepare(cs, src, st->op);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	/* MS-FSA 2.1.4.12: a write ends other opens' read caching. */
	smbd_break_readers(st->op);
	return SMBD_STATUS_ASYNC;
}

NTSTATUS smb2_fsctl_copychunk(struct smb2_ioctl_state *st)
{
	struct copychunk_state *cs;
	struct fsctl_copychunk cc;
	NTSTATUS status;

	status = copychunk_check_target(st);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (st->call.max_out < FSCTL_COPYCHUNK_RSP_LEN) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	cs = talloc_zero(NULL, struct copychunk_state);
	if (cs == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	cs->src.h.fd = cs->dst.h.fd = -1;
	talloc_set_destructor(cs, copychunk_state_destructor);
	/* 3.3.4.4: from here on errors carry SRV_COPYCHUNK_RESPONSE. */
	st->call.error_body = true;
	cs->call = st->call;
	status = fsctl_copychunk_parse(cs, wire_ptr(&st->in),
				       wire_remaining(&st->in), &cc);
	if (NT_STATUS_IS_OK(status)) {
		status = copychunk_start(st, cs, &cc);
	}
	if (status != SMBD_STATUS_ASYNC) {
		if (NT_STATUS_IS_OK(status)) {
			/* Nothing went to the pool. */
			fsctl_copychunk_rsp_push(st->out, 0, 0, 0);
			status = cs->status;
		}
		talloc_free(cs);
		return status;
	}
	if (cs->cf != NULL) {
		return smb2_job_run(st->req, cs, copyfile_job, copyfile_done,
				    copychunk_orphan);
	}
	return smb2_job_run(st->req, cs, copychunk_job, copychunk_done,
			    copychunk_orphan);
}
