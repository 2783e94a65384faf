/*
 * QUERY_INFO (MS-SMB2 2.2.37, 2.2.38, 3.3.5.20): the pool stats the open
 * file (and its file system); the loop encodes the class with smbd/wire/fscc.
 */
#include "smbd/conn/smb2_server.h"
#include "smbd/smb2/smb2_cmds.h"
#include "smbd/conn/conn.h"
#include "smbd/wire/fscc.h"
#include "smbd/objects/open.h"
#include "smbd/smb2/smb2_pipe.h"
#include "smbd/wire/sd.h"
#include "smbd/objects/secdesc.h"
#include "smbd/objects/ntacl.h"
#include "smbd/objects/ntacl_nfs.h"
#include "smbd/conn/session.h"
#include "smbd/smbd.h"
#include "vfs/name_map.h"
#include "vfs/stream_view.h"
#include "smbd/smb2/aapl_session.h"
#include "vfs/name.h"
#include "vfs/ntacl_xattr.h"
#include "vfs/streams.h"
#include "vfs/vfs_posix.h"
#include "vfs/fsctl_io.h"
#include "vfs/fsinfo.h"
#include "conf/loadparm.h"
#include "lib/log.h"

#include <string.h>
#include <strings.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#undef DBGC_CLASS
#define DBGC_CLASS LOG_CLASS_SMB2

#define SMB2_0_INFO_FILE 0x01
#define SMB2_0_INFO_FILESYSTEM 0x02
#define SMB2_0_INFO_SECURITY 0x03
#define SMB2_0_INFO_QUOTA 0x04

/* FileFsAttributeInformation FileSystemAttributes (MS-FSCC 2.5.1). */
#define FILE_CASE_SENSITIVE_SEARCH 0x00000001
#define FILE_CASE_PRESERVED_NAMES 0x00000002
#define FILE_UNICODE_ON_DISK 0x00000004
#define FILE_PERSISTENT_ACLS 0x00000008
#define FILE_SUPPORTS_SPARSE_FILES 0x00000040
#define FILE_SUPPORTS_OBJECT_IDS 0x00010000
#define FILE_NAMED_STREAMS 0x00040000

struct getinfo_state {
	int fd;
	bool opath;
	bool want_fs;
	struct vfs_share share;
	char *path;
	NTSTATUS status;
	struct vfs_file_info fi;
	struct statvfs vfs;
	uint32_t ea_size;
	bool want_eas;
	struct wire_buf eas;	/* FILE_FULL_EA_INFORMATION list */
	char *stream;		/* the open is this stream (xattr) */
	/* the open's handle (vfs/handle.h), on fd and stream: a stream's
	 * size is its module's (vfs_handle_info_size) */
	struct vfs_handle h;
	bool want_streams;
	/* what the share's modules list of the streams (a "._" file's
	 * fork is found under root_fd) */
	struct vfs_stream_view view;
	/* the share's size limit (vfs_stack_size_limit), for the size
	 * classes, and what counts against it */
	uint64_t tm_max;
	uint64_t tm_used;
	/* our dup of the share root, only where the job needs it: the
	 * bundles to count (tm_max), the "._" files of a stream listing
	 * (vfs_stream_view_needs_root); else -1 */
	int root_fd;
	char **stream_names;	/* FileStreamInformation, ::$DATA first */
	uint64_t *stream_sizes;
	size_t nstreams;
	bool want_ntacl;	/* security class on an acl_xattr share */
	uint8_t *ntacl;		/* the security.NTACL value, if any */
	size_t ntacl_len;
	/* security class on a member (security = ads): the owner's and
	 * group's domain SIDs, asked of winbindd in the job, for a
	 * descriptor made from the mode */
	bool want_domain_sids;
	bool have_domain_sids;
	struct sd_sid owner_sid, group_sid;
};

/* FileStreamInformation: the data stream (files only), then the named
 * streams as the share's modules list them (vfs/stream_view.h). */
