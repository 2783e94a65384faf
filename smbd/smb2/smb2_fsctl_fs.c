/*
 * File-system FSCTLs on a file (MS-FSCC 2.3, MS-FSA 2.1.5.10): sparse
 * files (FSCTL_SET_SPARSE, FSCTL_SET_ZERO_DATA,
 * FSCTL_QUERY_ALLOCATED_RANGES), compression as a file system without
 * it answers, and object ids.
 *
 * A file is sparse when FILE_ATTRIBUTE_SPARSE_FILE is in its DOS
 * attributes (user.DOSATTRIB, as Samba keeps it); the holes are the
 * file system's own: zeroing a range of a sparse file punches a hole
 * (fallocate PUNCH_HOLE), and the allocated ranges of a sparse file are
 * what SEEK_DATA/SEEK_HOLE find.  A file that is not sparse reports its
 * whole extent as allocated, as NTFS does.  The work that touches the
 * file runs in the pool as the session user; the access and byte-range
 * lock checks are done first, on the loop thread.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_ioctl.h"
#include "smbd/wire/fsctl_wire.h"
#include "smbd/conn/conn.h"
#include "smbd/objects/open.h"
#include "smbd/objects/oplock.h"
#include "smbd/conn/session.h"
#include "smbd/smbd.h"
#include "vfs/vfs.h"
#include "vfs/dosattrib.h"
#include "vfs/fsctl_io.h"
#include "vfs/fsinfo.h"
#include "vfs/streams.h"

#include <string.h>

/* The most ranges one QUERY_ALLOCATED_RANGES answer holds (1 MiB of
 * output): a client cannot make us allocate more for it. */
#define FSCTL_QAR_MAX_RANGES 65536

enum fs_job_kind {
	FS_JOB_SET_SPARSE,
	FS_JOB_ZERO_DATA,
	FS_JOB_QAR,
};

struct fs_job {
	struct smb2_ioctl_call call;
	enum fs_job_kind kind;
	int fd;			/* dup of the open's (the base file's) fd */
	char *stream;		/* xattr of a named stream, or NULL */
	bool store_dos;		/* `store dos attributes` */
	bool set;		/* SET_SPARSE: the new state */
	uint64_t off, end;	/* ZERO_DATA, QAR: [off, end) asked for */
	uint8_t *ranges;	/* QAR: max_ranges entries */
	uint32_t max_ranges;
	uint32_t n_ranges;
	bool overflow;		/* QAR: more ranges than max_ranges */
	NTSTATUS status;
};

/* ---- in the pool ---- */

static bool fs_job_is_sparse(struct fs_job *st)
{
	struct dos_info di;

	memset(&di, 0, sizeof(di));
	return st->store_dos && NT_STATUS_IS_OK(dosattrib_fget(st->fd, &di)) &&
	       (di.attrs & FILE_ATTRIBUTE_SPARSE_FILE);
}

/*
 * MS-FSA 2.1.5.10.36: set or clear the attribute.  Clearing it makes
 * the file fully allocated again (its holes filled with unwritten
 * extents, which read as zeros), as NTFS does.
 */
static void set_sparse_job(struct fs_job *st)
{
	struct dos_info di;
	bool was;
	uint64_t size;

	memset(&di, 0, sizeof(di));
	st->status = dosattrib_fget(st->fd, &di);
	if (st->status == NT_STATUS_NOT_FOUND) {
		di.attrs = FILE_ATTRIBUTE_ARCHIVE;
	} else if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
	was = (di.attrs & FILE_ATTRIBUTE_SPARSE_FILE) != 0;
	st->status = NT_STATUS_OK;
	if (was == st->set) {
		return;
	}
	di.attrs ^= FILE_ATTRIBUTE_SPARSE_FILE;
	st->status = dosattrib_fset(st->fd, &di);
	if (NT_STATUS_IS_OK(st->status) && was && st->stream == NULL &&
	    NT_STATUS_IS_OK(vfs_data_size(st->fd, st->stream, &size)) && size > 0) {
		vfs_fill_holes(st->fd, size);
	}
}

