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
 * chunk before writing it, as Windows 2012 does) and to the xattr
 * stream calls for named streams.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_ioctl.h"
#include "smbd/smb2/fsctl_wire.h"
#include "smbd/conn/conn.h"
#include "smbd/objects/open.h"
#include "smbd/objects/oplock.h"
#include "smbd/conn/session.h"
#include "smbd/smbd.h"
#include "vfs/fruit.h"
#include "vfs/fruit_rsrc.h"
#include "vfs/vfs.h"
#include "vfs/streams.h"
#include "lib/crypto.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

struct copychunk_state {
	struct smb2_ioctl_call call;
	int src_fd;
	int dst_fd;
	char *src_stream;	/* xattr names of named streams, or NULL */
	char *dst_stream;
	/* either is fruit's AFP_AfpInfo: its record's rules (vfs/fruit.h) */
	enum vfs_fruit_meta src_afpinfo, dst_afpinfo;
	/* either fd is AFP_Resource's "._" file (vfs/fruit_rsrc.h) */
	bool src_rsrc, dst_rsrc;
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
	    op->session != req->session || op->fd == -1) {
		return NULL;
	}
	return op;
}

/* ---- the copy, in the pool ---- */

/* copy_file_range until done; false (nothing copied) when the kernel or
 * file system cannot, or the ranges overlap within one file (EINVAL). */
static bool copychunk_kernel(struct copychunk_state *st,
			     const struct fsctl_chunk *ch, NTSTATUS *status)
{
	loff_t in = (loff_t)ch->src_off, out = (loff_t)ch->dst_off;
	size_t left = ch->len;

	*status = NT_STATUS_OK;
	while (left > 0) {
		ssize_t n = copy_file_range(st->src_fd, &in, st->dst_fd, &out,
					    left, 0);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && left == ch->len &&
		    (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
		     errno == EOPNOTSUPP || errno == EBADF)) {
			return false;
		}
		if (n < 0) {
			*status = vfs_map_errno(errno);
			return true;
		}
		if (n == 0) {
			/* The source shrank under us. */
			*status = NT_STATUS_INVALID_VIEW_SIZE;
			return true;
		}
		left -= (size_t)n;
	}
	return true;
}

static NTSTATUS copychunk_read(struct copychunk_state *st,
			       const struct fsctl_chunk *ch)
{
	size_t done = 0;

	if (st->src_stream != NULL) {
		NTSTATUS status =
			st->src_afpinfo
				? vfs_afpinfo_pread(st->src_fd, st->src_afpinfo,
						    st->src_stream,
						    st->buf, ch->len,
						    ch->src_off, &done)
			: st->src_rsrc
				? vfs_rsrc_pread(st->src_fd, st->buf, ch->len,
						 ch->src_off, &done)
				: vfs_stream_pread(st->src_fd, st->src_stream,
						   st->buf, ch->len,
						   ch->src_off, &done);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		return done == ch->len ? NT_STATUS_OK
				       : NT_STATUS_INVALID_VIEW_SIZE;
	}
	while (done < ch->len) {
		ssize_t n = pread(st->src_fd, st->buf + done, ch->len - done,
				  (off_t)(ch->src_off + done));
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			return vfs_map_errno(errno);
		}
		if (n == 0) {
			return NT_STATUS_INVALID_VIEW_SIZE;
		}
		done += (size_t)n;
	}
	return NT_STATUS_OK;
}

static NTSTATUS copychunk_write(struct copychunk_state *st,
				const struct fsctl_chunk *ch)
{
	size_t done = 0;

	if (st->dst_afpinfo) {
		return vfs_afpinfo_pwrite(st->dst_fd, st->dst_afpinfo,
					  st->dst_stream, st->buf,
					  ch->len, ch->dst_off);
	}
	if (st->dst_rsrc) {
		return vfs_rsrc_pwrite(st->dst_fd, st->buf, ch->len,
				       ch->dst_off);
	}
	if (st->dst_stream != NULL) {
		return vfs_stream_pwrite(st->dst_fd, st->dst_stream, st->buf,
					 ch->len, ch->dst_off);
	}
	while (done < ch->len) {
		ssize_t n = pwrite(st->dst_fd, st->buf + done, ch->len - done,
				   (off_t)(ch->dst_off + done));
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return n < 0 ? vfs_map_errno(errno) : NT_STATUS_DISK_FULL;
		}
		done += (size_t)n;
	}
	return NT_STATUS_OK;
}