static void getinfo_list_streams(struct getinfo_state *st)
{
	struct vfs_share sh = st->share;
	char **names = NULL;
	uint64_t *sizes = NULL;
	size_t n = 0, i, k = 0;

	sh.root_fd = st->root_fd;
	if (!NT_STATUS_IS_OK(vfs_stream_view_list(st, &st->view, &sh,
						  st->path, st->fd,
						  st->share.streams,
						  st->fi.is_dir, &names,
						  &sizes, &n))) {
		n = 0;
	}
	st->stream_names = talloc_array(st, char *, n + 1);
	st->stream_sizes = talloc_array(st, uint64_t, n + 1);
	if (st->stream_names == NULL || st->stream_sizes == NULL) {
		return;
	}
	if (!st->fi.is_dir) {
		st->stream_names[k] = talloc_strdup(st, "::$DATA");
		st->stream_sizes[k++] = st->fi.end_of_file;
	}
	for (i = 0; i < n; i++) {
		st->stream_names[k] = names[i];
		st->stream_sizes[k++] = sizes[i];
	}
	st->nstreams = k;
}

/* vfs_catia: ":NAME:$DATA" with NAME as the client knows it (the ':'
 * around it are the syntax's, not mapped).  A name that cannot be mapped
 * for want of memory stays as it is. */
static void getinfo_streams_to_wire(struct getinfo_state *st,
				    const struct vfs_name_map *m)
{
	static const char suffix[] = ":$DATA";
	size_t i;

	for (i = 0; m != NULL && i < st->nstreams; i++) {
		const char *full = st->stream_names[i];
		size_t len = full != NULL ? strlen(full) : 0;
		char *name, *wire, *out;

		if (len <= sizeof(suffix) || full[0] != ':' ||
		    strcmp(full + len - (sizeof(suffix) - 1), suffix) != 0) {
			continue;	/* "::$DATA", or not ours to touch */
		}
		name = talloc_strndup(st, full + 1, len - sizeof(suffix));
		wire = vfs_name_map_apply(st, m, VFS_NAME_TO_WIRE, name);
		out = wire != NULL ? talloc_asprintf(st, ":%s%s", wire, suffix)
				   : NULL;
		if (out != NULL) {
			st->stream_names[i] = out;
		}
		talloc_free(name);
		talloc_free(wire);
	}
}

/* The file's security.NTACL (Samba's acl_xattr), left NULL if none. */
static void getinfo_read_ntacl(struct getinfo_state *st)
{
	if (!NT_STATUS_IS_OK(vfs_ntacl_fget(st, st->fd, &st->ntacl,
					    &st->ntacl_len))) {
		st->ntacl = NULL;
		st->ntacl_len = 0;
	}
}

/* MS-FSCC 2.4.15 FILE_FULL_EA_INFORMATION entries, 4-byte aligned. */
static void getinfo_list_eas(struct getinfo_state *st)
{
	char list[4096];
	ssize_t n = vfs_ea_flist(st->fd, list, sizeof(list)), i = 0;
	size_t prev = (size_t)-1;

	wire_buf_init(&st->eas, st, 256);
	while (n > 0 && i < n) {
		const char *name = list + i;
		size_t len = strlen(name), start;
		uint8_t val[4096];
		ssize_t v;

		i += (ssize_t)len + 1;
		if (!vfs_ea_is_ea(name) || len - 5 > 255) {
			continue;
		}
		v = vfs_ea_fget(st->fd, name, val, sizeof(val));
		if (v < 0) {
			continue;
		}
		wire_push_align(&st->eas, 4);
		start = st->eas.len;
		if (prev != (size_t)-1 && !st->eas.failed) {
			put_le32(st->eas.data + prev, (uint32_t)(start - prev));
		}
		wire_push_le32(&st->eas, 0);
		wire_push_u8(&st->eas, 0);
		wire_push_u8(&st->eas, (uint8_t)(len - 5));
		wire_push_le16(&st->eas, (uint16_t)v);
		wire_push_bytes(&st->eas, name + 5, len - 5 + 1);
		wire_push_bytes(&st->eas, val, (size_t)v);
		prev = start;
	}
}