/* The slow way to zero [off, end): write zeros. */
static NTSTATUS zero_data_write(struct fs_job *st, uint64_t off, uint64_t end)
{
	static const uint8_t zeros[65536];

	while (off < end) {
		size_t n = end - off < sizeof(zeros) ? (size_t)(end - off)
						     : sizeof(zeros);
		NTSTATUS status =
			st->stream != NULL
				? vfs_stream_pwrite(st->fd, st->stream, zeros,
						    n, off)
				: vfs_pwrite_all(st->fd, zeros, n, off);

		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
		off += n;
	}
	return NT_STATUS_OK;
}

/*
 * MS-FSA 2.1.5.10.37: zero [off, BeyondFinalZero) without changing the
 * size (nothing past the end is touched).  A sparse file gets a hole;
 * another file keeps its blocks, zeroed (ZERO_RANGE), falling back to
 * writing zeros where the file system has neither.
 */
static void zero_data_job(struct fs_job *st)
{
	uint64_t size, end;

	st->status = vfs_data_size(st->fd, st->stream, &size);
	if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
	end = st->end < size ? st->end : size;
	if (st->off >= end) {
		return;
	}
	if (st->stream == NULL &&
	    vfs_zero_range(st->fd, st->off, end - st->off,
			   fs_job_is_sparse(st))) {
		return;
	}
	st->status = zero_data_write(st, st->off, end);
}

/* One range into the answer; false once it holds no more. */
static bool qar_add(void *p, uint64_t off, uint64_t len)
{
	struct fs_job *st = p;

	if (st->n_ranges == st->max_ranges) {
		st->overflow = true;
		return false;
	}
	put_le64(st->ranges + (size_t)st->n_ranges * FSCTL_QAR_ENTRY_LEN, off);
	put_le64(st->ranges + (size_t)st->n_ranges * FSCTL_QAR_ENTRY_LEN + 8,
		 len);
	st->n_ranges++;
	return true;
}

/* MS-FSA 2.1.5.10.22: the allocated ranges within [off, end) and the
 * file's size. */
static void qar_job(struct fs_job *st)
{
	uint64_t size, end;

	st->status = vfs_data_size(st->fd, st->stream, &size);
	if (!NT_STATUS_IS_OK(st->status)) {
		return;
	}
	end = st->end < size ? st->end : size;
	if (st->off >= end) {
		return;
	}
	/* A sparse file's data extents (a full answer stops the walk) */
	if (st->stream == NULL && fs_job_is_sparse(st) &&
	    vfs_data_extents(st->fd, st->off, end, qar_add, st)) {
		return;
	}
	/* Not sparse (or the file system has no SEEK_DATA): all of it. */
	st->n_ranges = 0;
	st->overflow = false;
	(void)qar_add(st, st->off, end - st->off);
}

static void fs_job_run(void *p)
{
	struct fs_job *st = p;

	switch (st->kind) {
	case FS_JOB_SET_SPARSE:
		set_sparse_job(st);
		break;
	case FS_JOB_ZERO_DATA:
		zero_data_job(st);
		break;
	case FS_JOB_QAR:
		qar_job(st);
		break;
	}
	vfs_fd_close(st->fd);
	st->fd = -1;
}

static void fs_job_orphan(void *p)
{
}

static NTSTATUS fs_job_done(struct smb2_request *req, void *p)
{
	struct fs_job *st = p;
	struct wire_buf out;
	NTSTATUS status = st->status;

	wire_buf_init(&out, req->mem_ctx,
		      (size_t)st->n_ranges * FSCTL_QAR_ENTRY_LEN + 1);
	if (st->kind == FS_JOB_QAR && NT_STATUS_IS_OK(status)) {
		wire_push_bytes(&out, st->ranges,
				(size_t)st->n_ranges * FSCTL_QAR_ENTRY_LEN);
		/* MS-FSA 2.1.5.10.22: what fits, and BUFFER_OVERFLOW; with
		 * no room for even one range, BUFFER_TOO_SMALL. */
		if (st->overflow) {
			status = st->n_ranges == 0 ? NT_STATUS_BUFFER_TOO_SMALL
						   : STATUS_BUFFER_OVERFLOW;
		}
	}
	return smb2_ioctl_reply(req, &st->call, status, &out);
}