static NTSTATUS copychunk_one(struct copychunk_state *st,
			      const struct fsctl_chunk *ch)
{
	NTSTATUS status;
	uint64_t size;

	/* 3.3.5.15.3 via MS-FSA: reading past the source's end fails the
	 * chunk (smbtorture copy_chunk_src_exceed). */
	status = st->src_afpinfo ? vfs_afpinfo_size(st->src_fd,
						    st->src_afpinfo,
						    st->src_stream, &size)
		 : st->src_rsrc
			 ? vfs_rsrc_size(st->src_fd, &size)
			 : vfs_data_size(st->src_fd, st->src_stream, &size);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (ch->src_off > size || ch->len > size - ch->src_off) {
		return NT_STATUS_INVALID_VIEW_SIZE;
	}
	if (st->src_stream == NULL && st->dst_stream == NULL &&
	    copychunk_kernel(st, ch, &status)) {
		return status;
	}
	status = copychunk_read(st, ch);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	return copychunk_write(st, ch);
}

static void copychunk_job(void *p)
{
	struct copychunk_state *st = p;
	uint32_t i;

	st->status = st->stop_status;
	for (i = 0; i < st->count; i++) {
		NTSTATUS status = copychunk_one(st, &st->chunks[i]);

		if (!NT_STATUS_IS_OK(status)) {
			st->status = status;
			break;
		}
		st->chunks_written++;
		st->total_written += st->chunks[i].len;
	}
	close(st->src_fd);
	close(st->dst_fd);
	st->src_fd = st->dst_fd = -1;
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

/*
 * How many chunks may run before one that a byte-range lock of another
 * open covers (MS-FSA 2.1.4.10, as READ and WRITE check), or whose
 * offsets no file can reach; *why says what stops the copy there.
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
		*why = smbd_open_check_io(src, ch->src_off, ch->len, false);
		if (NT_STATUS_IS_OK(*why)) {
			*why = smbd_open_check_io(dst, ch->dst_off, ch->len,
						  true);
		}
		if (!NT_STATUS_IS_OK(*why)) {
			break;
		}
	}
	return i;
}

/* Fill st's fds, stream names and buffer for the pool. */
static NTSTATUS copychunk_prepare(struct copychunk_state *st,
				  struct smbd_open *src, struct smbd_open *dst)
{
	uint32_t i, max_len = 0;

	st->src_fd = fcntl(src->fd, F_DUPFD_CLOEXEC, 0);
	st->dst_fd = fcntl(dst->fd, F_DUPFD_CLOEXEC, 0);
	if (st->src_fd == -1 || st->dst_fd == -1) {
		return NT_STATUS_TOO_MANY_OPENED_FILES;
	}
	if (src->stream != NULL) {
		st->src_stream = talloc_strdup(st, src->stream);
	}
	if (dst->stream != NULL) {
		st->dst_stream = talloc_strdup(st, dst->stream);
	}
	st->src_afpinfo = src->afpinfo;
	st->dst_afpinfo = dst->afpinfo;
	st->src_rsrc = src->rsrc_file;
	st->dst_rsrc = dst->rsrc_file;
	for (i = 0; i < st->count; i++) {
		if (st->chunks[i].len > max_len) {
			max_len = st->chunks[i].len;
		}
	}
	st->buf = talloc_size(st, max_len);
	if ((src->stream != NULL && st->src_stream == NULL) ||
	    (dst->stream != NULL && st->dst_stream == NULL) ||
	    st->buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	return NT_STATUS_OK;
}

static int copychunk_state_destructor(struct copychunk_state *st)
{
	if (st->src_fd != -1) {
		close(st->src_fd);
	}
	if (st->dst_fd != -1) {
		close(st->dst_fd);
	}
	return 0;
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
	cs->src_fd = cs->dst_fd = -1;
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
	return smb2_job_run(st->req, cs, copychunk_job, copychunk_done,
			    copychunk_orphan);
}