static void getinfo_job(void *p)
{
	struct getinfo_state *st = p;

	st->status = vfs_fstat_info(st->fd, &st->fi);
	if (NT_STATUS_IS_OK(st->status)) {
		vfs_fill_dos_attributes(&st->share, st->fd, st->opath, st->path,
					&st->fi);
		if (st->want_streams && !st->opath) {
			getinfo_list_streams(st);
		}
		if (st->stream != NULL) {
			uint64_t size = 0;

			st->h.fd = st->fd;
			st->h.xattr = st->stream;
			(void)vfs_handle_info_size(&st->h, &size);
			st->fi.is_dir = false;
			st->fi.end_of_file = size;
			st->fi.allocation_size = (size + 4095) & ~4095ULL;
		}
		if (st->want_ntacl) {
			getinfo_read_ntacl(st);
		}
		if (st->want_domain_sids && st->ntacl == NULL) {
			ntacl_sid_of_id(&st->owner_sid, false, st->fi.uid,
					true);
			ntacl_sid_of_id(&st->group_sid, true, st->fi.gid,
					true);
			st->have_domain_sids = true;
		}
		if (st->share.ea_support) {
			st->ea_size = vfs_ea_size(st->fd);
			if (st->want_eas) {
				getinfo_list_eas(st);
			}
		}
	}
	if (st->want_fs) {
		NTSTATUS status = vfs_fstatvfs(st->fd, &st->vfs);

		if (!NT_STATUS_IS_OK(status)) {
			st->status = status;
		}
	}
	if (st->root_fd != -1) {
		/* an unreadable share counts nothing: the limit still holds */
		if (st->tm_max != 0) {
			(void)vfs_size_limit_used(st->root_fd, &st->tm_used);
		}
		vfs_fd_close(st->root_fd);
		st->root_fd = -1;
	}
}

/* A job that never ran (no credentials) still gives its fds back. */
static int getinfo_state_destructor(struct getinfo_state *st)
{
	vfs_fd_close(st->root_fd);
	return 0;
}

static void getinfo_orphan(void *p)
{
}

/*
 * The smallest OutputBufferLength Windows accepts per class: the size of
 * the C structure, whose variable name array counts one character and
 * which is padded to its alignment (MS-FSA 2.1.5.12: "If OutputBufferSize
 * is smaller than sizeof(...)", smbtorture smb2.getinfo.*_buffercheck).
 * Below it: INFO_LENGTH_MISMATCH; the encoders handle the rest.
 */
struct getinfo_min {
	uint8_t type, cls;
	uint32_t size;
};

static const struct getinfo_min getinfo_mins[] = {
	{SMB2_0_INFO_FILE, FSCC_FILE_BASIC_INFORMATION, 40},
	{SMB2_0_INFO_FILE, FSCC_FILE_STANDARD_INFORMATION, 24},
	{SMB2_0_INFO_FILE, FSCC_FILE_ALL_INFORMATION, 104},
	{SMB2_0_INFO_FILE, FSCC_FILE_ALTERNATE_NAME_INFORMATION, 8},
	{SMB2_0_INFO_FILE, FSCC_FILE_STREAM_INFORMATION, 32},
	{SMB2_0_INFO_FILE, FSCC_FILE_NETWORK_OPEN_INFORMATION, 56},
	{SMB2_0_INFO_FILESYSTEM, FSCC_FS_VOLUME_INFORMATION, 24},
	{SMB2_0_INFO_FILESYSTEM, FSCC_FS_ATTRIBUTE_INFORMATION, 16},
};

static bool getinfo_too_small(uint8_t type, uint8_t cls, uint32_t max_out)
{
	size_t i;

	for (i = 0; i < sizeof(getinfo_mins) / sizeof(getinfo_mins[0]); i++) {
		if (getinfo_mins[i].type == type && getinfo_mins[i].cls == cls) {
			return max_out < getinfo_mins[i].size;
		}
	}
	return false;
}

struct getinfo_req {
	uint8_t type, cls;
	uint32_t max_out, secinfo;
	struct smbd_open *op;
};