/* ---- on the loop thread ---- */

static int fs_job_destructor(struct fs_job *st)
{
	vfs_fd_close(st->fd);
	return 0;
}

static NTSTATUS fs_job_start(struct smb2_ioctl_state *st, struct fs_job *job)
{
	struct smbd_open *op = st->op;

	job->call = st->call;
	job->store_dos = st->req->tcon->share.store_dos_attributes;
	(void)vfs_fd_dup(op->h.fd, &job->fd);
	if (op->stream != NULL) {
		job->stream = talloc_strdup(job, op->stream);
	}
	if (job->fd == -1 || (op->stream != NULL && job->stream == NULL)) {
		NTSTATUS status = job->fd == -1
					  ? NT_STATUS_TOO_MANY_OPENED_FILES
					  : NT_STATUS_NO_MEMORY;
		talloc_free(job);
		return status;
	}
	return smb2_job_run(st->req, job, fs_job_run, fs_job_done,
			    fs_job_orphan);
}

static struct fs_job *fs_job_new(enum fs_job_kind kind)
{
	struct fs_job *job = talloc_zero(NULL, struct fs_job);

	if (job != NULL) {
		job->kind = kind;
		job->fd = -1;
		talloc_set_destructor(job, fs_job_destructor);
	}
	return job;
}

/* A file (not a directory or a pipe) opened with one of the rights of
 * any (MS-FSA's access checks for the FSCTL); with data, one whose data
 * we hold (not an attribute-only O_PATH open). */
static NTSTATUS fsctl_fs_check(const struct smbd_open *op, uint32_t any,
			       bool data)
{
	if (op->pipe != NULL) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	if (op->is_dir) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!(op->access_mask & any) || (data && op->opath)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	return NT_STATUS_OK;
}

/*
 * MS-FSA 2.1.5.10.36: WRITE_DATA, APPEND_DATA or WRITE_ATTRIBUTES will
 * do (smbtorture sparse_perms); a directory cannot be sparse
 * (sparse_dir_flag: INVALID_PARAMETER).
 */