/*
 * MS-FSCC 2.5.1 FileFsAttributes: what the share really does.
 * - CASE_SENSITIVE_SEARCH always, as NTFS and Samba 4.17 answer: the file
 *   system can search by exact case (`case sensitive`), a capability, not
 *   the share's default (smbtorture smb2.streams.names3 asks for it);
 * - PERSISTENT_ACLS unless `nt acl support = no` (Samba's answer);
 * - SUPPORTS_SPARSE_FILES where FSCTL_SET_SPARSE can keep the attribute:
 *   in user.DOSATTRIB, so not with `store dos attributes = no`
 *   (smb2_fsctl_fs.c refuses it there; Samba still claims it);
 * - SUPPORTS_OBJECT_IDS: FSCTL_[CREATE_OR_]GET_OBJECT_ID on every share;
 * - NAMED_STREAMS where the share has streams (struct vfs_share.streams:
 *   `vfs objects` empty or with streams_xattr); Samba 4.17 clears it
 *   without streams_xattr, an empty list included.
 * - not VOLUME_QUOTAS: SMB2_0_INFO_QUOTA is NOT_SUPPORTED here, and a
 *   client that sees the bit offers per-user quotas (Samba sets it).
 */
static uint32_t getinfo_fs_attributes(const struct lp_ctx *lp,
				      const struct smbd_tcon *t)
{
	uint32_t a = FILE_CASE_SENSITIVE_SEARCH | FILE_CASE_PRESERVED_NAMES |
		     FILE_UNICODE_ON_DISK | FILE_SUPPORTS_OBJECT_IDS;

	if (t->share.streams) {
		a |= FILE_NAMED_STREAMS;
	}
	if (lp_bool(lp, t->snum, LP_NT_ACL_SUPPORT)) {
		a |= FILE_PERSISTENT_ACLS;
	}
	if (t->share.store_dos_attributes) {
		a |= FILE_SUPPORTS_SPARSE_FILES;
	}
	return a;
}

static NTSTATUS getinfo_fs(struct smb2_request *req, struct getinfo_state *st,
			   const struct getinfo_req *g)
{
	const struct lp_ctx *lp = req->conn->worker->srv->lp;
	struct smbd_tcon *t = req->tcon;
	struct fscc_fs_ctx c;
	uint64_t unit = st->vfs.f_frsize ? st->vfs.f_frsize : 4096;

	memset(&c, 0, sizeof(c));
	c.bytes_per_sector = 512;
	c.sectors_per_unit = (uint32_t)(unit / 512 ? unit / 512 : 1);
	c.total_units = st->vfs.f_blocks;
	c.free_units = st->vfs.f_bfree;
	c.caller_free_units = st->vfs.f_bavail;
	if (st->tm_max != 0) {
		/* fruit:time machine max size: the share is that big, less
		 * what the backups' bands hold (vfs/fruit_tm.h) */
		uint64_t total = c.total_units * unit;
		uint64_t free_b = c.free_units * unit;
		uint64_t caller = c.caller_free_units * unit;

		vfs_size_limit_apply(st->tm_max, st->tm_used, &total,
				     &free_b, &caller);
		c.total_units = total / unit;
		c.free_units = free_b / unit;
		c.caller_free_units = caller / unit;
	}
	c.volume_label = lp_str(lp, t->snum, LP_VOLUME);
	/* A stable serial per share: a hash of its name. */
	{
		const char *n = t->share_name;
		uint32_t h = 2166136261u;

		while (*n != '\0') {
			h = (h ^ (uint8_t)*n++) * 16777619u;
		}
		c.volume_serial = h;
	}
	c.volume_create_time = 0;
	c.fs_name = lp_str(lp, t->snum, LP_FSTYPE);
	c.fs_attributes = getinfo_fs_attributes(lp, t);
	c.max_name_len = 255;
	c.device_characteristics = FSCC_FILE_DEVICE_IS_MOUNTED;
	memcpy(c.object_id, req->conn->worker->srv->server_guid, 16);
	return fscc_fs_info_push(req->out, g->cls, &c, g->max_out);
}

static NTSTATUS getinfo_file(struct smb2_request *req,
			     struct getinfo_state *st,
			     const struct getinfo_req *g)
{
	struct smbd_open *op = g->op;
	struct fscc_file_ctx c;
	char *name, *p, *shortn = NULL;
	const char *base;

	if (g->cls == FSCC_FILE_NORMALIZED_NAME_INFORMATION &&
	    req->conn->dialect < SMB2_DIALECT_0311) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	/* MS-FSA 2.1.5.12.27 FileStandardInformation (FileAllInformation
	 * too): DeletePending once FileDispositionInformation set it, and
	 * NumberOfLinks without the name about to go (Samba 4.17 answers
	 * the same; smbtorture smb2.setinfo).  A directory has one link,
	 * as on NTFS and Samba, not its POSIX count of 2 plus one per
	 * subdirectory. */
	smbd_open_query_state(op, &st->fi);
	if (st->fi.is_dir && st->fi.nlink > 1) {
		st->fi.nlink = 1;
	}
	if (st->fi.delete_pending) {
		if (st->fi.nlink > 0) {
			st->fi.nlink--;
		}
	}
	if (smb2_aapl_session(req) != NULL &&
	    vfs_aapl_zero_file_id(smb2_aapl_session(req))) {
		st->fi.file_id = 0;	/* fruit:zero_file_id */
	}
	memset(&c, 0, sizeof(c));
	c.fi = &st->fi;
	/* vfs_catia: the client's name for it, not the disk's. */
	name = vfs_name_map_apply(req->mem_ctx, req->tcon->share.name_map,
				  VFS_NAME_TO_WIRE, op->path);
	for (p = name; p != NULL && *p != '\0'; p++) {
		if (*p == '/') {
			*p = '\\';
		}
	}
	if (g->cls == FSCC_FILE_ALL_INFORMATION) {
		/* FileAllInformation's name starts with a backslash. */
		name = talloc_asprintf(req->mem_ctx, "\\%s", name);
	} else if (g->cls == FSCC_FILE_NORMALIZED_NAME_INFORMATION &&
		   op->stream != NULL) {
		/* MS-FSCC 2.4.28: the normalized name of a stream open
		 * names the stream too ("dir\\file:stream"). */
		char *sname = vfs_stream_name(req->mem_ctx, op->stream);

		sname = vfs_name_map_apply(req->mem_ctx,
					   req->tcon->share.name_map,
					   VFS_NAME_TO_WIRE, sname);
		if (sname != NULL) {
			name = talloc_asprintf(req->mem_ctx, "%s:%s", name,
					       sname);
		}
	}
	c.name = name;
	base = strrchr(op->path, '/');
	base = base ? base + 1 : op->path;
	if (base[0] != '\0') {
		/* A name that is already 8.3 is its own short name. */
		shortn = vfs_name_is_8_3(base)
				 ? talloc_strdup(req->mem_ctx, base)
				 : vfs_name_mangle(req->mem_ctx, base);
	}
	c.short_name = shortn;
	c.access_mask = op->access_mask;
	c.position = op->position;
	c.mode = op->mode;
	c.ea_size = st->ea_size;
	c.reparse_tag = st->fi.reparse_tag;
	c.volume_serial = 0;
	if (st->nstreams > 0) {
		getinfo_streams_to_wire(st, req->tcon->share.name_map);
		c.nstreams = st->nstreams;
		c.stream_names = (const char *const *)st->stream_names;
		c.stream_sizes = st->stream_sizes;
	}
	return fscc_file_info_push(req->out, g->cls, &c, g->max_out);
}

/*
 * The stored NT ACL's descriptor, with the parts secinfo asks for
 * (MS-SMB2 3.3.5.20.3); NULL when there is none or it does not parse,
 * and the Unix mode's descriptor is used instead.
 */
static struct sd *getinfo_stored_sd(struct smb2_request *req,
				    struct getinfo_state *st,
				    const struct getinfo_req *g)
{
	struct sd *sd;
	uint16_t ver;

	if (st->ntacl == NULL ||
	    !NT_STATUS_IS_OK(ntacl_blob_parse(req->mem_ctx, st->ntacl,
					      st->ntacl_len, &sd, &ver))) {
		return NULL;
	}
	if (!(g->secinfo & SECINFO_OWNER)) {
		sd->owner = NULL;
	}
	if (!(g->secinfo & SECINFO_GROUP)) {
		sd->group = NULL;
	}
	if (!(g->secinfo & SECINFO_DACL)) {
		sd->dacl = NULL;
		sd->control &= (uint16_t)~SD_SE_DACL_PRESENT;
	}
	if (!(g->secinfo & SECINFO_SACL)) {
		sd->sacl = NULL;
		sd->control &= (uint16_t)~SD_SE_SACL_PRESENT;
	}
	return sd;
}