NTSTATUS smb2_fsctl_set_sparse(struct smb2_ioctl_state *st)
{
	struct fs_job *job;
	NTSTATUS status;

	status = fsctl_fs_check(st->op,
				SEC_FILE_WRITE_DATA | SEC_FILE_APPEND_DATA |
					SEC_FILE_WRITE_ATTRIBUTE,
				false);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (!st->req->tcon->share.store_dos_attributes) {
		/* Nowhere to keep the attribute (and the file system
		 * attributes do not claim sparse files). */
		return NT_STATUS_NOT_SUPPORTED;
	}
	job = fs_job_new(FS_JOB_SET_SPARSE);
	if (job == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	job->set = fsctl_set_sparse_parse(wire_ptr(&st->in),
					  wire_remaining(&st->in));
	return fs_job_start(st, job);
}

/*
 * The FSCTLs on a byte range: the access check, then [off, end) from the
 * input (FILE_ZERO_DATA_INFORMATION or FILE_ALLOCATED_RANGE_BUFFER).  An
 * empty range succeeds at once with *job NULL.
 */
static NTSTATUS fs_range_job(struct smb2_ioctl_state *st, uint32_t right,
			     enum fs_job_kind kind, struct fs_job **job)
{
	uint64_t off, second;
	NTSTATUS status;

	*job = NULL;
	status = fsctl_fs_check(st->op, right, true);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	status = kind == FS_JOB_ZERO_DATA
			 ? fsctl_zero_data_parse(wire_ptr(&st->in),
						 wire_remaining(&st->in), &off,
						 &second)
			 : fsctl_qar_parse(wire_ptr(&st->in),
					   wire_remaining(&st->in), &off,
					   &second);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (kind == FS_JOB_QAR) {
		second += off; /* the parser checked it cannot wrap */
	}
	if (off == second) {
		return NT_STATUS_OK;
	}
	*job = fs_job_new(kind);
	if (*job == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	(*job)->off = off;
	(*job)->end = second;
	return NT_STATUS_OK;
}

/* MS-FSA 2.1.5.10.37: WRITE_DATA (sparse_perms), no other open's
 * byte-range lock over the range (sparse_lock). */
NTSTATUS smb2_fsctl_set_zero_data(struct smb2_ioctl_state *st)
{
	struct fs_job *job;
	NTSTATUS status;

	status = fs_range_job(st, SEC_FILE_WRITE_DATA, FS_JOB_ZERO_DATA, &job);
	if (job == NULL) {
		return status;
	}
	status = smbd_open_check_io(st->op, job->off, job->end - job->off,
				    true);
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(job);
		return status;
	}
	/* MS-FSA 2.1.4.12: a write ends other opens' read caching. */
	smbd_break_readers(st->op);
	return fs_job_start(st, job);
}

/* MS-FSA 2.1.5.10.22: READ_DATA (sparse_perms); byte-range locks do not
 * matter (sparse_lock).  The answer is sized by MaxOutputResponse. */
NTSTATUS smb2_fsctl_query_allocated_ranges(struct smb2_ioctl_state *st)
{
	struct fs_job *job;
	NTSTATUS status;

	status = fs_range_job(st, SEC_FILE_READ_DATA, FS_JOB_QAR, &job);
	if (job == NULL) {
		return status;
	}
	job->max_ranges = st->call.max_out / FSCTL_QAR_ENTRY_LEN;
	if (job->max_ranges > FSCTL_QAR_MAX_RANGES) {
		job->max_ranges = FSCTL_QAR_MAX_RANGES;
	}
	job->ranges = talloc_size(job, (size_t)job->max_ranges *
						FSCTL_QAR_ENTRY_LEN + 1);
	if (job->ranges == NULL) {
		talloc_free(job);
		return NT_STATUS_NO_MEMORY;
	}
	return fs_job_start(st, job);
}

/*
 * Compression, as a file system without it (the file system attributes
 * do not claim FILE_FILE_COMPRESSION): every file is uncompressed, and
 * only "uncompressed" can be set (smbtorture compress_notsup_get/set,
 * like Windows Server 2016 on ReFS).
 */
NTSTATUS smb2_fsctl_get_compression(struct smb2_ioctl_state *st)
{
	if (st->op->pipe != NULL) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	if (st->call.max_out < 2) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	wire_push_le16(st->out, FSCTL_COMPRESSION_FORMAT_NONE);
	return NT_STATUS_OK;
}

NTSTATUS smb2_fsctl_set_compression(struct smb2_ioctl_state *st)
{
	uint16_t format;
	NTSTATUS status;

	if (st->op->pipe != NULL) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	/* MS-FSA 2.1.5.10.33: needs WRITE_DATA (smbtorture
	 * compress_perms), directories included. */
	if (!(st->op->access_mask & SEC_FILE_WRITE_DATA)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	status = fsctl_compression_parse(wire_ptr(&st->in),
					 wire_remaining(&st->in), &format);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	switch (format) {
	case FSCTL_COMPRESSION_FORMAT_NONE:
		return NT_STATUS_OK;
	case FSCTL_COMPRESSION_FORMAT_DEFAULT:
	case FSCTL_COMPRESSION_FORMAT_LZNT1:
		return NT_STATUS_NOT_SUPPORTED;
	default:
		return NT_STATUS_INVALID_PARAMETER;
	}
}

/*
 * MS-FSA 2.1.5.10.1 / 2.1.5.10.11: our object ids are not stored; each
 * file has one made from its device and inode numbers, so it is the
 * same every time and unique on the server.  Windows clients ask for it
 * (CREATE + CREATE_OR_GET_OBJECT_ID + CLOSE, smbtorture
 * compound.related3) to track shortcuts.
 */
NTSTATUS smb2_fsctl_object_id(struct smb2_ioctl_state *st)
{
	if (st->op->pipe != NULL) {
		return NT_STATUS_INVALID_DEVICE_REQUEST;
	}
	if (st->call.max_out < FSCTL_OBJECTID_LEN) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	fsctl_object_id_push(st->out, st->op->dev, st->op->ino,
			     st->req->conn->worker->srv->server_guid);
	return NT_STATUS_OK;
}