/* The descriptor the mode gives, with a member's domain SIDs. */
static void getinfo_mode_sd(struct wire_buf *out,
			    const struct getinfo_state *st,
			    const struct getinfo_req *g)
{
	if (st->have_domain_sids) {
		secdesc_from_mode_sids(out, g->secinfo, &st->owner_sid,
				       &st->group_sid, st->fi.mode,
				       st->fi.is_dir);
	} else {
		secdesc_from_mode(out, g->secinfo, st->fi.uid, st->fi.gid,
				  st->fi.mode, st->fi.is_dir);
	}
}

/*
 * fruit:nfs_aces on a Mac's session, the DACL asked for: the descriptor
 * (stored, or the mode's) with the owner, group and mode as NFS ACEs at
 * the end of its DACL (ntacl_nfs.h), from the fstat of this query.
 * Samba's fruit adds them whatever parts are asked for, and its smbd
 * then drops the DACL unless asked: only a DACL carries them.
 */
static NTSTATUS getinfo_push_nfs(struct smb2_request *req,
				 struct getinfo_state *st,
				 const struct getinfo_req *g)
{
	struct sd *sd = getinfo_stored_sd(req, st, g);
	NTSTATUS status;

	if (sd == NULL) {
		struct wire_buf b;

		wire_buf_init(&b, req->mem_ctx, 256);
		getinfo_mode_sd(&b, st, g);
		if (b.failed) {
			return NT_STATUS_NO_MEMORY;
		}
		status = sd_parse(req->mem_ctx, b.data, b.len, &sd);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	status = ntacl_nfs_add(req->mem_ctx, sd, st->fi.uid, st->fi.gid,
			       st->fi.mode);
	if (NT_STATUS_IS_OK(status)) {
		sd_push(req->out, sd, 0);
	}
	return status;
}

/* QUERY_INFO's security class: the stored NT ACL's descriptor, else the
 * Unix mode's; a Mac's with NFS ACEs (getinfo_push_nfs). */
static NTSTATUS getinfo_security(struct smb2_request *req,
				 struct getinfo_state *st,
				 const struct getinfo_req *g)
{
	const struct vfs_aapl *a = smb2_aapl_session(req);
	struct sd *sd;

	if (a != NULL && vfs_aapl_nfs_aces(a) && (g->secinfo & SECINFO_DACL)) {
		return getinfo_push_nfs(req, st, g);
	}
	sd = getinfo_stored_sd(req, st, g);
	if (sd != NULL) {
		sd_push(req->out, sd, 0);
	} else {
		getinfo_mode_sd(req->out, st, g);
	}
	return NT_STATUS_OK;
}

static NTSTATUS getinfo_done(struct smb2_request *req, void *p)
{
	struct getinfo_state *st = p;
	struct getinfo_req *g = talloc_get_type(req->job_priv,
						struct getinfo_req);
	struct wire_buf *out = req->out;
	size_t body = out->len, data;
	NTSTATUS status;

	if (!NT_STATUS_IS_OK(st->status)) {
		return st->status;
	}
	g->op = NULL;
	{
		uint8_t fid[16];

		memcpy(fid, req->fid, 16);
		status = smbd_open_lookup(req, fid, &g->op);
		if (!NT_STATUS_IS_OK(status)) {
			return status; /* closed while we looked */
		}
	}
	/* 2.2.38 QUERY_INFO Response */
	wire_push_le16(out, 9);
	wire_push_le16(out, SMB2_HDR_LEN + 8);
	wire_push_le32(out, 0);
	data = out->len;
	switch (g->type) {
	case SMB2_0_INFO_FILE:
		if (g->cls == FSCC_FILE_FULL_EA_INFORMATION) {
			/* A file without EAs is STATUS_NO_EAS_ON_FILE, not
			 * an empty list (MS-FSA FileFullEaInformation query;
			 * Samba answers the same). */
			if (st->eas.len == 0) {
				return NT_STATUS_NO_EAS_ON_FILE;
			}
			if (st->eas.len > g->max_out) {
				return NT_STATUS_BUFFER_TOO_SMALL;
			}
			wire_push_bytes(out, st->eas.data, st->eas.len);
			status = NT_STATUS_OK;
			break;
		}
		status = getinfo_file(req, st, g);
		break;
	case SMB2_0_INFO_FILESYSTEM:
		status = getinfo_fs(req, st, g);
		break;
	case SMB2_0_INFO_SECURITY:
		status = getinfo_security(req, st, g);
		if (NT_STATUS_IS_OK(status) && out->len - data > g->max_out) {
			/* 3.3.5.20.3: never a partial descriptor; the
			 * error says how much it needs. */
			uint8_t need[4];

			put_le32(need, (uint32_t)(out->len - data));
			(void)smb2_request_error_data(req, need, 4, true);
			status = NT_STATUS_BUFFER_TOO_SMALL;
		}
		break;
	default:
		status = NT_STATUS_INVALID_PARAMETER;
		break;
	}
	if (NT_STATUS_IS_ERR(status)) {
		return status;
	}
	put_le32(out->data + body + 4, (uint32_t)(out->len - data));
	if (out->len == data) {
		wire_push_u8(out, 0);
	}
	return out->failed ? NT_STATUS_NO_MEMORY : status;
}

/*
 * A query that reads only the handle's inode (fstat, fstatvfs, the DOS
 * attributes' and the EA size's xattrs) is answered on the loop thread:
 * cached metadata, cheaper than the hop through the pool (DESIGN.md
 * "Deviations").  It reads off the handle the client opened with its
 * own rights, so no identity is needed, as for a cached READ.  Lists
 * (streams, EAs), descriptors, a stream's size and Time Machine's
 * bundle count go to the pool: they can be long or walk a directory;
 * so does everything on a network or FUSE file system (vfs_fs_is_local).
 */
static bool getinfo_inline(uint8_t type, const struct getinfo_state *st)
{
	return st->share.local_fs &&
	       (type == SMB2_0_INFO_FILE || type == SMB2_0_INFO_FILESYSTEM) &&
	       !st->want_streams && !st->want_eas && !st->want_ntacl &&
	       st->stream == NULL &&
	       vfs_handle_has(&st->h, VFS_HANDLE_FD_DATA) && st->tm_max == 0;
}

/* 3.3.5.20.1: the access each class needs. */
static bool getinfo_allowed(const struct smbd_open *op, uint8_t type,
			    uint8_t cls, uint32_t secinfo)
{
	if (type == SMB2_0_INFO_SECURITY) {
		/* Asking for no part needs no right and gets an empty
		 * descriptor, as Windows (smbtorture smb2.sdread). */
		return (secinfo & (SECINFO_OWNER | SECINFO_GROUP |
				   SECINFO_DACL | SECINFO_SACL)) == 0 ||
		       (op->access_mask & SEC_STD_READ_CONTROL) != 0;
	}
	if (type != SMB2_0_INFO_FILE) {
		return true;
	}
	switch (cls) {
	case FSCC_FILE_BASIC_INFORMATION:
	case FSCC_FILE_ALL_INFORMATION:
	case FSCC_FILE_NETWORK_OPEN_INFORMATION:
	case FSCC_FILE_ATTRIBUTE_TAG_INFORMATION:
		return (op->access_mask & SEC_FILE_READ_ATTRIBUTE) != 0;
	case FSCC_FILE_FULL_EA_INFORMATION:
		return (op->access_mask & SEC_FILE_READ_EA) != 0;
	default:
		return true;
	}
}

NTSTATUS smb2_getinfo(struct smb2_request *req)
{
	struct wire_cur *b = &req->body;
	struct getinfo_state *st;
	struct getinfo_req *g;
	struct smbd_open *op;
	uint8_t type, cls, fid[16];
	uint32_t max_out, secinfo, flags;
	bool need_root;
	NTSTATUS status;

	(void)wire_skip(b, 2);
	(void)wire_pull_u8(b, &type);
	(void)wire_pull_u8(b, &cls);
	(void)wire_pull_le32(b, &max_out);
	(void)wire_skip(b, 8);
	(void)wire_pull_le32(b, &secinfo);
	(void)wire_pull_le32(b, &flags);
	(void)wire_pull_bytes(b, fid, 16);
	status = smbd_open_lookup(req, fid, &op);
	DBG_DEBUG("%s: QUERY_INFO type %u class %u max %u: %s\n",
		  req->conn->remote, type, cls, max_out, nt_errstr(status));
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	if (max_out > req->conn->max_trans) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (op->pipe != NULL) {
		return smb2_pipe_getinfo(req, op, type, cls, max_out);
	}
	if (type == SMB2_0_INFO_QUOTA) {
		return NT_STATUS_NOT_SUPPORTED;
	}
	if (type < SMB2_0_INFO_FILE || type > SMB2_0_INFO_SECURITY) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	if (!getinfo_allowed(op, type, cls, secinfo)) {
		return NT_STATUS_ACCESS_DENIED;
	}
	if (getinfo_too_small(type, cls, max_out)) {
		/* 3.3.5.20.2: on 3.1.1 a file-system class says so with an
		 * empty error context (ByteCount 8). */
		if (type == SMB2_0_INFO_FILESYSTEM) {
			(void)smb2_request_error_data(req, NULL, 0, true);
		}
		return NT_STATUS_INFO_LENGTH_MISMATCH;
	}
	g = talloc_zero(req->mem_ctx, struct getinfo_req);
	st = talloc_zero(NULL, struct getinfo_state);
	if (g == NULL || st == NULL) {
		talloc_free(st);
		return NT_STATUS_NO_MEMORY;
	}
	g->type = type;
	g->cls = cls;
	g->max_out = max_out;
	g->secinfo = secinfo;
	req->job_priv = g;
	if (!vfs_share_copy(st, &st->share, &req->tcon->share)) {
		talloc_free(st);
		return NT_STATUS_NO_MEMORY;
	}
	st->opath = op->opath;
	st->want_fs = type == SMB2_0_INFO_FILESYSTEM;
	st->want_eas = type == SMB2_0_INFO_FILE &&
		       cls == FSCC_FILE_FULL_EA_INFORMATION;
	st->want_streams = type == SMB2_0_INFO_FILE &&
			   cls == FSCC_FILE_STREAM_INFORMATION;
	st->want_ntacl = type == SMB2_0_INFO_SECURITY &&
			 req->tcon->share.acl_xattr;
	st->want_domain_sids = type == SMB2_0_INFO_SECURITY &&
			       lp_security_ads(req->conn->worker->srv->lp);
	st->stream = op->stream ? talloc_strdup(st, op->stream) : NULL;
	st->h = op->h;
	vfs_stream_view_of(req->tcon->vfs, smb2_aapl_session(req) != NULL,
			   st->want_streams && op->stream == NULL, &st->view);
	st->fd = -1;
	st->root_fd = -1;
	talloc_set_destructor(st, getinfo_state_destructor);
	if (type == SMB2_0_INFO_FILESYSTEM &&
	    (cls == FSCC_FS_SIZE_INFORMATION ||
	     cls == FSCC_FS_FULL_SIZE_INFORMATION)) {
		st->tm_max = vfs_stack_size_limit(req->tcon->vfs);
	}
	st->path = talloc_strdup(st, op->path);
	if (st->path != NULL && getinfo_inline(type, st) && op->h.fd != -1) {
		st->fd = op->h.fd;
		getinfo_job(st);
		(void)talloc_steal(req->mem_ctx, st);
		return getinfo_done(req, st);
	}
	st->fd = smbd_open_fd_borrow(op, st);	/* not closed by the job */
	/* as fd_share_borrow fails: no fd (EBADF), or no memory */
	status = st->fd != -1   ? NT_STATUS_OK
		 : op->h.fd == -1 ? NT_STATUS_INVALID_HANDLE
				: NT_STATUS_NO_MEMORY;
	need_root = st->tm_max != 0 ||
		    (vfs_stream_view_needs_root(&st->view) && st->want_streams);
	if (need_root && st->fd != -1) {
		status = vfs_fd_dup(req->tcon->share.root_fd, &st->root_fd);
	}
	if (!NT_STATUS_IS_OK(status)) {
		talloc_free(st);
		return status;
	}
	return smb2_job_run(req, st, getinfo_job, getinfo_done,
			    getinfo_orphan);
}
